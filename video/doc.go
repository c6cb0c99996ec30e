// Package video writes H.264 files (reading a camera, a stream or a file is
// package capture's).
//
// Writer pipes raw frames to the ffmpeg command (libx264), which encodes on
// every core in a process of its own; OpenCV's own writer encodes on the
// caller's thread at a fraction of real time, and is only the fallback.
//
//	w, err := video.Create("out.mp4", 25, 1920, 1080, video.DefaultCRF)
//	defer w.Close() // finishes the file
//	err = w.Write(frame)
package video

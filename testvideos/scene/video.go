package scene

import (
	"fmt"
	"log"

	"gocv.io/x/gocv"
)

// Video writes frames to an .mp4 file. The caller must Close it, which
// finishes the file.
type Video struct {
	w *gocv.VideoWriter
	// Codec is the FourCC actually used: "avc1" (H.264, as surveillance
	// cameras record) or "mp4v" (MPEG-4 Part 2) when this OpenCV build
	// cannot encode H.264.
	Codec string
}

// CreateVideo opens an .mp4 for writing width×height BGR frames. It tries
// H.264 first and falls back to MPEG-4 Part 2, logging the fallback,
// because the monitor must cope with H.264 artefacts and a clip without
// them tests less. gocv does not report a failed open, so IsOpened is
// checked here.
func CreateVideo(path string, fps float64, width, height int) (*Video, error) {
	if fps <= 0 || fps > 240 || width < 16 || height < 16 {
		return nil, fmt.Errorf("scene: video %dx%d at %g fps: out of range", width, height, fps)
	}
	for _, codec := range []string{"avc1", "mp4v"} {
		w, err := gocv.VideoWriterFile(path, codec, fps, width, height, true)
		if err != nil {
			continue
		}
		if !w.IsOpened() {
			w.Close()
			continue
		}
		if codec != "avc1" {
			log.Printf("scene: H.264 (avc1) is not available in this OpenCV build; %s is MPEG-4 Part 2 (mp4v)", path)
		}
		return &Video{w: w, Codec: codec}, nil
	}
	return nil, fmt.Errorf("scene: cannot open %s for writing with avc1 or mp4v", path)
}

// Write appends one frame; it must be width×height BGR.
func (v *Video) Write(frame gocv.Mat) error { return v.w.Write(frame) }

// Close finishes the file.
func (v *Video) Close() error { return v.w.Close() }

// Package capture reads frames from a camera, an RTSP stream or a video
// file on a goroutine of its own, keeps only the newest, and reconnects by
// itself when the source fails, so the live monitor never stalls capture
// and starts even while the camera is off.
//
// The consumer takes frames with Next, which says how many were dropped
// (overwritten before being taken) and whether the source was opened again
// since the previous frame: after a reconnect the table may have changed,
// and the detector must read it afresh.
//
//	cfg := capture.DefaultConfig()
//	cfg.Source = "rtsp://cam/stream"
//	c, err := capture.Start(ctx, cfg, log)
//	defer c.Close() // the caller must close it
//	frame := gocv.NewMat()
//	defer frame.Close()
//	for {
//		info, err := c.Next(ctx, &frame)
//		…
//	}
//
// A replay reads a recorded video with File instead: every frame, none
// dropped, decoded ahead of the reader, with the same Next.
package capture

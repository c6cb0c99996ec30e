// Package driver is the monitor's one frame loop: it feeds a table's
// pipeline from a frame source and hands what comes out to a sink. It
// opens the pipeline at the first frame, keeps the video clock (a frame's
// number over the frame rate, kept level with the wall clock across a
// camera outage), holds the controller's events until their time comes,
// picks the frames read for cards (vision.analysis_fps), calibrates the
// camera again when the source reconnects, and warns of zones the camera
// does not wholly see. Replay, live and inspect differ only in their
// source (capture.File, capture.Capture) and their sink.
//
// Usage:
//
//	d := driver.New(driver.Config{Open: open, AnalysisFPS: 12.5}, sink)
//	d.Put(event) // from any goroutine, before or during Run
//	err := d.Run(ctx, src)
//
// The pipeline belongs to the driver, which closes it when Run returns;
// the source stays the caller's to close.
package driver

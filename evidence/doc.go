// Package evidence keeps the proof an officer needs to act on an alert: a
// JPEG snapshot of the table at the decisive moment, with the cards as read
// drawn on it, and a short H.264 clip around that moment.
//
// A Recorder keeps a rolling history of downscaled JPEG frames (History
// plus Before seconds at FPS frames a second, so memory stays bounded) fed
// by Add. Save writes the snapshot at once and returns both paths, so they
// can go into the alert before the clip exists; the clip is encoded by the
// Recorder's background goroutine once the frames after the moment have
// arrived, and appears under its path (renamed into place, never half
// written) when done. Retention deletes evidence older than MaxAge, then the
// oldest files while the directory holds more than MaxBytes.
//
//	rec, err := evidence.New(ctx, evidence.Config{Dir: "/var/lib/monitor/evidence"})
//	defer rec.Close() // finishes pending clips; the caller must call it
//	for each frame: err = rec.Add(frame, t)
//	for each alert: paths, err := rec.Save(alert.ID, alert.T, drawCards)
package evidence

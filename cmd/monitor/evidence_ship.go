package main

import (
	"context"

	"gocv.io/x/gocv"

	"bjmonitor/driver"
	"bjmonitor/evidence"
	"bjmonitor/evidence/ship"
	"bjmonitor/pipeline"
)

// replayEvidence writes each alert's snapshot and clip during a replay
// (--evidence), as live does, from the frames read for cards; with
// --publish it also sends them to the consoles (package ship).
type replayEvidence struct {
	rec  *evidence.Recorder
	ship *ship.Shipper // nil unless publishing
}

// openEvidence starts the evidence recorder into evidence.dir; pub, when
// the replay publishes, also carries the files.
func (r *replay) openEvidence(ctx context.Context, pub *replayPublisher) error {
	rec, err := evidence.New(ctx, evidence.Config{Dir: r.cfg.Evidence.Dir, MaxAge: r.cfg.Evidence.MaxAge, MaxBytes: r.cfg.Evidence.MaxBytes, Logger: r.log})
	if err != nil {
		return userField(err)
	}
	r.ev = &replayEvidence{rec: rec}
	if pub != nil {
		r.ev.ship = ship.New(pub.p, r.log)
	}
	return nil
}

// evidenceFrame keeps a decoded frame for the clips.
func (r *replay) evidenceFrame(mat gocv.Mat, at driver.At) {
	if r.ev == nil {
		return
	}
	if err := r.ev.rec.Add(mat, at.T); err != nil {
		r.log.Warn("evidence: frame not kept", "frame", at.Index, "err", err)
	}
}

// saveEvidence writes the evidence of a round's alerts and puts its paths
// in them.
func (r *replay) saveEvidence(now driver.At, res pipeline.Result) {
	if r.ev == nil || now.Pipeline == nil || now.Pipeline.Calibration() == nil {
		return
	}
	cal := now.Pipeline.Calibration()
	at := moment(res.Round, now.Index, now.T, now.FPS)
	for i, a := range res.Alerts {
		p, err := r.ev.rec.Save(a.ID, at, drawEvidence(cal, res.Round, a))
		if err != nil {
			r.log.Warn("alert evidence not written", "alert", a.ID, "err", err)
			continue
		}
		res.Alerts[i].Snapshot, res.Alerts[i].Clip = p.Snapshot, p.Clip
		if r.ev.ship != nil {
			r.ev.ship.Send(a.ID, p.Snapshot, p.Clip)
		}
	}
}

// closeEvidence writes the clips still pending, then queues every file
// for the broker.
func (r *replay) closeEvidence(ctx context.Context) {
	if r.ev == nil {
		return
	}
	if err := r.ev.rec.Close(); err != nil {
		r.log.Warn("evidence", "err", err)
	}
	if r.ev.ship != nil {
		r.ev.ship.Flush(ctx)
	}
}

// runShipper starts sending the live monitor's evidence files to the
// consoles as they appear. The stop it returns ends that and sends what
// the recorder finished since (its last clips, written as it closes).
func (l *live) runShipper(ctx context.Context) (stop func()) {
	l.ship = ship.New(l.pub, l.log)
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.ship.Run(sctx)
	}()
	return func() {
		cancel()
		<-done
		l.ship.Flush(context.WithoutCancel(ctx))
	}
}

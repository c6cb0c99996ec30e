package main

import (
	"fmt"
	"time"

	"bjmonitor/publish"
	"bjmonitor/tracker"
)

// brokerGaps names, in every round that lived through one, the gaps in the
// monitor's broker connection: controller entries published during a gap
// may never have reached the monitor (a broker restarted without
// persistence forgets the monitor's session), and alerts built on missing
// entries must go out for review, never as sure mismatches. Rounds are
// counted in frames and gaps in wall time, so it keeps the wall time of a
// frame every second. The frame loop feeds it and the pipeline asks it,
// both on the loop's goroutine.
type brokerGaps struct {
	link   gapSource // nil: no gaps
	frames []frameTime
	now    func() time.Time // time.Now; tests set it
}

// gapSource is what the gaps are read from: *publish.Publisher.
type gapSource interface {
	Gaps() []publish.Gap
}

var _ gapSource = (*publish.Publisher)(nil)

type frameTime struct {
	index int
	wall  time.Time
}

// Frames' wall times are kept one a second, for an hour: a round is judged
// long before.
const (
	frameTimeEvery = time.Second
	maxFrameTimes  = 3600
)

// frame notes that frame index was read at wall time.
func (g *brokerGaps) frame(index int, wall time.Time) {
	if n := len(g.frames); n > 0 && (index <= g.frames[n-1].index || wall.Sub(g.frames[n-1].wall) < frameTimeEvery) {
		return
	}
	g.frames = append(g.frames, frameTime{index, wall})
	if len(g.frames) > maxFrameTimes {
		g.frames = g.frames[1:]
	}
}

// started is the wall time of frame index, or of the latest frame noted
// before it (earlier, so a round is doubted rather than not); the earliest
// noted when it is older than them all.
func (g *brokerGaps) started(index int) (time.Time, bool) {
	if len(g.frames) == 0 {
		return time.Time{}, false
	}
	at := g.frames[0].wall
	for _, f := range g.frames {
		if f.index > index {
			break
		}
		at = f.wall
	}
	return at, true
}

// doubts is the pipeline's Doubts: the latest gap between the round's
// first frame and now, when it is judged, if any. A round seen start
// before any frame was noted is doubted by any gap up to now.
func (g *brokerGaps) doubts(r tracker.Round) []string {
	if g.link == nil {
		return nil
	}
	now := time.Now()
	if g.now != nil {
		now = g.now()
	}
	start, ok := g.started(r.StartFrame)
	gaps := g.link.Gaps()
	for i := len(gaps) - 1; i >= 0; i-- {
		gp := gaps[i]
		if gp.From.After(now) {
			continue
		}
		if !ok || gp.To.IsZero() || !gp.To.Before(start) {
			return []string{describeGap(gp)}
		}
		return nil // earlier gaps ended earlier still
	}
	return nil
}

func describeGap(g publish.Gap) string {
	const layout = "2006-01-02T15:04:05.000Z"
	from := g.From.UTC().Format(layout)
	if g.To.IsZero() {
		return fmt.Sprintf("the monitor was not connected to the broker from %s until after the round (%s): controller entries sent meanwhile may be missing", from, g.Why)
	}
	return fmt.Sprintf("the monitor was not connected to the broker from %s to %s (%.1f s; %s): controller entries sent then may be missing",
		from, g.To.UTC().Format(layout), g.To.Sub(g.From).Seconds(), g.Why)
}

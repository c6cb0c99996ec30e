package main

import (
	"fmt"
	"math"

	"bjmonitor/publish"
	"bjmonitor/tracker"
)

// brokerGaps places the gaps in the monitor's broker connection on the
// frame clock, so that a round that lived through one carries a doubt
// naming it: controller entries published during a gap may never have
// reached the monitor (a broker restarted without persistence forgets the
// monitor's session), and alerts built on missing entries must go out for
// review, never as sure mismatches. The frame loop feeds it and the
// pipeline asks it, both on the loop's goroutine.
type brokerGaps struct {
	seen  int       // the link's gaps already placed
	spans []gapSpan // oldest first, at most maxGapSpans
}

// gapSpan is a gap in frames: from the frame at which the loop saw the
// connection down to the one at which it saw it back (-1 while down).
type gapSpan struct {
	from, to int
	gap      publish.Gap
}

// maxGapSpans bounds the gaps remembered; a round outlives far fewer.
const maxGapSpans = 64

// observe takes the connection's state at frame. The loop looks at every
// frame, or every idleTick while the camera is away, so a gap is placed at
// most that late. A round closed in that moment had its game_end, and so
// every entry before it, delivered before the connection dropped.
func (g *brokerGaps) observe(frame int, l publish.Link) {
	if l.Gaps > g.seen {
		// Gaps that began and ended between two looks share one span.
		g.seen = l.Gaps
		g.spans = append(g.spans, gapSpan{from: frame, to: -1})
		if len(g.spans) > maxGapSpans {
			g.spans = g.spans[1:]
		}
	}
	n := len(g.spans)
	if n == 0 || g.spans[n-1].to >= 0 {
		return
	}
	last := &g.spans[n-1]
	last.gap = l.Last
	if l.Connected {
		last.to = frame
	}
}

// doubts is the pipeline's Doubts: the latest gap the round overlaps, if
// any.
func (g *brokerGaps) doubts(r tracker.Round) []string {
	for i := len(g.spans) - 1; i >= 0; i-- {
		s := g.spans[i]
		to := s.to
		if to < 0 {
			to = math.MaxInt
		}
		if r.StartFrame <= to && s.from <= r.EndFrame {
			return []string{describeGap(s.gap)}
		}
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

package main

import (
	"strings"
	"testing"
	"time"

	"bjmonitor/publish"
	"bjmonitor/tracker"
)

// TestBrokerGapDoubts places a broker gap on the frame clock and asks
// which rounds it makes doubtful.
func TestBrokerGapDoubts(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 18, 30, 2, 0, time.UTC)
	gap := publish.Gap{From: t0, Why: "EOF"}
	closed := gap
	closed.To = t0.Add(3200 * time.Millisecond)
	var g brokerGaps
	g.observe(10, publish.Link{Connected: true})
	g.observe(100, publish.Link{Connected: false, Gaps: 1, Last: gap}) // down from frame 100
	g.observe(150, publish.Link{Connected: false, Gaps: 1, Last: gap})
	open := g.doubts(tracker.Round{StartFrame: 90, EndFrame: 150})
	g.observe(180, publish.Link{Connected: true, Gaps: 1, Last: closed})                                                                                    // back at 180
	g.observe(300, publish.Link{Connected: true, Gaps: 2, Last: publish.Gap{From: t0.Add(time.Minute), To: t0.Add(time.Minute + time.Second), Why: "EOF"}}) // a blip between two looks

	if len(open) != 1 || !strings.Contains(open[0], "until after the round") {
		t.Errorf("doubts while the gap goes on = %q, want one saying it has not ended", open)
	}
	cases := []struct {
		name       string
		start, end int
		want       string // "" for no doubt
	}{
		{"before the gap", 20, 99, ""},
		{"ends in the gap", 50, 120, "to 2026-12-01T18:30:05.200Z (3.2 s; EOF)"},
		{"spans the gap", 90, 200, "from 2026-12-01T18:30:02.000Z"},
		{"starts in the gap", 160, 250, "(3.2 s; EOF)"},
		{"starts as it ends", 180, 250, "(3.2 s; EOF)"},
		{"after the gap", 181, 299, ""},
		{"through the blip", 250, 320, "(1.0 s; EOF)"},
		{"after the blip", 301, 400, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := g.doubts(tracker.Round{StartFrame: tc.start, EndFrame: tc.end})
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("doubts(%d..%d) = %q, want none", tc.start, tc.end, got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("doubts(%d..%d) = %q, want one containing %q", tc.start, tc.end, got, tc.want)
			}
		})
	}
}

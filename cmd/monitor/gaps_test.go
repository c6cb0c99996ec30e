package main

import (
	"strings"
	"testing"
	"time"

	"bjmonitor/publish"
	"bjmonitor/tracker"
)

type fakeGaps []publish.Gap

func (f fakeGaps) Gaps() []publish.Gap { return f }

// TestBrokerGapDoubts: frames read at 25 a second from t0, a gap of 3.2 s
// from t0+4 s and a blip at t0+60 s; which rounds, judged when, are doubted.
func TestBrokerGapDoubts(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 18, 30, 0, 0, time.UTC)
	gap := publish.Gap{From: t0.Add(4 * time.Second), To: t0.Add(7200 * time.Millisecond), Why: "EOF"}
	blip := publish.Gap{From: t0.Add(60 * time.Second), To: t0.Add(61 * time.Second), Why: "EOF"}
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	frame := func(s float64) int { return int(s * 25) }
	cases := []struct {
		name       string
		gaps       fakeGaps
		start, now float64 // seconds from t0: the round's first frame, its judgement
		want       string  // "" for no doubt
	}{
		{"before the gap", fakeGaps{gap, blip}, 1, 3.9, ""},
		{"judged in the gap", fakeGaps{{From: gap.From, Why: "EOF"}}, 1, 5, "until after the round (EOF)"},
		{"spans the gap", fakeGaps{gap, blip}, 1, 20, "to 2026-12-01T18:30:07.200Z (3.2 s; EOF)"},
		{"starts in the gap", fakeGaps{gap, blip}, 5, 20, "from 2026-12-01T18:30:04.000Z"},
		{"after the gap", fakeGaps{gap, blip}, 8, 40, ""},
		{"through the blip", fakeGaps{gap, blip}, 50, 70, "(1.0 s; EOF)"},
		{"after the blip", fakeGaps{gap, blip}, 62, 80, ""},
		{"no gap", nil, 1, 80, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := brokerGaps{link: tc.gaps, now: func() time.Time { return at(tc.now) }}
			for s := 0.0; s <= tc.now; s += 0.04 {
				g.frame(frame(s), at(s))
			}
			got := g.doubts(tracker.Round{StartFrame: frame(tc.start), EndFrame: frame(tc.now)})
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("doubts = %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("doubts = %q, want one containing %q", got, tc.want)
			}
		})
	}
	// The camera away: no frame noted since the start; a gap after it
	// still doubts a round judged now.
	g := brokerGaps{link: fakeGaps{gap}, now: func() time.Time { return at(20) }}
	g.frame(0, t0)
	if got := g.doubts(tracker.Round{StartFrame: 0, EndFrame: 0}); len(got) != 1 {
		t.Errorf("a round judged with the camera away, after a gap: doubts %q, want one", got)
	}
}

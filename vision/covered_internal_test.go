package vision

import (
	"testing"

	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// TestCovered: which corners read this frame put another card over a
// card shape, so that its pips are not counted. The shape lies upright
// at the origin; its top end is at y = -44 mm, its long edges at x =
// ±31.5 mm.
func TestCovered(t *testing.T) {
	s := cardShape{centre: pt(0, 0), v: pt(0, 1)}
	at := func(x, y float64, res classify.Result, guessed bool) read {
		return read{at: corner{P: pt(x, y), U: pt(1, 0), V: pt(0, 1), Guessed: guessed}, res: res}
	}
	card := classify.Result{Card: cards.MustParse("7S"), Confidence: 0.97}
	back := classify.Result{Back: true, Confidence: 0.95}
	none := classify.Result{Confidence: 0.98}
	for _, tc := range []struct {
		name string
		r    read
		want bool
	}{
		{"the next card's index corner on its top end", at(-10, -44, card, false), true},
		{"a face-down card's corner on its face", at(5, 10, back, false), true},
		// A frame line of the face's own art meets its top edge 7 mm in
		// from the corner (KDE ancient-egyptians' gold bracket over a 9♠,
		// fresh clip seed 3601, round 1007): no index, no back.
		{"a corner that reads no index, on its top end", at(24.4, -43.5, none, false), false},
		{"a guessed corner, placed from ink", at(-10, -44, card, true), false},
		{"a corner beside it", at(40, 0, card, false), false},
		{"a corner past its end", at(0, -60, card, false), false},
	} {
		if got := covered(s, []read{tc.r}); got != tc.want {
			t.Errorf("%s: covered = %v, want %v", tc.name, got, tc.want)
		}
	}
}

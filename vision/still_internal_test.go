package vision

import (
	"math"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// TestDiagonalRatio checks the scale a still's cards measure: the cards
// read surely at both index corners (the top left and the bottom right,
// 180° apart) give the distance between them over a card's diagonal, and
// the median stands. proc:8 seed 5001 was read at 1.88 px/mm, its edges'
// scale, where it is 1.70: its cards' corners lay 0.90 of a diagonal
// apart, and the 10♠ at the bottom of a hand was lost, its body reaching
// past its paper.
func TestDiagonalRatio(t *testing.T) {
	ts, fh := cards.Card{Rank: cards.Ten, Suit: cards.Spades}, cards.Card{Rank: cards.Five, Suit: cards.Hearts}
	// card returns the readings of a card lying square at x mm, its index
	// corners k diagonals apart, read as c at conf; turned reads the second
	// corner a quarter turned, as a corner of the other kind.
	card := func(x, k float64, c cards.Card, conf float64, turned bool) []read {
		tl := corner{P: pt(x, 0), U: pt(1, 0), V: pt(0, 1)}
		br := corner{P: pt(x+cardW*k, cardH*k), U: pt(-1, 0), V: pt(0, -1)}
		if turned {
			br.U, br.V = pt(0, -1), pt(1, 0)
		}
		return []read{
			{at: tl, res: classify.Result{Card: c, Confidence: conf}},
			{at: br, res: classify.Result{Card: c, Confidence: conf}},
		}
	}
	join := func(rs ...[]read) []read {
		var out []read
		for _, r := range rs {
			out = append(out, r...)
		}
		return out
	}
	tests := []struct {
		name  string
		reads []read
		want  float64
	}{
		{"two cards at 0.9", join(card(0, 0.9, ts, 0.95, false), card(100, 0.9, fh, 0.9, false)), 0.9},
		{"three cards, the median", join(card(0, 0.9, ts, 0.95, false), card(100, 0.92, fh, 0.9, false), card(200, 1.1, fh, 0.9, false)), 0.92},
		{"one card: no measure", card(0, 0.9, ts, 0.95, false), 0},
		{"an unsure card does not count", join(card(0, 0.9, ts, 0.95, false), card(100, 0.9, fh, 0.6, false)), 0},
		{"corners a quarter apart do not count", join(card(0, 0.9, ts, 0.95, false), card(100, 0.9, fh, 0.9, true)), 0},
		{"two cards of one kind far apart do not count", join(card(0, 0.9, ts, 0.95, false)[:1], card(300, 0.9, ts, 0.95, false)[1:], card(100, 0.9, fh, 0.9, false)), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := diagonalRatio(tc.reads); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("diagonalRatio = %.4f, want %.4f", got, tc.want)
			}
		})
	}
}

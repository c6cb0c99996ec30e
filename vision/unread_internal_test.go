package vision

import (
	"math"
	"testing"

	"bjmonitor/calibration"
)

// TestOppositeCorners checks the card two opposite index corners make:
// placed within a millimetre and a degree of where it lies, though one
// corner's edge runs some degrees off or one corner was placed from ink
// some millimetres off, and refused where the corners are not of one
// card.
//
// "an edge of the card beneath" is CCTV proc:4 seed 4714 (CCTV=1
// DECKS=proc:4 scripts/accuracy 4 4714 1), round 1000, frame 360: seat 7's
// 2♣ lies over the J♦'s end, and the edge found at its top-left corner
// ran 7° off its own, along the J♦'s. The card then placed from that
// edge was cut for its pips 3 mm and 7° off, and its two clubs did not
// lie as a two's pips do: the card stood as the 2♠ its index read.
func TestOppositeCorners(t *testing.T) {
	tests := []struct {
		name   string
		a, b   corner
		ok     bool
		centre calibration.Point
		v      calibration.Point
	}{
		{
			name:   "a card along y",
			a:      corner{P: pt(-31.5, -44), U: pt(1, 0), V: pt(0, 1)},
			b:      corner{P: pt(31.5, 44), U: pt(-1, 0), V: pt(0, -1)},
			ok:     true,
			centre: pt(0, 0),
			v:      pt(0, 1),
		},
		{
			name:   "the same card, the corners the other way round",
			a:      corner{P: pt(31.5, 44), U: pt(-1, 0), V: pt(0, -1)},
			b:      corner{P: pt(-31.5, -44), U: pt(1, 0), V: pt(0, 1)},
			ok:     true,
			centre: pt(0, 0),
			v:      pt(0, -1),
		},
		{
			name:   "an edge of the card beneath",
			a:      corner{P: pt(-469.6, 205.6), U: pt(0.884, 0.468), V: pt(-0.573, 0.819)},
			b:      corner{P: pt(-455.4, 312.2), U: pt(-0.894, -0.447), V: pt(0.466, -0.885)},
			ok:     true,
			centre: pt(-462.5, 259.1), // the mean of the card's true corners
			v:      pt(-0.461, 0.888),
		},
		{
			// proc:24 seed 2806 (DECKS=proc:24 scripts/accuracy 4 2806
			// 1), round 1002, frame 1460: the dealer's 8♥, whose
			// top-left corner was placed from its index's ink, 6.5 mm
			// along its top edge from where it lies; its pips count
			// only on a face cut square to its edges.
			name:   "a corner placed from ink, some millimetres along its edge",
			a:      corner{P: pt(49.3, 220.7), U: pt(-1, 0), V: pt(0, -1)},
			b:      corner{P: pt(-6.7, 130.7), U: pt(1, 0), V: pt(0, 1), Guessed: true},
			ok:     true,
			centre: pt(18.1, 176.7), // the truth's
			v:      pt(0, -1),
		},
		{
			// proc:4 seed 2404 (DECKS=proc:4 scripts/accuracy 4 2404 1),
			// round 1003, frame 1848: the dealer's 2♣, its top-left
			// corner placed from its index's ink on the outline, the
			// top edge of the card before it, 4.6 mm higher and 3°
			// off its own. The truth's corners, mapped to the table:
			// (-14.67, 133.65), (48.15, 131.51), (51.13, 219.26),
			// (-11.69, 221.40).
			name:   "a corner placed from ink on another card's edge",
			a:      corner{P: pt(50.6, 219.3), U: pt(-1, 0.028), V: pt(-0.030, -1)},
			b:      corner{P: pt(-13.4, 129.0), U: pt(1, 0.025), V: pt(-0.025, 1), Guessed: true},
			ok:     true,
			centre: pt(18.23, 176.46),
			v:      pt(-0.034, -0.999),
		},
		{
			name: "two corners turned alike",
			a:    corner{P: pt(-31.5, -44), U: pt(1, 0), V: pt(0, 1)},
			b:    corner{P: pt(31.5, 44), U: pt(1, 0), V: pt(0, 1)},
		},
		{
			name: "the corners of two cards",
			a:    corner{P: pt(-31.5, -44), U: pt(1, 0), V: pt(0, 1)},
			b:    corner{P: pt(51.5, 44), U: pt(-1, 0), V: pt(0, -1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := oppositeCorners(tt.a, tt.b)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if d := Dist(s.centre, tt.centre); d > 1 {
				t.Errorf("centre %v, %.2f mm from %v", s.centre, d, tt.centre)
			}
			if a := math.Acos(min(dot(s.v.Unit(), tt.v.Unit()), 1)) * 180 / math.Pi; a > 1 {
				t.Errorf("long edge along %v, %.1f° from %v", s.v, a, tt.v)
			}
		})
	}
}

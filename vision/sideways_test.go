package vision

import (
	"testing"

	"bjmonitor/calibration"
)

// TestMarkSideways checks which cards are taken for doubles, lying across
// the cards around them.
func TestMarkSideways(t *testing.T) {
	type card struct {
		x, y, angle float64
		sideways    bool
	}
	tests := []struct {
		name  string
		cards []card
	}{
		{"a double across its hand", []card{
			{0, 400, 90, false}, {12, 390, 92, false}, {30, 370, 180, true},
		}},
		{"two cards alone are no double", []card{
			{0, 400, 90, false}, {30, 370, 180, false},
		}},
		{"a split pair, one hand doubled", []card{
			{-40, 400, 90, false}, {-30, 385, 90, false},
			{40, 400, 88, false}, {50, 385, 91, false}, {65, 365, 0, true},
		}},
		// Dondorf seed 2207 round 1027 (frame 12328 on): seat 4's 4H, 7H
		// and sideways 7C, and seat 5's sideways double 9D, its centre 148
		// mm from the 7H. Counted alike, two cards lay upright round the
		// 7H and two sideways, and the tie made the 4H and 7H doubles too.
		{"the next seat's double", []card{
			{-0.8, 406.4, -88, false}, {12.2, 393.7, 87, false}, {34.6, 367.5, 180, true},
			{-176, 393, 95, false}, {-157.8, 381, 93, false}, {-132.8, 358.2, -167, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := make([]Observation, len(tt.cards))
			for i, c := range tt.cards {
				obs[i] = Observation{Center: calibration.Point{X: c.x, Y: c.y}, Angle: c.angle}
			}
			markSideways(obs)
			for i, c := range tt.cards {
				if obs[i].Sideways != c.sideways {
					t.Errorf("card at (%.1f, %.1f), %.0f°: sideways %v, want %v", c.x, c.y, c.angle, obs[i].Sideways, c.sideways)
				}
			}
		})
	}
}

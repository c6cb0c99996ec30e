package vision

import (
	"image"
	"math"
	"testing"
)

func TestFindCorners(t *testing.T) {
	// A fan of two 60×80 cards, the second 14 right and 17 up, traced
	// clockwise on the screen (y down), with a chamfer at one corner.
	fan := []image.Point{
		{0, 17}, {14, 17}, {14, 0}, {74, 0}, {74, 80}, {60, 80}, {60, 97}, {3, 97}, {0, 94},
	}
	got := findCorners(fan, 10, 6, 20)
	want := []point2{{0, 17}, {14, 0}, {74, 0}, {74, 80}, {60, 97}, {0, 97}}
	for _, w := range want {
		found := false
		for _, c := range got {
			if c.P.sub(w).len() < 0.5 {
				found = true
				if cross(c.U, c.V) <= 0 {
					t.Errorf("corner %v: U %v, V %v not right-handed", w, c.U, c.V)
				}
			}
		}
		if !found {
			t.Errorf("corner %v not found in %+v", w, got)
		}
	}
	// The inner corner of the staircase is concave.
	for _, c := range got {
		if c.P.sub(point2{14, 17}).len() < 1 || c.P.sub(point2{60, 80}).len() < 1 {
			t.Errorf("concave corner %v reported", c.P)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d corners, want %d: %+v", len(got), len(want), got)
	}
	// The top-left corner of the top card: U along the top edge (right),
	// V down.
	for _, c := range got {
		if c.P.sub(point2{14, 0}).len() < 0.5 && (math.Abs(c.U.X-1) > 1e-6 || math.Abs(c.V.Y-1) > 1e-6) {
			t.Errorf("top-left corner axes U %v V %v, want (1,0) and (0,1)", c.U, c.V)
		}
	}
	// Counter-clockwise input gives the same corners.
	rev := make([]image.Point, len(fan))
	for i, p := range fan {
		rev[len(fan)-1-i] = p
	}
	if n := len(findCorners(rev, 10, 6, 20)); n != len(want) {
		t.Errorf("reversed outline: %d corners, want %d", n, len(want))
	}
	if findCorners(fan[:2], 10, 6, 20) != nil {
		t.Error("corners of a line")
	}
}

func TestAlongBorder(t *testing.T) {
	const w, h, r = 200, 100, 2.0
	tests := []struct {
		name string
		c    corner
		want bool
	}{
		{"a card's own corner", corner{P: point2{50, 40}, U: point2{1, 0}, V: point2{0, 1}}, false},
		{"cut by the left border", corner{P: point2{0, 40}, U: point2{0.92, -0.39}, V: point2{0, 1}}, true},
		{"cut by the bottom border", corner{P: point2{120, 99}, U: point2{-1, 0}, V: point2{0.3, -0.95}}, true},
		{"a turned card touching the border", corner{P: point2{0.5, 40}, U: point2{0.92, -0.39}, V: point2{0.39, 0.92}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := alongBorder(tt.c, w, h, r); got != tt.want {
				t.Errorf("alongBorder(%+v) = %v, want %v", tt.c, got, tt.want)
			}
		})
	}
}

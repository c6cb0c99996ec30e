package vision

import (
	"math"
	"testing"
)

// TestFrameWidth draws a card's corner at (60, 60) px, 4 px a mm, its
// paper running right and down, and around it the cloth, or a band
// between the two: a frame printed along both edges is found at its
// width; none, a band along one edge only (a shadow that is not cloth,
// or another card's edge), and one too wide to be a frame (the card
// lies on something dark) are no frame.
func TestFrameWidth(t *testing.T) {
	const r, size = 4.0, 200
	draw := func(top, left float64) (paper, cloth greyPicture) {
		p, c := make([]uint8, size*size), make([]uint8, size*size)
		for y := range size {
			for x := range size {
				fx, fy := float64(x)+0.5, float64(y)+0.5
				switch {
				case fx >= 60 && fy >= 60:
					p[y*size+x] = 255
				case fx >= 60-left*r && fy >= 60-top*r:
					// the band: neither paper nor cloth
				default:
					c[y*size+x] = 255
				}
			}
		}
		return greyPicture{px: p, step: size, cols: size, rows: size}, greyPicture{px: c, step: size, cols: size, rows: size}
	}
	c := corner{P: pt(60, 60), U: pt(1, 0), V: pt(0, 1)}
	for _, tc := range []struct {
		name      string
		top, left float64 // the band's width along the top and the left edge, mm
		want      float64
	}{
		{"frame 1.2 mm", 1.2, 1.2, 1.25},
		{"frame 2 mm", 2, 2, 2},
		{"no frame", 0, 0, 0},
		{"drawn edge line", 0.3, 0.3, 0},
		{"a band along one edge", 1.2, 0, 0},
		{"a band too wide", 4, 4, 0},
	} {
		paper, cloth := draw(tc.top, tc.left)
		if got := frameWidth(paper, cloth, c, r); math.Abs(got-tc.want) > 0.26 {
			t.Errorf("%s: frameWidth = %.2f mm, want %.2f", tc.name, got, tc.want)
		}
	}
}

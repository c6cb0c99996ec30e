package vision

import (
	"math"
	"testing"

	"bjmonitor/calibration"
)

// TestAlongPictureEdge checks which corners lie on the picture's edge: a
// card the picture cuts off, its outline closed by the edge, shows a
// corner there that is none of its own. proc:5u seed 1049 (2.23 px/mm,
// 25° oblique): the 2H cut by the picture's left edge was read at such a
// corner, 5 px in, turned 15° from the card, and placed 29 px off, a
// confident reading where no such card lies.
func TestAlongPictureEdge(t *testing.T) {
	const w, h, r = 1920, 1080, 2.0
	// The picture taken as the plane, and a view tilted about the
	// vertical, in which the picture's left and right edges run aslant
	// on the table.
	flat := &Plane{w: w, h: h, nz: normaliser{cx: w / 2, cy: h / 2, s: w / 2}, hr: identity3(), j: 1}
	tilted := *flat
	tilted.hr = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0.4, 0, 1}}
	for _, tc := range []struct {
		name  string
		plane *Plane
		x, y  float64 // the corner in the picture
		turn  float64 // its edges' turn from the picture's edge, degrees
		want  bool
	}{
		{"on the left edge", flat, 4, 500, 0, true},
		{"on the left edge, turned 3°", flat, 4, 500, 3, true},
		{"near the left edge, its edges aslant", flat, 4, 500, 20, false},
		{"10 mm in from the left edge", flat, 20, 500, 0, false},
		{"5 mm in from the left edge", flat, 10, 500, 0, false},
		{"on the right edge", flat, w - 3, 500, 0, true},
		{"on the top edge", flat, 900, 2, 0, true},
		{"on the bottom edge", flat, 900, h - 5, 0, true},
		{"in the middle", flat, 900, 500, 0, false},
		{"on the left edge of a tilted view", &tilted, 5, 300, 0, true},
		{"on the right edge of a tilted view", &tilted, w - 5, 800, 0, true},
		{"near the left edge of a tilted view, its edges square to the table", &tilted, 5, 300, 15, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cal, err := tc.plane.Calibration(r)
			if err != nil {
				t.Fatal(err)
			}
			d := &Detector{cal: cal, width: w, height: h}
			// The picture's edge through the corner, on the table: along
			// its nearer side.
			p := cal.ToTable(tc.x, tc.y)
			var q calibration.Point
			if math.Min(tc.x, w-tc.x) < math.Min(tc.y, h-tc.y) {
				q = cal.ToTable(tc.x, tc.y+20)
			} else {
				q = cal.ToTable(tc.x+20, tc.y)
			}
			along := q.Sub(p).Unit()
			s, c := math.Sincos(tc.turn * math.Pi / 180)
			u := pt(along.X*c-along.Y*s, along.X*s+along.Y*c)
			for _, k := range []corner{{P: p, U: u, V: pt(-u.Y, u.X)}, {P: p, U: pt(u.Y, -u.X), V: u}} {
				if got := d.alongPictureEdge(k); got != tc.want {
					t.Errorf("alongPictureEdge(U %.2f, V %.2f) = %v, want %v", k.U, k.V, got, tc.want)
				}
			}
		})
	}
}

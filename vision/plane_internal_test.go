package vision

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRightAnglesRectify: corners (two perpendicular lines each) drawn on
// a plane seen through a known perspective are rectified so that every
// corner is a right angle again, and lengths keep their ratios: the
// fitted plane is the true one up to a turn and a scale.
func TestRightAnglesRectify(t *testing.T) {
	// A table mm → normalised picture homography, some 25° oblique.
	view := [3][3]float64{{0.0021, 0.0002, -0.9}, {-0.0001, 0.0017, -0.5}, {0.00002, 0.00035, 1}}
	toPic := func(x, y float64) [2]float64 { return apply3(view, [2]float64{x, y}) }
	line := func(a, b [2]float64) [3]float64 {
		l := [3]float64{a[1] - b[1], b[0] - a[0], a[0]*b[1] - a[1]*b[0]}
		n := math.Hypot(l[0], l[1])
		return [3]float64{l[0] / n, l[1] / n, l[2] / n}
	}
	r := rand.New(rand.NewPCG(1, 2))
	var pairs []linePair
	for range 20 {
		x, y, th := 100+600*r.Float64(), 100+400*r.Float64(), r.Float64()*math.Pi
		u := [2]float64{math.Cos(th), math.Sin(th)}
		o := toPic(x, y)
		a, b := toPic(x+63*u[0], y+63*u[1]), toPic(x-88*u[1], y+88*u[0])
		pairs = append(pairs, linePair{l: line(o, a), m: line(o, b), le: [2][2]float64{o, a}, me: [2][2]float64{o, b}})
	}
	// Two corners that are no right angles (a chip's edge, printing).
	pairs = append(pairs, linePair{l: line(toPic(0, 0), toPic(50, 0)), m: line(toPic(0, 0), toPic(40, 30))})
	c, n, ok := fitRightAngles(pairs)
	if !ok || n != 20 {
		t.Fatalf("fit: ok %v, %d corners agree; want 20", ok, n)
	}
	h, ok := rectifier(c)
	if !ok {
		t.Fatal("no rectifier")
	}
	h = upright(h)
	// Lengths on the table (63 and 88 at each corner) keep their ratio.
	length := func(e [2][2]float64) float64 {
		a, b := apply3(h, e[0]), apply3(h, e[1])
		return math.Hypot(b[0]-a[0], b[1]-a[1])
	}
	for i, p := range pairs[:20] {
		if got := length(p.me) / length(p.le); math.Abs(got-88.0/63) > 0.01 {
			t.Errorf("corner %d: edges as %.3f to 1, want %.3f", i, got, 88.0/63)
		}
	}
	if len(agreeingWith(h, pairs)) != 20 {
		t.Errorf("%d corners are right angles after rectifying, want 20", len(agreeingWith(h, pairs)))
	}
	if jacobianDet(h, [2]float64{0, 0}) <= 0 {
		t.Error("the rectified plane is mirrored")
	}
}

func TestClusters(t *testing.T) {
	got := clusters([]float64{0.50, 0.51, 0.52, 0.9, 0.91, 0.1}, 0.04)
	if len(got) != 3 || math.Abs(got[0]-0.51) > 1e-9 || math.Abs(got[1]-0.905) > 1e-9 || got[2] != 0.1 {
		t.Errorf("clusters = %v, want [0.51 0.905 0.1]", got)
	}
}

package vision

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"gocv.io/x/gocv"
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

// TestRefinePlaneStretch: on a dealt table most cards lie turned alike,
// and right angles alone leave the plane free to stretch along their
// edges; fitted to edges a few tenths of a degree off, as a picture's
// are, the stretch goes astray. The corners of cards lying whole pin it:
// after refinePlane every card has a card's proportions and one size.
func TestRefinePlaneStretch(t *testing.T) {
	view := [3][3]float64{{0.0021, 0.0002, -0.9}, {-0.0001, 0.0017, -0.5}, {0.00002, 0.00035, 1}}
	toPic := func(p [2]float64) [2]float64 { return apply3(view, p) }
	r := rand.New(rand.NewPCG(3, 4))
	line := noisyLines(r)
	var pairs []linePair
	var cardsMM [][4][2]float64
	for i := range 12 {
		x, y := 100+float64(i%4)*160, 100+float64(i/4)*140
		th := (r.Float64() - 0.5) * 6 * math.Pi / 180 // turned alike, within ±3°
		u, v := [2]float64{math.Cos(th), math.Sin(th)}, [2]float64{-math.Sin(th), math.Cos(th)}
		at := func(s, t float64) [2]float64 { return [2]float64{x + s*u[0] + t*v[0], y + s*u[1] + t*v[1]} }
		k := [4][2]float64{at(0, 0), at(cardW, 0), at(cardW, cardH), at(0, cardH)}
		cardsMM = append(cardsMM, k)
		// The outline's polygon cuts each rounded corner: its edges
		// stop edgeLossMM/2 short of the corners.
		var edges [4][2][2]float64
		var lines [4][3]float64
		for j := range 4 {
			a, b := k[j], k[(j+1)%4]
			d := math.Hypot(b[0]-a[0], b[1]-a[1])
			f := edgeLossMM / 2 / d
			a2 := [2]float64{a[0] + f*(b[0]-a[0]), a[1] + f*(b[1]-a[1])}
			b2 := [2]float64{b[0] - f*(b[0]-a[0]), b[1] - f*(b[1]-a[1])}
			edges[j] = [2][2]float64{toPic(a2), toPic(b2)}
			lines[j] = line(toPic(a), toPic(b))
		}
		for j := range 4 {
			p := (j + 3) % 4
			pairs = append(pairs, linePair{l: lines[p], m: lines[j], le: edges[p], me: edges[j], paper: true})
		}
	}
	h := refinedPlane(t, pairs)
	var sizes []float64
	for i, k := range cardsMM {
		w, l := cardSides(h, toPic, k)
		if got := l / w; math.Abs(got/(cardH/cardW)-1) > 0.015 {
			t.Errorf("card %d: %.3f long to 1 wide, want %.3f", i, got, cardH/cardW)
		}
		sizes = append(sizes, math.Sqrt(w*l))
	}
	for i, s := range sizes {
		if math.Abs(s/sizes[0]-1) > 0.02 {
			t.Errorf("card %d is %.3f times card 0's size, want 1", i, s/sizes[0])
		}
	}
}

// TestRefinePlaneOneHand: the corners of one hand, cards turned alike in
// a small part of the picture, leave the plane's stretch to the noise in
// their edges; with no card lying whole, refinePlane holds it near the
// picture's own proportions.
func TestRefinePlaneOneHand(t *testing.T) {
	// Some 15° oblique.
	view := [3][3]float64{{0.0020, 0.0001, -0.3}, {0, 0.0019, -0.2}, {0, 0.00015, 1}}
	toPic := func(p [2]float64) [2]float64 { return apply3(view, p) }
	line := noisyLines(rand.New(rand.NewPCG(19, 6)))
	pairs, hand := fannedHand(3, toPic, line)
	h := refinedPlane(t, pairs)
	for i, k := range hand {
		w, l := cardSides(h, toPic, k)
		if got := l / w; math.Abs(got/(cardH/cardW)-1) > 0.1 {
			t.Errorf("card %d: %.3f long to 1 wide, want %.3f within 10%%", i, got, cardH/cardW)
		}
	}
}

// TestRefinePlaneTopCard: where no card lies whole, the top card of a
// hand fanned over another still shows two of its edges whole, from one
// corner of the outline to the next, and so does the card beneath; they
// pin the plane's stretch as a whole card's do. proc:4u seed 1049 (25°
// oblique, two hands of two, the dealer's cards cut by the picture's
// edge): the plane held to the picture's proportions showed its cards
// 68 × 84 mm at one scale and 56 × 76 at another, and the still was
// read 13% under its scale.
func TestRefinePlaneTopCard(t *testing.T) {
	// Some 25° oblique.
	view := [3][3]float64{{0.0021, 0.0001, -0.9}, {0, 0.0018, -0.5}, {0, 0.0005, 1}}
	toPic := func(p [2]float64) [2]float64 { return apply3(view, p) }
	line := noisyLines(rand.New(rand.NewPCG(7, 25)))
	var pairs []linePair
	var cardsMM [][4][2]float64
	for _, hand := range []struct{ x, y, turn float64 }{{150, 300, 12}, {500, 250, -5}} {
		// Card a, and b over it, 15 mm right and 12 mm up of it, turned
		// about a's top left: their outline, clockwise on the picture
		// (y down), from b's top left.
		s, c := math.Sincos(hand.turn * math.Pi / 180)
		at := func(dx, dy float64) [2]float64 { return [2]float64{hand.x + c*dx - s*dy, hand.y + s*dx + c*dy} }
		cardsMM = append(cardsMM,
			[4][2]float64{at(0, 0), at(cardW, 0), at(cardW, cardH), at(0, cardH)},
			[4][2]float64{at(15, -12), at(15+cardW, -12), at(15+cardW, cardH-12), at(15, cardH-12)})
		poly := [][2]float64{
			at(15, -12), at(15+cardW, -12), at(15+cardW, cardH-12), // b's top left, top right, bottom right
			at(cardW, cardH-12),                      // where b's bottom edge meets a's right edge (concave)
			at(cardW, cardH), at(0, cardH), at(0, 0), // a's bottom right, bottom left, top left
			at(15, 0), // where a's top edge meets b's left edge (concave)
		}
		pairs = append(pairs, outlinePairs(poly, toPic, line)...)
	}
	if n := len(edgeCorners(pairs)); n != 4 {
		t.Errorf("%d corners with both edges whole, want 4 (each top card's top right, each bottom card's bottom left)", n)
	}
	h := refinedPlane(t, pairs)
	for i, k := range cardsMM {
		w, l := cardSides(h, toPic, k)
		if got := l / w; math.Abs(got/(cardH/cardW)-1) > 0.02 {
			t.Errorf("card %d: %.3f long to 1 wide, want %.3f", i, got, cardH/cardW)
		}
	}
}

// outlinePairs returns the corners of the outline poly (mm, clockwise
// on the picture) seen through toPic, as stillCorners finds them: at
// each convex vertex, the edges arriving and leaving, their ends cut
// edgeLossMM/2 short of each convex vertex by its rounding.
func outlinePairs(poly [][2]float64, toPic func([2]float64) [2]float64, line func(a, b [2]float64) [3]float64) []linePair {
	n := len(poly)
	convex := func(i int) bool {
		a, b, c := poly[(i+n-1)%n], poly[i], poly[(i+1)%n]
		return (b[0]-a[0])*(c[1]-b[1])-(b[1]-a[1])*(c[0]-b[0]) > 0
	}
	type edge struct {
		line [3]float64
		ends [2][2]float64
	}
	edges := make([]edge, n) // edges[i] runs from poly[i] to poly[i+1]
	for i := range n {
		a, b := poly[i], poly[(i+1)%n]
		d := math.Hypot(b[0]-a[0], b[1]-a[1])
		f := edgeLossMM / 2 / d
		a2, b2 := a, b
		if convex(i) {
			a2 = [2]float64{a[0] + f*(b[0]-a[0]), a[1] + f*(b[1]-a[1])}
		}
		if convex((i + 1) % n) {
			b2 = [2]float64{b[0] - f*(b[0]-a[0]), b[1] - f*(b[1]-a[1])}
		}
		edges[i] = edge{line(toPic(a), toPic(b)), [2][2]float64{toPic(a2), toPic(b2)}}
	}
	var out []linePair
	for i := range n {
		if convex(i) {
			in, on := edges[(i+n-1)%n], edges[i]
			out = append(out, linePair{l: in.line, m: on.line, le: in.ends, me: on.ends, paper: true})
		}
	}
	return out
}

// noisyLines returns the line through two points turned by up to ±0.4°
// about its middle, as the edges fitted in a picture are.
func noisyLines(r *rand.Rand) func(a, b [2]float64) [3]float64 {
	return func(a, b [2]float64) [3]float64 {
		m := [2]float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2}
		th := math.Atan2(b[1]-a[1], b[0]-a[0]) + (r.Float64()-0.5)*0.8*math.Pi/180
		n := [2]float64{-math.Sin(th), math.Cos(th)}
		return [3]float64{n[0], n[1], -(n[0]*m[0] + n[1]*m[1])}
	}
}

// fannedHand returns the corners of a hand of n cards fanned, each 15 mm
// right and 12 mm up of the last, seen through toPic with edges fitted
// by line, as stillCorners finds them (every corner of every card), and
// the cards' corners on the table, clockwise from the top left.
func fannedHand(n int, toPic func([2]float64) [2]float64, line func(a, b [2]float64) [3]float64) ([]linePair, [][4][2]float64) {
	var pairs []linePair
	var hand [][4][2]float64
	for i := range n {
		x, y := 100+15*float64(i), 100-12*float64(i)
		k := [4][2]float64{{x, y}, {x + cardW, y}, {x + cardW, y + cardH}, {x, y + cardH}}
		hand = append(hand, k)
		for j := range 4 {
			o, a, b := k[j], k[(j+1)%4], k[(j+3)%4]
			pairs = append(pairs, linePair{l: line(toPic(o), toPic(a)), m: line(toPic(o), toPic(b)), le: [2][2]float64{toPic(o), toPic(a)}, me: [2][2]float64{toPic(o), toPic(b)}})
		}
	}
	return pairs, hand
}

// refinedPlane is the plane of pairs as FindPlane rectifies it, refined
// with diags too.
func refinedPlane(t *testing.T, pairs []linePair, diags ...cardDiagonal) [3][3]float64 {
	t.Helper()
	c, _, ok := fitRightAngles(pairs)
	if !ok {
		t.Fatal("no fit")
	}
	h, ok := rectifier(c)
	if !ok {
		t.Fatal("no rectifier")
	}
	return refinePlane(h, pairs, diags...)
}

// cardSides returns the mean width and length on plane h of the card
// whose corners on the table are k, seen through toPic.
func cardSides(h [3][3]float64, toPic func([2]float64) [2]float64, k [4][2]float64) (w, l float64) {
	var q [4][2]float64
	for j := range 4 {
		q[j] = apply3(h, toPic(k[j]))
	}
	side := func(j int) float64 { return math.Hypot(q[(j+1)%4][0]-q[j][0], q[(j+1)%4][1]-q[j][1]) }
	return (side(0) + side(2)) / 2, (side(1) + side(3)) / 2
}

// TestNelderMead minimises a bowl and Rosenbrock's valley.
func TestNelderMead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     func([]float64) float64
		x0    []float64
		want  []float64
		iters int
	}{
		{"bowl", func(x []float64) float64 { return (x[0]-1)*(x[0]-1) + 4*(x[1]+2)*(x[1]+2) + (x[2]-0.5)*(x[2]-0.5) }, []float64{0, 0, 0}, []float64{1, -2, 0.5}, 400},
		{"rosenbrock", func(x []float64) float64 { return 100*(x[1]-x[0]*x[0])*(x[1]-x[0]*x[0]) + (1-x[0])*(1-x[0]) }, []float64{-1.2, 1}, []float64{1, 1}, 2000},
	} {
		got := nelderMead(tc.f, tc.x0, 0.1, tc.iters)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-3 {
				t.Errorf("%s: minimum at %.4f, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

// TestRefinePlaneDiagonals: the corners of one hand leave the plane's
// stretch to the noise in their edges, and a 26° oblique picture's own
// proportions hold it loosely; a card read at its two opposite index
// corners (cardDiagonal: its diagonal makes diagonalDeg with its short
// edge) holds its proportions as a whole card's edges do. proc:2 still
// 5027 (2.48 px/mm, four cards, none whole) was read at 3.20 px/mm on a
// plane that still showed every card's two index corners 12 mm or more
// apart, and its A♥ as a 9♥, surely.
func TestRefinePlaneDiagonals(t *testing.T) {
	// Some 26° oblique.
	view := [3][3]float64{{0.0021, 0.0002, -0.5}, {0, 0.0017, -0.4}, {0, 0.0006, 1}}
	toPic := func(p [2]float64) [2]float64 { return apply3(view, p) }
	line := noisyLines(rand.New(rand.NewPCG(5, 27)))
	pairs, hand := fannedHand(2, toPic, line)
	var diags []cardDiagonal
	for _, k := range hand { // read at its top left and bottom right
		diags = append(diags, cardDiagonal{a: toPic(k[0]), as: toPic(k[1]), b: toPic(k[2]), bs: toPic(k[3])})
	}
	// off is how far from a card's proportions plane h shows the hand's
	// cards, at most.
	off := func(h [3][3]float64) float64 {
		worst := 0.0
		for _, k := range hand {
			w, l := cardSides(h, toPic, k)
			worst = max(worst, math.Abs(l/w/(cardH/cardW)-1))
		}
		return worst
	}
	if got := off(refinedPlane(t, pairs)); got < 0.05 {
		t.Errorf("without diagonals the cards are %.1f%% off a card's proportions: the scene does not need them", 100*got)
	}
	if got := off(refinedPlane(t, pairs, diags...)); got > 0.02 {
		t.Errorf("with diagonals the cards are %.1f%% off a card's proportions, want 2%% at most", 100*got)
	}
}

// TestStillCornersRounded draws a hand of three cards fanned on felt,
// straight down at 2.3 px/mm, with corners rounded from 3 to 6 mm: a
// card's corners rounded widely leave a fan's cards showing short
// straight edges beside long roundings. Taking wide roundings for
// corners, stillCorners must find as many as where the cards are
// rounded 3 mm (taking only short ones, it found four of the eight a
// 3 mm hand shows, and two of a 6 mm hand's).
func TestStillCornersRounded(t *testing.T) {
	const px = 2.3
	count := func(radius float64) int {
		img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(40, 110, 30, 0), 700, 900, gocv.MatTypeCV8UC3)
		defer img.Close()
		turn := 20 * math.Pi / 180
		for i := range 3 {
			x, y := 120+22*float64(i), 90+26*float64(i)
			var pts []image.Point
			for j, c := range [4][2]float64{{cardW - radius, radius}, {cardW - radius, cardH - radius}, {radius, cardH - radius}, {radius, radius}} {
				for a := -90 + 90*j; a <= 90*j; a += 5 {
					u := float64(a) * math.Pi / 180
					cx, cy := c[0]+radius*math.Cos(u), c[1]+radius*math.Sin(u)
					gx := x + cx*math.Cos(turn) - cy*math.Sin(turn)
					gy := y + cx*math.Sin(turn) + cy*math.Cos(turn)
					pts = append(pts, image.Pt(int(math.Round(gx*px)), int(math.Round(gy*px))))
				}
			}
			pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
			gocv.FillPoly(&img, pv, color.RGBA{250, 250, 250, 0})
			gocv.Polylines(&img, pv, true, color.RGBA{120, 120, 120, 0}, 1)
			pv.Close()
		}
		gocv.GaussianBlur(img, &img, image.Pt(3, 3), 0, 0, gocv.BorderDefault)
		nz := normaliser{cx: 450, cy: 350, s: 450}
		return len(stillCorners(img, nz, true))
	}
	want := count(3)
	if want < 6 {
		t.Fatalf("%d corners of a hand rounded 3 mm, want 6 or more", want)
	}
	for _, r := range []float64{4.5, 6} {
		if got := count(r); got < want {
			t.Errorf("%d corners of a hand rounded %.1f mm, want %d as rounded 3 mm", got, r, want)
		}
	}
}

package vision

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/vision/classify"
)

func TestFindCorners(t *testing.T) {
	// A fan of two 60×80 cards, the second 14 right and 17 up, traced
	// clockwise on the screen (y down), with a chamfer at one corner.
	fan := []image.Point{
		{0, 17}, {14, 17}, {14, 0}, {74, 0}, {74, 80}, {60, 80}, {60, 97}, {3, 97}, {0, 94},
	}
	got := findCorners(fan, 10, 6, 20)
	want := []calibration.Point{pt(0, 17), pt(14, 0), pt(74, 0), pt(74, 80), pt(60, 97), pt(0, 97)}
	for _, w := range want {
		found := false
		for _, c := range got {
			if c.P.Sub(w).Len() < 0.5 {
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
		if c.P.Sub(pt(14, 17)).Len() < 1 || c.P.Sub(pt(60, 80)).Len() < 1 {
			t.Errorf("concave corner %v reported", c.P)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d corners, want %d: %+v", len(got), len(want), got)
	}
	// The top-left corner of the top card: U along the top edge (right),
	// V down.
	for _, c := range got {
		if c.P.Sub(pt(14, 0)).Len() < 0.5 && (math.Abs(c.U.X-1) > 1e-6 || math.Abs(c.V.Y-1) > 1e-6) {
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
		{"a card's own corner", corner{P: pt(50, 40), U: pt(1, 0), V: pt(0, 1)}, false},
		{"cut by the left border", corner{P: pt(0, 40), U: pt(0.92, -0.39), V: pt(0, 1)}, true},
		{"cut by the bottom border", corner{P: pt(120, 99), U: pt(-1, 0), V: pt(0.3, -0.95)}, true},
		{"a turned card touching the border", corner{P: pt(0.5, 40), U: pt(0.92, -0.39), V: pt(0.39, 0.92)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := alongBorder(tt.c, w, h, r); got != tt.want {
				t.Errorf("alongBorder(%+v) = %v, want %v", tt.c, got, tt.want)
			}
		})
	}
}

// TestNotchedCorners draws a hand of two cards, the top one with an index
// printed at the very edge in each corner (dondorf's), which notches the
// paper's outline, as the zone's paper mask shows it, and outlines it the
// way prepareZone does. The top card's corners are found, where
// findCorners alone misses them, and nothing is found that is not a
// card's corner.
func TestNotchedCorners(t *testing.T) {
	const r = 2.5 // px a mm
	mask := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), 600, 600, gocv.MatTypeCV8U)
	defer mask.Close()
	card := func(cx, cy, deg float64) [4]calibration.Point { return cardCorners(cx, cy, deg, r) }
	fill := func(ps []calibration.Point, white bool) { fillMask(&mask, ps, white) }
	under, top := card(100, 140, 20), card(140, 95, 20)
	fill(under[:], true)
	fill(top[:], true)
	// An index touching the edge near each of the top card's corners: ink
	// from 3 to 9 mm along each edge, 1.5 mm deep.
	for i, p := range top {
		a, b := top[(i+1)%4].Sub(p).Unit(), top[(i+3)%4].Sub(p).Unit()
		for _, e := range [2][2]calibration.Point{{a, b}, {b, a}} {
			along, in := e[0], e[1]
			q := p.Add(along.Scale(3 * r)).Sub(in.Scale(r)) // from just outside the card
			fill([]calibration.Point{q, q.Add(along.Scale(6 * r)), q.Add(along.Scale(6 * r)).Add(in.Scale(2.5 * r)), q.Add(in.Scale(2.5 * r))}, false)
		}
	}
	_, found := handOutline(t, mask, r)
	var truth []calibration.Point
	truth = append(truth, under[:]...)
	truth = append(truth, top[:]...)
	for _, c := range found {
		ok := false
		for _, p := range truth {
			ok = ok || c.P.Sub(p).Len() < 2*r
		}
		if !ok {
			t.Errorf("corner at %.0f,%.0f is no card's", c.P.X, c.P.Y)
		}
	}
	for i, p := range top {
		inside := true
		for k := range under {
			inside = inside && cross(under[(k+1)%4].Sub(under[k]), p.Sub(under[k])) > 0
		}
		if inside {
			continue // over the under card: a junction, not the outline's corner
		}
		ok := false
		for _, c := range found {
			ok = ok || c.P.Sub(p).Len() < 2*r
		}
		if !ok {
			t.Errorf("the top card's corner %d at %.0f,%.0f not found (found %d corners)", i, p.X, p.Y, len(found))
		}
	}
}

// TestSkewedCornerSquared checks a corner whose second edge is the
// slanted side of a notch an index cuts at the card's edge (dondorf's
// K♥ lying sideways, seed 2204 round 1022): the corner is squared to the
// clean edge, and moved back to where the card's edge runs past the notch.
func TestSkewedCornerSquared(t *testing.T) {
	const r = 2.0 // px a mm
	// A card 63×88 mm from (10,10) mm, traced clockwise on the screen: its
	// left edge runs straight up to 12 mm below the top, where the notch
	// slants in by 3 mm to meet the top edge (14° off the edge).
	poly := []image.Point{{20, 20 + 24}, {26, 20}, {146, 20}, {146, 196}, {20, 196}}
	got := cornerNear(t, poly, r, pt(20, 20), 8)
	if got.P.Sub(pt(20, 20)).Len() > 0.5 {
		t.Errorf("corner at %.1f, want 20,20: the card's edge past the notch", got.P)
	}
	if got.U.Sub(pt(1, 0)).Len() > 1e-9 || got.V.Sub(pt(0, 1)).Len() > 1e-9 {
		t.Errorf("U %v V %v, want (1,0) and (0,1): square to the top edge", got.U, got.V)
	}
	// A corner off square by less than skewed keeps its edges as they are.
	poly = []image.Point{{20, 20 + 40}, {24, 20}, {146, 20}, {146, 196}, {20, 196}}
	kept := false
	for _, c := range findCorners(poly, 7*r, 14*r, 25) {
		if c.P.Sub(pt(24, 20)).Len() < 0.5 {
			kept = math.Abs(math.Abs(dot(c.U, c.V))-math.Sin(math.Atan2(4, 40))) < 1e-9
		}
	}
	if !kept {
		t.Errorf("the corner 6° off square was not kept as found: %+v", findCorners(poly, 7*r, 14*r, 25))
	}
}

// TestBentEdge: where a card's edge reaches its rounded corner, the
// outline's polygon may keep a vertex, so that the edge's last 8 mm turn
// by 7° (penguins' 10♣ at 1.5 px/mm, KDE acceptance clip seed 3002 round
// 1005: the card was lost). The corner found there takes the edge's
// direction, not that of its last few millimetres.
func TestBentEdge(t *testing.T) {
	const r = 2.0 // px a mm
	// A card 63×88 mm from (10,10) mm, traced clockwise on the screen.
	poly := []image.Point{{20, 20}, {144, 20}, {146, 36}, {146, 196}, {20, 196}}
	got := cornerNear(t, poly, r, pt(145, 20), 4)
	// The right edge runs down (0,1) from the corner, within a degree.
	side := got.U
	if math.Abs(side.Y) < math.Abs(side.X) {
		side = got.V
	}
	if side.Y < 0.99985 {
		t.Errorf("the right edge leaves the corner along %v, want (0,1) within 1°", side)
	}
}

// cornerNear returns the corner findCorners finds on poly (r pixels a
// mm, as prepareZone calls it) within lim pixels of p, and fails the test
// where there is none.
func cornerNear(t *testing.T, poly []image.Point, r float64, p calibration.Point, lim float64) corner {
	t.Helper()
	found := findCorners(poly, 7*r, 14*r, 25)
	for _, c := range found {
		if c.P.Sub(p).Len() < lim {
			return c
		}
	}
	t.Fatalf("no corner found near %v in %+v", p, found)
	return corner{}
}

// TestBackPartner checks which corners could take part in a back: only
// those another corner agrees with on where the back's centre is.
func TestBackPartner(t *testing.T) {
	// A back lying square, 63 wide and 88 tall, from (0, 0): its four
	// corners, each with U and V along its edges, right-handed.
	tl := corner{P: pt(0, 0), U: pt(1, 0), V: pt(0, 1)}
	tr := corner{P: pt(63, 0), U: pt(0, 1), V: pt(-1, 0)}
	br := corner{P: pt(63, 88), U: pt(-1, 0), V: pt(0, -1)}
	far := corner{P: pt(400, 0), U: pt(1, 0), V: pt(0, 1)}
	tests := []struct {
		name string
		cs   []corner
		want bool // for the first corner
	}{
		{"alone", []corner{tl}, false},
		{"with its card's corner along the short edge", []corner{tl, tr}, true},
		{"with its card's far corner", []corner{tl, br}, true},
		{"with a corner far away", []corner{tl, far}, false},
		{"with a corner 10 mm off", []corner{tl, {P: pt(73, 0), U: pt(0, 1), V: pt(-1, 0)}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := backPartner(tc.cs, 0); got != tc.want {
				t.Errorf("backPartner = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCompletedCorners lays a card over another as neoclassical's 9♦ lay
// over a J♠ (seed 2213 round 1035): the top card's index corner lies on
// the felt, and its index, printed close to the left edge, eats the white
// margin along the 14 mm of that edge the felt shows. The outline there
// breaks into pieces too short for findCorners and notchedCorners; the
// card's clean top edge, 63 mm from its other corner, places it.
func TestCompletedCorners(t *testing.T) {
	const r = 2.0 // px a mm
	mask := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), 400, 400, gocv.MatTypeCV8U)
	defer mask.Close()
	card := func(cx, cy, deg float64) [4]calibration.Point { return cardCorners(cx, cy, deg, r) }
	fill := func(ps []calibration.Point, white bool) { fillMask(&mask, ps, white) }
	under, top := card(95, 97, -19.3), card(101.5, 80.3, -19.3)
	fill(under[:], true)
	fill(top[:], true)
	// The index, from 1 to 15 mm down the top card's left edge, eating
	// the margin: the glyph's strokes reach 1.5 to 3.5 mm in, in steps.
	down, in := top[3].Sub(top[0]).Unit(), top[1].Sub(top[0]).Unit()
	var ink []calibration.Point
	for mm := 1.0; mm <= 15; mm += 2 {
		depth := 1.5
		if int(mm)%4 == 3 {
			depth = 3.5
		}
		ink = append(ink, top[0].Add(down.Scale(mm*r)).Add(in.Scale(depth*r)), top[0].Add(down.Scale((mm+2)*r)).Add(in.Scale(depth*r)))
	}
	ink = append(ink, top[0].Add(down.Scale(15*r)).Sub(in.Scale(2*r)), top[0].Add(down.Scale(r)).Sub(in.Scale(2*r)))
	fill(ink, false)
	poly, found := handOutline(t, mask, r)
	near := func(cs []corner, p calibration.Point) bool {
		for _, c := range cs {
			if c.P.Sub(p).Len() < 2*r {
				return true
			}
		}
		return false
	}
	if near(found, top[0]) {
		t.Fatal("the index corner is found without completing: the scene does not notch the edge enough")
	}
	done := completedCorners(poly, found, r, nil, nil)
	if !near(done, top[0]) {
		t.Errorf("the top card's index corner at %.0f,%.0f not completed (completed %+v)", top[0].X, top[0].Y, done)
	}
	for _, c := range done {
		ok := false
		for _, p := range append(under[:], top[:]...) {
			ok = ok || c.P.Sub(p).Len() < 2*r
		}
		if !ok {
			t.Errorf("completed a corner at %.0f,%.0f, which is no card's", c.P.X, c.P.Y)
		}
		if c.P.Sub(top[0]).Len() < 2*r && (dot(c.U, in) < 0.99 || dot(c.V, down) < 0.99 || c.NoIndex) {
			t.Errorf("the index corner's edges run along %v and %v, want %v and %v, NoIndex %v", c.U, c.V, in, down, c.NoIndex)
		}
	}
}

// TestCompletedCornerWithoutIndex lays a dealer's row as proc:2u's clip
// of seed 2702 did in round 1002: the first card (4♦) lies 2.5 mm higher
// than the next, which lies over it 23 mm along, so the row's top edge
// runs the first card's whole width and steps down at its top right
// corner. That corner is completed from the top left one, in a frame
// turned a quarter (U down the step, V back along the top edge): a frame
// with no index, which must say so, or its index area takes in the next
// card's index.
func TestCompletedCornerWithoutIndex(t *testing.T) {
	const r = 2.0 // px a mm
	mask := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), 320, 400, gocv.MatTypeCV8U)
	defer mask.Close()
	first, next := cardCorners(50, 60, 0, r), cardCorners(73, 62.5, 0, r)
	fillMask(&mask, first[:], true)
	fillMask(&mask, next[:], true)
	poly, found := handOutline(t, mask, r)
	done := completedCorners(poly, found, r, nil, nil)
	var got *corner
	for i, c := range done {
		if c.P.Sub(first[1]).Len() < 2*r {
			got = &done[i]
		}
	}
	switch {
	case got == nil:
		t.Fatalf("the first card's top right corner at %.0f,%.0f not completed (completed %+v)", first[1].X, first[1].Y, done)
	case dot(got.U, pt(0, 1)) < 0.99 || dot(got.V, pt(-1, 0)) < 0.99:
		t.Errorf("completed in the frame %v, %v; want U down the step and V back along the top edge", got.U, got.V)
	case !got.NoIndex:
		t.Errorf("the top right corner's turned frame is not marked NoIndex")
	}
}

// TestCompletedCornersAcrossTheIndex lays a card over another, 18 mm
// further up its long edge, as penguins' 10♣ lay over the 7♠ (KDE
// acceptance clip, seed 3002 round 1005, seat 1): the index, printed
// against the top edge, eats its margin for 13 mm from the corner, and
// the rank's first stroke eats the left edge below it. Only slivers of
// paper are left at the corner itself. The top edge runs 50 mm from the
// other corner, 13 short of a card's width, and ends in the glyphs: the
// corner is completed there. An index printed over the corner itself is
// completed too, where no cloth shows inside the corner. An edge that
// ends as far short under a card back is not: the outline turns in well
// clear of the missing corner.
func TestCompletedCornersAcrossTheIndex(t *testing.T) {
	const r = 2.0 // px a mm
	card := func(cx, cy, deg float64) [4]calibration.Point { return cardCorners(cx, cy, deg, r) }
	near := func(cs []corner, p calibration.Point) bool {
		for _, c := range cs {
			if c.P.Sub(p).Len() < 2*r {
				return true
			}
		}
		return false
	}
	t.Run("index against the edge", func(t *testing.T) {
		mask := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), 400, 400, gocv.MatTypeCV8U)
		defer mask.Close()
		fill := func(ps []calibration.Point, white bool) { fillMask(&mask, ps, white) }
		top := card(100, 90, -30)
		under := card(100, 90, -30)
		down, in := top[3].Sub(top[0]).Unit(), top[1].Sub(top[0]).Unit()
		for i := range under {
			under[i] = under[i].Add(down.Scale(18 * r)).Sub(in.Scale(1.5 * r))
		}
		fill(under[:], true)
		fill(top[:], true)
		at := func(a, b float64) calibration.Point { return top[0].Add(in.Scale(a * r)).Add(down.Scale(b * r)) }
		// "10" across the top edge, from 1.5 to 13 mm along it, 3 mm deep;
		// its "1" down the left edge, from 4 to 12 mm, 1.5 mm deep. A
		// sliver of paper is left in the corner.
		fill([]calibration.Point{at(1.5, -2), at(13, -2), at(13, 3), at(1.5, 3)}, false)
		fill([]calibration.Point{at(-2, 4), at(1.5, 4), at(1.5, 12), at(-2, 12)}, false)
		poly, found := handOutline(t, mask, r)
		if near(found, top[0]) {
			t.Fatal("the index corner is found without completing: the scene does not notch the edges enough")
		}
		done := completedCorners(poly, found, r, nil, nil)
		if !near(done, top[0]) {
			t.Errorf("the top card's index corner at %.0f,%.0f not completed (completed %+v)", top[0].X, top[0].Y, done)
		}
	})
	t.Run("index over the corner", func(t *testing.T) {
		// As penguins' 6♦ lay over the 9♦ (KDE acceptance clip, seed
		// 3404 round 1002, seat 1): the "6" is printed over the corner
		// itself, out to both edges, 9 mm along the top edge and 12 mm
		// down the left one, and no paper is left there. The outline
		// passes 9 mm from the corner: too far to complete it by the
		// outline alone, but no cloth shows inside the corner, so it is
		// the card's, printed over. Where cloth shows there, the felt
		// cut the card, and it is not completed.
		mask := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), 400, 400, gocv.MatTypeCV8U)
		defer mask.Close()
		top := card(100, 90, -30)
		under := card(100, 90, -30)
		down, in := top[3].Sub(top[0]).Unit(), top[1].Sub(top[0]).Unit()
		for i := range under {
			under[i] = under[i].Add(down.Scale(21 * r)).Sub(in.Scale(1.5 * r))
		}
		fillMask(&mask, under[:], true)
		fillMask(&mask, top[:], true)
		at := func(a, b float64) calibration.Point { return top[0].Add(in.Scale(a * r)).Add(down.Scale(b * r)) }
		index := []calibration.Point{at(-2, -2), at(9, -2), at(9, 12), at(-2, 12)}
		fillMask(&mask, index, false)
		poly, found := handOutline(t, mask, r)
		if near(found, top[0]) {
			t.Fatal("the index corner is found without completing: the scene does not take it off the outline")
		}
		if done := completedCorners(poly, found, r, nil, nil); near(done, top[0]) {
			t.Fatal("completed without the cloth: the corner lies within reach of the outline")
		}
		for _, tc := range []struct {
			name string
			cut  bool // cloth shows where the index is: the felt
			want bool
		}{
			{"printed over", false, true},
			{"cut by the felt", true, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				m := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 0, 0, 0), 400, 400, gocv.MatTypeCV8U)
				defer m.Close()
				fillMask(&m, under[:], false)
				fillMask(&m, top[:], false)
				if tc.cut {
					fillMask(&m, index, true)
				}
				cloth, ok := newGreyPicture(m, image.Rect(0, 0, 400, 400))
				if !ok {
					t.Fatal("newGreyPicture refused the cloth")
				}
				if got := near(completedCorners(poly, found, r, nil, &cloth), top[0]); got != tc.want {
					t.Errorf("top card's index corner completed: %v, want %v", got, tc.want)
				}
			})
		}
	})
	t.Run("a card back over the edge", func(t *testing.T) {
		mask := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), 400, 400, gocv.MatTypeCV8U)
		defer mask.Close()
		fill := func(ps []calibration.Point, white bool) { fillMask(&mask, ps, white) }
		// A face-down card, whose back is no paper, over the card's
		// top-left: the top edge shows 50 mm from its top-right corner and
		// the outline turns in along the back's right edge, 13 mm clear of
		// the hidden corner.
		under, back := card(130, 80, 0), card(130-63+13, 70, 0)
		fill(under[:], true)
		fill(back[:], false)
		poly, found := handOutline(t, mask, r)
		if !near(found, under[1]) {
			t.Fatalf("the card's top-right corner not found (found %+v)", found)
		}
		if done := completedCorners(poly, found, r, nil, nil); near(done, under[0]) {
			t.Errorf("completed the card's top-left corner at %.0f,%.0f, under the back", under[0].X/r, under[0].Y/r)
		}
	})
}

// cardCorners returns a card's corners, cardW×cardH mm, centred at
// (cx, cy) mm and turned by deg, in pixels at r a mm; the first is its
// top-left.
func cardCorners(cx, cy, deg, r float64) [4]calibration.Point {
	s, c := math.Sincos(deg * math.Pi / 180)
	u, v := pt(c, s), pt(-s, c)
	o := pt(cx, cy).Sub(u.Scale(cardW / 2)).Sub(v.Scale(cardH / 2))
	return [4]calibration.Point{o.Scale(r), o.Add(u.Scale(cardW)).Scale(r), o.Add(u.Scale(cardW)).Add(v.Scale(cardH)).Scale(r), o.Add(v.Scale(cardH)).Scale(r)}
}

// fillMask fills polygon ps (pixels) in a paper mask: paper where white,
// not paper (felt, ink) otherwise.
func fillMask(mask *gocv.Mat, ps []calibration.Point, white bool) {
	var pts []image.Point
	for _, p := range ps {
		pts = append(pts, image.Pt(int(math.Round(p.X)), int(math.Round(p.Y))))
	}
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
	defer pv.Close()
	col := color.RGBA{}
	if white {
		col = color.RGBA{R: 255, G: 255, B: 255, A: 255}
	}
	gocv.FillPoly(mask, pv, col)
}

// handOutline outlines the one blob of a paper mask (r px a mm) as
// prepareZone does, and returns the outline and the corners findCorners
// and notchedCorners find on it.
func handOutline(t *testing.T, mask gocv.Mat, r float64) ([]image.Point, []corner) {
	t.Helper()
	contours := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer contours.Close()
	if contours.Size() != 1 {
		t.Fatalf("%d blobs, want the hand's one", contours.Size())
	}
	approx := gocv.ApproxPolyDP(contours.At(0), 0.8*r, true)
	poly := approx.ToPoints()
	approx.Close()
	found := findCorners(poly, 7*r, 14*r, 25)
	return poly, append(found, notchedCorners(poly, found, r)...)
}

// TestNoIndexAt: the corners left unread are those whose outline runs
// along a long edge on U and a short one on V; in a dealer's row, where
// the cards' edges run on straight into each other, no corner is left
// unread.
func TestNoIndexAt(t *testing.T) {
	const r = 2.0
	px := func(ps ...[2]float64) []image.Point { // mm to pixels
		out := make([]image.Point, len(ps))
		for i, p := range ps {
			out[i] = image.Pt(int(p[0]*r), int(p[1]*r))
		}
		return out
	}
	at := func(x, y float64, u, v calibration.Point) corner {
		return corner{P: pt(x*r, y*r), U: u, V: v}
	}
	right, left, down, up := pt(1, 0), pt(-1, 0), pt(0, 1), pt(0, -1)
	card := px([2]float64{0, 0}, [2]float64{63, 0}, [2]float64{63, 88}, [2]float64{0, 88})
	// Three cards laid 24 mm apart in a row: one 111×88 outline.
	row := px([2]float64{0, 0}, [2]float64{111, 0}, [2]float64{111, 88}, [2]float64{0, 88})
	// A hand: the second card 14 mm right and 17 mm up, on top.
	fan := px([2]float64{0, 0}, [2]float64{14, 0}, [2]float64{14, -17}, [2]float64{77, -17},
		[2]float64{77, 71}, [2]float64{63, 71}, [2]float64{63, 88}, [2]float64{0, 88})
	notched := px([2]float64{0, 20}, [2]float64{5, 20}, [2]float64{5, 0}, [2]float64{111, 0}, [2]float64{111, 88}, [2]float64{0, 88})
	tests := []struct {
		name string
		poly []image.Point
		c    corner
		want bool
	}{
		{"card, top left (index)", card, at(0, 0, right, down), false},
		{"card, top right", card, at(63, 0, down, left), true},
		{"card, bottom right (index)", card, at(63, 88, left, up), false},
		{"card, bottom left", card, at(0, 88, up, right), true},
		{"row, first card's top left (index)", row, at(0, 0, right, down), false},
		{"row, second card's top left (index), on the top edge", row, at(24, 0, right, down), false},
		{"row, last card's bottom right (index)", row, at(111, 88, left, up), false},
		{"row, top right: kept, its short edge runs on", row, at(111, 0, down, left), false},
		{"fan, lower card's bottom left", fan, at(0, 88, up, right), true},
		{"fan, lower card's bottom right (index)", fan, at(63, 88, left, up), false},
		{"fan, upper card's top right", fan, at(77, -17, down, left), true},
		{"fan, upper card's bottom right (index)", fan, at(77, 71, left, up), false},
		// An index at the edge notches the outline: the corner squared
		// to the top edge, 5 mm in, has only the notch's side below it
		// (the dealer's A♠ of dondorf seed 2213 round 1032, whose better
		// index corner went unread when a V run of 10 mm was enough).
		{"notched top left (index), in a row", notched, at(5, 0, right, down), false},
	}
	for _, tt := range tests {
		if got := noIndexAt(tt.poly, tt.c, r); got != tt.want {
			t.Errorf("%s: noIndexAt = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestEdgeWithin checks that edgeWithin finds an edge within lim exactly
// when distToPoly says there is one, whichever edge it starts from, and
// that the edge it returns is within lim.
func TestEdgeWithin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		poly := make([]image.Point, 3+rng.IntN(10))
		for i := range poly {
			poly[i] = image.Pt(rng.IntN(200), rng.IntN(200))
		}
		if rng.IntN(10) == 0 {
			poly[1] = poly[0] // an edge of no length
		}
		q := pt(rng.Float64()*240-20, rng.Float64()*240-20)
		lim := rng.Float64() * 12
		from := rng.IntN(len(poly))
		e, ok := edgeWithin(poly, q, lim, from)
		if want := distToPoly(poly, q) <= lim; ok != want {
			t.Fatalf("poly %v q %v lim %g from %d: edgeWithin %v, distToPoly %g", poly, q, lim, from, ok, distToPoly(poly, q))
		}
		if ok && distToEdge(poly, e, q) > lim {
			t.Fatalf("poly %v q %v lim %g: edge %d is %g away", poly, q, lim, e, distToEdge(poly, e, q))
		}
	}
}

// TestSteppedCorners draws hands and lone cards, their corners rounded
// over 5 mm, with the felt (the cloth) where no paper and no ink is, and
// checks that steppedCorners finds the corner of a card lying a little
// higher than the card beside it, and no corner where an index printed
// at the edge notches the outline. KDE nicu-white (acceptance seed 3801,
// round 1006, frame 2558): a split hand's fourth card, a 6♠ turned 15°
// from the 6♠ under it and 8 mm higher, its corner rounded over some
// 6 mm; no corner was found there, and its index was read 5 mm off.
func TestSteppedCorners(t *testing.T) {
	const r, round = 2.0, 5.0
	type placed struct{ tl, u calibration.Point } // a card's top-left corner (mm) and its top edge's direction
	type scene struct {
		cards []placed
		ink   [][]calibration.Point // glyphs (mm)
	}
	upright := pt(1, 0)
	turned := func(deg float64) calibration.Point {
		s, c := math.Sincos(deg * math.Pi / 180)
		return pt(c, s)
	}
	box := func(x0, y0, x1, y1 float64) []calibration.Point {
		return []calibration.Point{pt(x0, y0), pt(x1, y0), pt(x1, y1), pt(x0, y1)}
	}
	tests := []struct {
		name string
		sc   scene
		want []calibration.Point // corners steppedCorners must find (mm); it may find no corner that is not a card's
	}{
		{"a card 8 mm higher, turned 15°", scene{cards: []placed{{pt(40, 60), upright}, {pt(62, 52), turned(15)}}},
			[]calibration.Point{pt(62, 52)}},
		{"a card 7 mm higher", scene{cards: []placed{{pt(40, 60), upright}, {pt(62, 53), upright}}},
			[]calibration.Point{pt(62, 53)}},
		// Rounded down to the card beneath, with no side edge between:
		// beyond steppedCorners.
		{"a card 3 mm higher", scene{cards: []placed{{pt(40, 60), upright}, {pt(62, 57), upright}}}, nil},
		{"top edges in line", scene{cards: []placed{{pt(40, 60), upright}, {pt(62, 60), upright}}}, nil},
		{"an index notch by the corner", scene{cards: []placed{{pt(40, 60), upright}}, ink: [][]calibration.Point{box(45, 58, 53, 65)}}, nil},
		{"a glyph across the corner, 14 mm wide", scene{cards: []placed{{pt(40, 60), upright}}, ink: [][]calibration.Point{box(38, 58, 54, 66)}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const w, h = 400, 400
			mask := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), h, w, gocv.MatTypeCV8U)
			defer mask.Close()
			ink := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 0, 0, 0), h, w, gocv.MatTypeCV8U)
			defer ink.Close()
			for _, c := range tt.sc.cards {
				fillMask(&mask, roundedCard(c.tl, c.u, round, r), true)
			}
			for _, g := range tt.sc.ink {
				ps := make([]calibration.Point, len(g))
				for i, p := range g {
					ps[i] = p.Scale(r)
				}
				fillMask(&mask, ps, false)
				fillMask(&ink, ps, true)
			}
			cloth := make([]uint8, w*h)
			for y := range h {
				for x := range w {
					if mask.GetUCharAt(y, x) == 0 && ink.GetUCharAt(y, x) == 0 {
						cloth[y*w+x] = 255
					}
				}
			}
			poly, found := handOutline(t, mask, r)
			got := steppedCorners(poly, found, r, &greyPicture{px: cloth, step: w, cols: w, rows: h})
			for _, p := range tt.want {
				if !slices.ContainsFunc(got, func(c corner) bool { return c.P.Sub(p.Scale(r)).Len() < 2*r }) {
					t.Errorf("no corner found at %v mm (found %d)", p, len(got))
				}
			}
			var corners []calibration.Point // every card's, where its edges' lines meet
			for _, c := range tt.sc.cards {
				v := pt(-c.u.Y, c.u.X)
				for _, k := range [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
					corners = append(corners, c.tl.Add(c.u.Scale(k[0]*cardW)).Add(v.Scale(k[1]*cardH)))
				}
			}
			for _, c := range got {
				if !slices.ContainsFunc(corners, func(p calibration.Point) bool { return c.P.Sub(p.Scale(r)).Len() < 2*r }) {
					t.Errorf("a corner at %.1f,%.1f mm is no card's", c.P.X/r, c.P.Y/r)
				}
			}
			if t.Failed() {
				return
			}
			// Without the cloth, none: a glyph's ink and the felt cannot
			// be told apart.
			if got := steppedCorners(poly, found, r, nil); len(got) > 0 {
				t.Errorf("%d corners found with no picture of the cloth", len(got))
			}
		})
	}
}

// roundedCard returns the outline, in pixels at r a mm, of a card whose
// top-left corner (where its edges' lines meet) lies at tl mm, its top
// edge running along u (a unit vector), its corners rounded over radius
// mm.
func roundedCard(tl, u calibration.Point, radius, r float64) []calibration.Point {
	v := pt(-u.Y, u.X)
	var out []calibration.Point
	// Each corner's arc centre, inset radius along both edges, and the
	// angle its arc starts at, in the card's own axes.
	for i, k := range [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
		cu := k[0]*cardW + (1-2*k[0])*radius
		cv := k[1]*cardH + (1-2*k[1])*radius
		for s := range 10 {
			a := (float64(i+2) + float64(s)/9) * math.Pi / 2
			p := tl.Add(u.Scale(cu + radius*math.Cos(a))).Add(v.Scale(cv + radius*math.Sin(a)))
			out = append(out, p.Scale(r))
		}
	}
	return out
}

// TestBacks: a back stands where two of its corners, read as a back,
// agree on its centre; one corner found twice, a few millimetres apart
// along an edge, is not two. CCTV clip seed 4716 (proc:6), round 1000:
// the hole card's top edge, where the card beneath meets it, gave two
// places 6 mm apart that read as a back's corner, U along the edge, and
// put a second back, a quarter turned, beside the hole card.
func TestBacks(t *testing.T) {
	back := func(c corner) read {
		return read{at: c, res: classify.Result{Back: true, Confidence: 0.95}}
	}
	// A back lying square, 63 wide and 88 tall, from (0, 0).
	tl := corner{P: pt(0, 0), U: pt(1, 0), V: pt(0, 1)}
	tr := corner{P: pt(63, 0), U: pt(0, 1), V: pt(-1, 0)}
	br := corner{P: pt(63, 88), U: pt(-1, 0), V: pt(0, -1)}
	// Two places along the top edge, 6 mm apart, each taken for a corner
	// with U along the edge.
	onEdge := corner{P: pt(30, 0), U: pt(1, 0), V: pt(0, 1)}
	onEdge2 := corner{P: pt(36, 0), U: pt(1, 0), V: pt(0, 1)}
	for _, tc := range []struct {
		name  string
		reads []read
		want  []calibration.Point // the backs' centres
	}{
		{"two corners along the short edge", []read{back(tl), back(tr)}, []calibration.Point{pt(31.5, 44)}},
		{"two far corners", []read{back(tl), back(br)}, []calibration.Point{pt(31.5, 44)}},
		{"one corner alone", []read{back(tl)}, nil},
		{"one place on an edge found twice", []read{back(onEdge), back(onEdge2)}, nil},
		{"a back, and one place on its edge found twice", []read{back(tl), back(tr), back(onEdge), back(onEdge2)}, []calibration.Point{pt(31.5, 44)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []calibration.Point
			for _, b := range backs(tc.reads) {
				got = append(got, b.centre)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("backs at %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i].Sub(tc.want[i]).Len() > 1 {
					t.Errorf("back %d at %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

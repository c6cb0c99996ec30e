package vision

import (
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
)

// findJunctions finds the corners hidden along a straight stretch of a
// blob's outline: where cards lie side by side in a row (the dealer's), the
// top edge runs straight across them, and each card's index corner is
// where its own side edge meets that outline, inside the blob. That side
// edge shows as a line of strong gradient running straight in from the
// outline; printing does not hold a line over the whole depth.
//
// Where the outline bends outward off a piece's end, the piece's card
// edge may run on hidden inside the blob, over the card beneath: the
// search follows it there (hiddenRun).
//
// pic is the rectified zone in grey; poly is the blob's outline; r is
// pixels per mm. Each junction's U runs along the outline and V straight in,
// right-handed. Corners known already stand for the junctions there, and
// the lines on their cards' faces are dropped (offFace).
func findJunctions(pic greyPicture, poly []image.Point, r float64, known []corner) []corner {
	return offFace(junctions(pic, poly, r, known), known, r)
}

// junctions is findJunctions with the lines on the cards' faces kept.
func junctions(pic greyPicture, poly []image.Point, r float64, known []corner) []corner {
	n := len(poly)
	if n < 3 {
		return nil
	}
	orient := orientation(poly)
	const (
		pastMM = 5.0 // a hidden corner may lie past a piece's end: the outline wanders round it
		fromMM = 4.0 // the band below the outline searched for a side edge
		toMM   = 30.0
		nearMM = 1.5 // a faint edge must show from here to fromMM too
	)
	side := sideBands{deep: newBand(fromMM*r, toMM*r), near: newBand(nearMM*r, fromMM*r)}
	kept := keptJunctions{known: known, r: r}
	// Junctions on a card edge running on hidden past a piece's end are
	// weighed after all the others: they are the less sure.
	type junction struct {
		cs []corner
		d  calibration.Point
	}
	var hidden []junction
	stretches := straightStretches(poly, straightMM*r)
	for i, st := range stretches {
		a, b := st[0], st[1]
		d, in, length := edgeAlong(st, orient)
		if length < rowEdgeMM*r {
			continue
		}
		runsBack, runsAhead := runsOn(stretches, i, -1, r), runsOn(stretches, i, 1, r)
		// The junctions at s pixels along from a: the side edge going in,
		// and where a piece of outline ends, the outline may run on along
		// a card's long edge past its index corner (a sideways double
		// lying over the hand beside it): its short edge is the side edge going in, and its frame is this
		// one turned a quarter.
		at := func(s float64) []corner {
			p := a.Add(d.Scale(s))
			u, v := d, in
			if cross(u, v) < 0 {
				u = u.Scale(-1)
			}
			cs := []corner{{P: p, U: u, V: v}}
			if (s <= pastMM*r && runsBack) || (s >= length-pastMM*r && runsAhead) {
				turned := corner{P: p, U: in, V: d}
				if cross(in, d) < 0 {
					turned.V = d.Scale(-1)
				}
				cs = append(cs, turned)
			}
			return cs
		}
		for _, s := range sideEdges(pic, a, d, in, side, -pastMM*r, length+pastMM*r) {
			kept.add(at(s), d)
		}
		// Where the outline bends off a piece's end, that piece's card
		// edge may run on inside the blob, over the card beneath, to a
		// corner of its own (a sideways double's top edge may run 22 mm
		// on over the next hand's card, its corner 4 mm inside that
		// card's edge). The search goes on from either end a whole
		// pixel at a time, and keeps the frames whose card lies back
		// along the piece (lyingBack).
		if runsBack {
			if run := hiddenRun(poly, a, d.Scale(-1), length, r) - pastMM*r; run >= 1 {
				for _, s := range sideEdges(pic, a, d, in, side, -pastMM*r-math.Floor(run), -pastMM*r-1) {
					hidden = append(hidden, junction{lyingBack(at(s), d), d})
				}
			}
		}
		if runsAhead {
			if run := hiddenRun(poly, b, d, length, r) - pastMM*r; run >= 1 {
				for _, s := range sideEdges(pic, a, d, in, side, length+pastMM*r+1, length+pastMM*r+math.Floor(run)) {
					hidden = append(hidden, junction{lyingBack(at(s), d.Scale(-1)), d})
				}
			}
		}
	}
	for _, h := range hidden {
		kept.add(h.cs, h.d)
	}
	return kept.out
}

// keptJunctions are the junctions kept along an outline, beside the
// corners known already.
type keptJunctions struct {
	known  []corner
	r      float64 // pixels a mm
	out    []corner
	turned []bool // out[k] is a junction's turned frame
}

// add keeps the corners cs of a junction on a stretch along d that no
// corner found already stands for. A corner within 5 mm stands for the
// junction's own frame, whatever its frame; for the turned frame (U
// across the stretch: another card's corner) only where it has the same
// frame. A turned frame kept before is the less sure reading of its
// junction, a sideways double's corner: it stands for no other frame
// than its own, and a side edge a few millimetres on (the card's edge
// itself, beside a rank's stroke) is still a card's corner in the
// stretch's frame.
func (k *keptJunctions) add(cs []corner, d calibration.Point) {
	for _, c := range cs {
		turned := math.Abs(dot(c.U, d)) < 0.5
		stands := func(q corner, qTurned bool) bool {
			return q.P.Sub(c.P).Len() < 5*k.r && (!turned && !qTurned || dot(q.U, c.U) > 0.9)
		}
		dup := slices.ContainsFunc(k.known, func(q corner) bool { return stands(q, false) })
		for i, q := range k.out {
			dup = dup || stands(q, k.turned[i])
		}
		if !dup {
			k.out, k.turned = append(k.out, c), append(k.turned, turned)
		}
	}
}

// sideBands are the depths below an outline where a side edge is
// looked for: deep, clear of the outline's rounded corners and jitter,
// and near, up to the outline, where a faint line must show too. A card's
// edge runs on up to the outline; the frame of a court figure or a column
// of pips starts some millimetres inside the card's own edge.
type sideBands struct{ deep, near band }

// sideEdges returns where, from `from` to `to` pixels along d from a (a
// pixel at a time), a side edge runs in from the line along in: the first
// pixel of each maximum of the share of the deep band that crosses a step
// (see crossShare), where it reaches holds; and, more than a couple of
// millimetres from those, of the share that crosses a step or a shadow
// line, where the line shows as a shadow in the near band too.
func sideEdges(pic greyPicture, a, d, in calibration.Point, b sideBands, from, to float64) []float64 {
	const (
		holds     = 0.65 // the share of the band a side edge must cross; pips in a column reach about half
		holdsNear = 0.5  // the share of the near band a shadow line must cross
		apartPx   = 5    // a shadow line this close to a step is the step's own
	)
	// Below holds, a share is only ever compared with holds, or with a
	// neighbour's share of holds or more: crossShares need not work it
	// out exactly.
	n := max(0, int(math.Floor(to-from))+1)
	steps, edges := make([]float64, 0, n), make([]float64, 0, n)
	for s := from; s <= to; s++ {
		st, e := pic.crossShares(a.Add(d.Scale(s)), d, in, b.deep, holds)
		steps, edges = append(steps, st), append(edges, e)
	}
	out := profileMaxima(steps, holds, from)
	for _, s := range profileMaxima(edges, holds, from) {
		if slices.ContainsFunc(out, func(t float64) bool { return math.Abs(t-s) <= apartPx }) {
			continue
		}
		if pic.crossShare(a.Add(d.Scale(s)), d, in, b.near, shadowLine, holdsNear) >= holdsNear {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// profileMaxima returns the first pixel of each maximum of a profile of
// shares, a pixel apart from `from` on, where it reaches least.
func profileMaxima(profile []float64, least, from float64) []float64 {
	var out []float64
	for k := range profile {
		if profile[k] < least || (k+1 < len(profile) && profile[k] < profile[k+1]) {
			continue
		}
		// One line is several pixels wide: keep its first maximum.
		if k > 0 && profile[k] <= profile[k-1] {
			continue
		}
		out = append(out, from+float64(k))
	}
	return out
}

// edgeTest says which pixels a card's edge crosses: a step of Sobel
// response over Strong across the edge (a card edge on felt, or a printed
// border line), or a line darker by Faint grey levels than the paper a
// pixel and a half to either side (ValleyPx) of it: where a borderless
// card lies on another of the same paper, its edge shows only as the thin
// shadow it casts, with the same paper to either side.
type edgeTest struct {
	Strong      float64
	Faint, Deep float64 // a shadow line's depth in grey levels; Faint 0: steps only
	ValleyPx    float64
}

// cardEdge is the edge test of side edges: felt-to-paper steps give more
// than Strong; a shadow line at 2 px/mm is three or four pixels wide, and
// lighter than printed ink by far.
var cardEdge = edgeTest{Strong: 60, Faint: 3, Deep: 40, ValleyPx: 3}

// shadowLine is cardEdge's faint test alone.
var shadowLine = edgeTest{Strong: math.Inf(1), Faint: cardEdge.Faint, Deep: cardEdge.Deep, ValleyPx: cardEdge.ValleyPx}

// hiddenRun is how far past a piece of outline of the given length
// (pixels) that ends at end, going on along dir (a unit vector), a card's
// edge may run on hidden inside the blob: where the outline bends
// outward there, as far as the rest of a card's long edge and 2 mm more
// (the piece may end short of where the edge leaves the outline), up to
// 30 mm; 0 where it bends inward or round a corner. r is pixels per mm.
func hiddenRun(poly []image.Point, end, dir calibration.Point, length, r float64) float64 {
	const (
		probeMM = 10.0 // looked at 10 mm on, where...
		deepMM  = 1.0  // ...a bend of 6° or more leaves the edge this deep
		mostMM  = 30.0
	)
	q := end.Add(dir.Scale(probeMM * r))
	if !insidePoly(poly, q) || distToPoly(poly, q) < deepMM*r {
		return 0
	}
	return min(mostMM, cardH+2-length/r) * r
}

// lyingBack keeps the frames of a junction found on a card edge's hidden
// run whose card lies back towards the piece of outline that edge runs
// on from (back, a unit vector): one of its axes points that way. A
// hidden corner is the corner of the piece's own card. A frame whose card
// would lie on past the junction, away from the piece, is no corner of
// it; where the junction is a line printed on that card's face short of
// its corner (the run is searched 30 mm at most), such a frame would take
// the card's own index, further on, for the index of a card of its own,
// and indexJunctions would offer no corner there.
func lyingBack(cs []corner, back calibration.Point) []corner {
	return slices.DeleteFunc(cs, func(c corner) bool { return dot(c.U, back) < 0.5 && dot(c.V, back) < 0.5 })
}

// insidePoly reports whether q lies inside the closed polygon (even-odd
// rule).
func insidePoly(poly []image.Point, q calibration.Point) bool {
	in := false
	for i := range poly {
		a, b := fromImage(poly[i]), fromImage(poly[(i+1)%len(poly)])
		if (a.Y > q.Y) != (b.Y > q.Y) && q.X < a.X+(q.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y) {
			in = !in
		}
	}
	return in
}

// offFace drops the junctions that lie on the face of a card whose corner
// is known: a line running in from the top edge 5 to 14 mm along from a
// card's index corner, in that corner's frame, is the frame of a court
// figure or a column of pips, not another card's edge. Cards in a row lie
// further apart than that, or their index would not show. Only corners
// found on the outline count: a junction kept may itself be such a line
// (a line on a court card 14.7 mm from its corner, and the next card's
// corner 7 mm past it).
func offFace(js, known []corner, r float64) []corner {
	const (
		nearMM, farMM = 5.0, 14.0
		offMM         = 2.0 // a card in a row may lie a millimetre or so lower
	)
	return slices.DeleteFunc(js, func(c corner) bool {
		return slices.ContainsFunc(known, func(q corner) bool {
			if dot(q.U, c.U) <= 0.9 {
				return false
			}
			w := c.P.Sub(q.P)
			along := dot(w, q.U)
			return along >= nearMM*r && along <= farMM*r && math.Abs(dot(w, q.V)) <= offMM*r
		})
	})
}

// runsOn reports whether the outline runs on nearly straight (within
// 45°) from stretch i into the stretch before it (step -1) or after it
// (step 1): where a card's long edge meets the edge of a card beneath, not
// where the outline turns round a corner.
func runsOn(stretches [][2]calibration.Point, i, step int, r float64) bool {
	n := len(stretches)
	j := (i + step + n) % n
	if j == i {
		return false
	}
	a, b := stretches[i], stretches[j]
	joint := a[1].Sub(b[0]) // this stretch's end, the next one's start
	if step < 0 {
		joint = b[1].Sub(a[0])
	}
	d1, d2 := a[1].Sub(a[0]).Unit(), b[1].Sub(b[0]).Unit()
	return joint.Len() <= 2*r && dot(d1, d2) >= math.Cos(math.Pi/4)
}

// greyPicture is an 8-bit grey picture read in place. The junction
// search reads its gradients at some tens of thousands of pixels; working
// them out there costs less than Sobel pictures of a whole zone.
type greyPicture struct {
	px         []uint8 // from the top left pixel on, step bytes a row
	step       int
	cols, rows int
}

// newGreyPicture reads the part r of an 8-bit grey Mat whose rows follow
// each other in memory.
func newGreyPicture(m gocv.Mat, r image.Rectangle) (greyPicture, bool) {
	px, err := m.DataPtrUint8()
	if err != nil || m.Type() != gocv.MatTypeCV8U || len(px) != m.Rows()*m.Cols() || !r.In(image.Rect(0, 0, m.Cols(), m.Rows())) || r.Empty() {
		return greyPicture{}, false
	}
	return greyPicture{px: px[r.Min.Y*m.Cols()+r.Min.X:], step: m.Cols(), cols: r.Dx(), rows: r.Dy()}, true
}

// sobel is the 3×3 Sobel gradient at (x, y), as cv::Sobel with
// BORDER_REPLICATE gives it for the picture alone.
func (p greyPicture) sobel(x, y int) (gx, gy int32) {
	x0, x1 := max(x-1, 0), min(x+1, p.cols-1)
	y0, y1 := max(y-1, 0), min(y+1, p.rows-1)
	x, y = min(max(x, 0), p.cols-1), min(max(y, 0), p.rows-1)
	t, m, b := p.px[y0*p.step:], p.px[y*p.step:], p.px[y1*p.step:]
	tl, tc, tr := int32(t[x0]), int32(t[x]), int32(t[x1])
	l, r := int32(m[x0]), int32(m[x1])
	bl, bc, br := int32(b[x0]), int32(b[x]), int32(b[x1])
	return (tr + 2*r + br) - (tl + 2*l + bl), (bl + 2*bc + br) - (tl + 2*tc + tr)
}

// band is the depths from, from+1, ... up to to (pixels) below an
// outline that a side edge is looked for in; n is how many, counted as a
// loop over them steps.
type band struct {
	from, to float64
	n        int
}

func newBand(from, to float64) band {
	b := band{from: from, to: to}
	for depth := from; depth <= to; depth++ {
		b.n++
	}
	return b
}

// crossShare is the share of band b that a line along in crosses: of the
// pixels at b's depths along in from at, those that edge counts as on a
// card's edge across d (a unit vector). Pixels outside the picture do not
// count. Only a share of least or more is worked out exactly: once more
// pixels have missed than a share of least allows of the whole band, the
// share is sure to fall short, and crossShare returns -1.
func (p greyPicture) crossShare(at, d, in calibration.Point, b band, edge edgeTest, least float64) float64 {
	most := (1 - least) * float64(b.n) // misses a share of least allows
	hit, all := 0, 0
	side := d.Scale(edge.ValleyPx)
	for depth := b.from; depth <= b.to; depth++ {
		q := at.Add(in.Scale(depth))
		x, y := int(q.X+0.5), int(q.Y+0.5)
		if x < 0 || y < 0 || x >= p.cols || y >= p.rows {
			continue
		}
		all++
		if p.stepAt(x, y, d, edge.Strong) || p.shadowAt(q, x, y, side, edge) {
			hit++
		} else if float64(all-hit) > most {
			return -1
		}
	}
	if all == 0 {
		return 0
	}
	return float64(hit) / float64(all)
}

// crossShares is crossShare for cardEdge's steps alone and for cardEdge
// whole, in one pass over the band: the second test's hits include the
// first's.
func (p greyPicture) crossShares(at, d, in calibration.Point, b band, least float64) (steps, edges float64) {
	most := (1 - least) * float64(b.n)
	stepHit, edgeHit, all := 0, 0, 0
	stepsShort := false
	side := d.Scale(cardEdge.ValleyPx)
	for depth := b.from; depth <= b.to; depth++ {
		q := at.Add(in.Scale(depth))
		x, y := int(q.X+0.5), int(q.Y+0.5)
		if x < 0 || y < 0 || x >= p.cols || y >= p.rows {
			continue
		}
		all++
		if p.stepAt(x, y, d, cardEdge.Strong) {
			stepHit++
			edgeHit++
			continue
		}
		stepsShort = stepsShort || float64(all-stepHit) > most
		if p.shadowAt(q, x, y, side, cardEdge) {
			edgeHit++
		} else if float64(all-edgeHit) > most {
			return -1, -1 // steps fall short too: they hit no more
		}
	}
	if all == 0 {
		return 0, 0
	}
	steps, edges = float64(stepHit)/float64(all), float64(edgeHit)/float64(all)
	if stepsShort {
		steps = -1
	}
	return steps, edges
}

// stepAt reports whether the Sobel response at (x, y) across d is over
// strong.
func (p greyPicture) stepAt(x, y int, d calibration.Point, strong float64) bool {
	gx, gy := p.sobel(x, y)
	return math.Abs(float64(gx)*d.X+float64(gy)*d.Y) > strong
}

// shadowAt reports whether pixel (x, y), at q, lies on a shadow line by
// edge's faint test; side is the line's direction across, scaled to the
// valley's half width.
func (p greyPicture) shadowAt(q calibration.Point, x, y int, side calibration.Point, edge edgeTest) bool {
	if edge.Faint <= 0 {
		return false
	}
	l, r := p.at(q.Sub(side)), p.at(q.Add(side))
	valley := (l+r)/2 - float64(p.px[y*p.step+x])
	// Paper on both sides: a line bounding printing or art, with paper on
	// one side only, is not a card's edge.
	return valley > edge.Faint && valley < edge.Deep && math.Abs(l-r) < valley
}

// pixel returns the picture's pixel that holds q (its whole-pixel part),
// and whether q lies in the picture at all.
func (p greyPicture) pixel(q calibration.Point) (uint8, bool) {
	x, y := int(q.X), int(q.Y)
	if x < 0 || y < 0 || x >= p.cols || y >= p.rows {
		return 0, false
	}
	return p.px[y*p.step+x], true
}

// at is the grey level at q, bilinearly interpolated, the picture's edge
// repeated beyond it.
func (p greyPicture) at(q calibration.Point) float64 {
	x := min(max(q.X, 0), float64(p.cols-1))
	y := min(max(q.Y, 0), float64(p.rows-1))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, p.cols-1), min(y0+1, p.rows-1)
	fx, fy := x-float64(x0), y-float64(y0)
	row0, row1 := p.px[y0*p.step:], p.px[y1*p.step:]
	top := float64(row0[x0])*(1-fx) + float64(row0[x1])*fx
	bottom := float64(row1[x0])*(1-fx) + float64(row1[x1])*fx
	return top*(1-fy) + bottom*fy
}

// straightMM is how far the outline of a row of cards strays from a
// straight line: a card lying a millimetre higher than the one before, or
// the notch its rounded corner leaves, breaks the polygon there, and
// often right where that card's hidden corner is.
const straightMM = 1.5

// rowEdgeMM is the shortest straight stretch of outline searched for
// corners hidden along it: jitter breaks a row's top edge into pieces,
// and a shorter stretch holds no row of cards.
const rowEdgeMM = 15.0

// edgeAlong returns a stretch's direction, its inward normal on an
// outline of orientation orient (for a counter-clockwise outline, positive
// area in image coordinates, the inside is on the left of each edge; the
// sign of orient says which), and its length.
func edgeAlong(st [2]calibration.Point, orient float64) (d, in calibration.Point, length float64) {
	d = st[1].Sub(st[0]).Unit()
	return d, pt(-d.Y, d.X).Scale(orient), st[1].Sub(st[0]).Len()
}

// straightStretches returns the straight stretches of a closed outline:
// runs of consecutive edges whose vertices all lie within tol pixels of the
// line from the run's first vertex to its last, and that go on along it.
// An edge that joins no neighbour is a stretch of its own. Stretches may
// share edges; each is as long as it can be from where it starts.
func straightStretches(poly []image.Point, tol float64) [][2]calibration.Point {
	n := len(poly)
	var out [][2]calibration.Point
	end := -1 // the last vertex, unwrapped, of the stretch found before
	for i := range n {
		a := fromImage(poly[i])
		k := 1
		for k+1 < n && straightRun(poly, i, k+1, tol) {
			k++
		}
		if i+k <= end {
			continue // a part of the stretch found before
		}
		end = i + k
		out = append(out, [2]calibration.Point{a, fromImage(poly[(i+k)%n])})
	}
	return out
}

// straightRun reports whether the k edges from vertex i lie along the line
// from vertex i to vertex i+k, each going on from where the one before
// ended.
func straightRun(poly []image.Point, i, k int, tol float64) bool {
	n := len(poly)
	a, b := fromImage(poly[i]), fromImage(poly[(i+k)%n])
	length := b.Sub(a).Len()
	if length == 0 {
		return false
	}
	d := b.Sub(a).Scale(1 / length)
	along := 0.0
	for m := 1; m < k; m++ {
		p := fromImage(poly[(i+m)%n]).Sub(a)
		if math.Abs(cross(d, p)) > tol {
			return false
		}
		t := dot(d, p)
		if t < along-tol || t > length {
			return false
		}
		along = math.Max(along, t)
	}
	return true
}

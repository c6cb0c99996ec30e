package vision

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
)

// A still with no calibration is rectified from its cards alone. Every
// card corner that shows is a right angle on the felt: the picture's two
// edges there are the images of two perpendicular lines. A plane's
// perspective view keeps straight lines straight, and the right angles
// of five or more corners in two or more directions fix the view up to a
// turn and a scale (the conic dual to the circular points, Liebowitz and
// Zisserman 1998); where most cards lie turned alike they leave it free
// to stretch along the cards' edges, and the proportions of the cards
// lying whole, or else the picture's own, hold it (refinePlane). The
// scale then follows from the cards' size: the straight edges of cards
// that lie whole, or of a hand's first and last card, are 63 or 88 mm
// long.

// linePair is the two edges of the picture meeting at a card corner:
// lines in the picture's normalised coordinates (a·x + b·y + c = 0, with
// a² + b² = 1).
type linePair struct {
	l, m [3]float64
	// The two edges' ends, in normalised coordinates: the outline
	// arrives at the corner along l's edge, and leaves along m's.
	le, me [2][2]float64
	// paper: the outline is mostly paper inside (paperFill), as a
	// card lying face up is; a card's back, a shoe or a discard tray
	// is framed by paper and coloured within.
	paper bool
	// cut: one of the edges runs along the picture's edge, where the
	// picture cuts a card off; it is no card's edge.
	cut bool
}

// paperFill is the least share of an outline's area that is paper for
// its corners to count as a face-up card's (wholeCorners): a number
// card's pips and indices take some 15%.
const paperFill = 0.6

// PlaneFit says how a still's table plane was found.
type PlaneFit struct {
	// Corners is how many card corners the picture showed, Agreeing how
	// many of them the plane makes right angles of (within 2.5°).
	Corners, Agreeing int
	// Perspective: the view was rectified from the corners; false means
	// too few corners agreed, and the picture was taken as the plane.
	Perspective bool
	// PxPerMM is the picture's scale at its centre: given, or from the
	// cards' edges.
	PxPerMM float64
}

// Colour bounds (OpenCV HSV) of the paper whose outlines give a still's
// card corners: wider than the detector's (paperLo, paperHi), to take in
// cream and tinted paper whole, and still well clear of felt, which is
// saturated, and of the layout's gold ink.
var (
	stillPaperLo = gocv.NewScalar(0, 0, 110, 0)
	stillPaperHi = gocv.NewScalar(180, 110, 255, 0)
)

// Limits on what counts as a card's corner in a still's outlines, in
// pixels and degrees. A card at 1 px/mm is 63×88 px.
const (
	stillMinBlob  = 1500.0 // px²: a smaller blob of paper is a chip or printing
	stillPolyTol  = 1.5    // px: how far a blob's polygon strays from its outline
	stillMinEdge  = 14.0   // px: the shortest straight edge of a corner
	stillMaxTurn  = 40.0   // degrees: how far off a right angle a corner may look in a view up to 30° oblique
	stillAgreeDeg = 2.5    // degrees: a rectified corner this close to 90° agrees
	minCorners    = 8      // corners that must agree for the view to be rectified
)

// Plane is a still's table plane found from its cards, up to its scale:
// the scales the cards' edges suggest are its candidates.
type Plane struct {
	Fit PlaneFit
	// Scales are the candidate scales at the picture's centre, px/mm,
	// the likeliest first.
	Scales []float64
	w, h   int
	nz     normaliser
	hr     [3][3]float64 // normalised picture → a plane similar to the table
	j      float64       // hr's area scale at the centre
	pairs  []linePair    // the card corners the plane was found from
	// Alt is the plane refined (refinePlane) where that stretches this
	// one by more than minAltStretch and no more than refineStretch:
	// within what the corners' noise moves a plane by, so neither is
	// surely the better; ReadStill reads the still on it too where this
	// one reads a card twice. Nil otherwise.
	Alt *Plane
}

// minAltStretch is the least stretch between a still's plane and the
// plane refined that gives the still a second plane to be read on
// (Plane.Alt): 2%, some 1 mm along a card's half length.
const minAltStretch = 0.02

// FindPlane finds the table plane of a still with no calibration: from
// its card corners when enough show in two or more directions, otherwise
// taking the picture as the plane. Its millimetres have X along the
// picture's x at its centre. The plane the corners' right angles fix is
// refined where it may be stretched (refinePlane): the refined plane
// replaces it where they differ by more than refineStretch, and is its
// Alt where they differ by less.
func FindPlane(img gocv.Mat) (*Plane, error) {
	if img.Empty() || img.Type() != gocv.MatTypeCV8UC3 {
		return nil, errors.New("vision: want an 8-bit BGR picture")
	}
	w, h := img.Cols(), img.Rows()
	p := &Plane{w: w, h: h, nz: normaliser{cx: float64(w) / 2, cy: float64(h) / 2, s: float64(max(w, h)) / 2}, hr: identity3()}
	pairs := stillCorners(img, p.nz, false)
	r, n, ok := rightAngles(pairs)
	if !ok {
		// A deck whose corners are rounded widely, or drawn with a soft
		// shadow, shows few corners but where its cards lie whole.
		wide := stillCorners(img, p.nz, true)
		if rw, nw, okw := rightAngles(wide); okw {
			pairs, r, n, ok = wide, rw, nw, true
		}
	}
	p.pairs = pairs
	p.Fit.Corners = len(pairs)
	if ok {
		f, stretch := refined(r, pairs)
		switch {
		case stretch > refineStretch:
			r, n = f, len(agreeingWith(f, pairs))
		case stretch > minAltStretch:
			p.Alt = p.rectifiedBy(f)
		}
		p.hr, p.Fit.Perspective, p.Fit.Agreeing = r, true, n
	}
	p.setPlane(p.hr, pairs)
	return p, nil
}

// rightAngles returns the rectification that makes right angles of the
// most corners of pairs, and how many: none where fewer than minCorners
// agree or they fix no plane.
func rightAngles(pairs []linePair) ([3][3]float64, int, bool) {
	c, n, ok := fitRightAngles(pairs)
	if !ok || n < minCorners {
		return [3][3]float64{}, 0, false
	}
	r, ok := rectifier(c)
	return r, n, ok
}

// rectifiedBy returns a copy of p rectified by hr instead (setPlane),
// with no Alt, and the corners hr makes right angles of.
func (p *Plane) rectifiedBy(hr [3][3]float64) *Plane {
	q := *p
	q.Alt = nil
	q.setPlane(hr, p.pairs)
	q.Fit.Perspective, q.Fit.Agreeing = true, len(agreeingWith(q.hr, p.pairs))
	return &q
}

// setPlane sets p's rectification to hr, turned upright, and the scales
// the cards' edges (pairs) suggest on it.
func (p *Plane) setPlane(hr [3][3]float64, pairs []linePair) {
	p.hr = upright(hr)
	p.j = jacobianDet(p.hr, [2]float64{0, 0})
	p.Scales = nil
	for _, k := range cardScales(pairs, p.hr) {
		p.Scales = append(p.Scales, p.pxPerMM(k))
	}
}

// pxPerMM is the centre's scale when k units of hr are a mm: a mm is
// k/√j normalised units, k·s/√j pixels.
func (p *Plane) pxPerMM(k float64) float64 { return k * p.nz.s / math.Sqrt(p.j) }

// Calibration is the plane at scale pxPerMM (at the picture's centre):
// a table with the picture's size and no zones.
func (p *Plane) Calibration(pxPerMM float64) (*calibration.Calibration, error) {
	if !(pxPerMM > 0) {
		return nil, fmt.Errorf("vision: scale %v px/mm", pxPerMM)
	}
	k := pxPerMM * math.Sqrt(p.j) / p.nz.s
	toMM := func(x, y float64) calibration.Point {
		q := apply3(p.hr, p.nz.in(x, y))
		return calibration.Point{X: q[0] / k, Y: q[1] / k}
	}
	return planeCalibration(p.w, p.h, toMM)
}

// EstimatePlane returns the calibration of a still with no table file:
// its plane (FindPlane) at scale pxPerMM when that is positive, or else
// at the likeliest scale its cards' edges suggest.
func EstimatePlane(img gocv.Mat, pxPerMM float64) (*calibration.Calibration, PlaneFit, error) {
	p, err := FindPlane(img)
	if err != nil {
		return nil, PlaneFit{}, err
	}
	if pxPerMM <= 0 {
		if len(p.Scales) == 0 {
			return nil, p.Fit, errNoScale
		}
		pxPerMM = p.Scales[0]
	}
	p.Fit.PxPerMM = pxPerMM
	cal, err := p.Calibration(pxPerMM)
	return cal, p.Fit, err
}

var errNoScale = errors.New("vision: no card edges to tell the scale by: give the scale (--px-per-mm)")

// normaliser maps picture pixels to coordinates of about ±1, which keep
// the line and conic arithmetic well conditioned.
type normaliser struct{ cx, cy, s float64 }

func (n normaliser) in(x, y float64) [2]float64 {
	return [2]float64{(x - n.cx) / n.s, (y - n.cy) / n.s}
}

// stillCorners finds the card corners in the outlines of a still's
// paper (stillPaperLo..Hi): places where two straight edges of an
// outline meet, convex, at something near a right angle, with wide
// roundings between them too where wide is set (polygonCorners). It
// returns each corner's two edges as lines, with their ends.
func stillCorners(img gocv.Mat, nz normaliser, wide bool) []linePair {
	hsv := gocv.NewMat()
	defer hsv.Close()
	gocv.CvtColor(img, &hsv, gocv.ColorBGRToHSV)
	paper := gocv.NewMat()
	defer paper.Close()
	gocv.InRangeWithScalar(hsv, stillPaperLo, stillPaperHi, &paper)
	k := openingKernel()
	defer k.Close()
	gocv.MorphologyEx(paper, &paper, gocv.MorphOpen, k)
	contours := gocv.FindContours(paper, gocv.RetrievalExternal, gocv.ChainApproxNone)
	defer contours.Close()
	var pairs []linePair
	for i := range contours.Size() {
		c := contours.At(i)
		if gocv.ContourArea(c) < stillMinBlob {
			continue
		}
		poly := gocv.ApproxPolyDP(c, stillPolyTol, true)
		corners := polygonCorners(c.ToPoints(), poly.ToPoints(), nz, wide)
		poly.Close()
		if len(corners) >= 4 { // an outline that may be a card lying whole
			filled := paperShare(paper, c) >= paperFill
			for j := range corners {
				corners[j].paper = filled
			}
		}
		pairs = append(pairs, corners...)
	}
	return pairs
}

// paperShare is the share of the pixels within outline c that are
// paper (non-zero in mask paper).
func paperShare(paper gocv.Mat, c gocv.PointVector) float64 {
	r := gocv.BoundingRect(c).Intersect(image.Rect(0, 0, paper.Cols(), paper.Rows()))
	if r.Empty() {
		return 0
	}
	roi := paper.Region(r)
	defer roi.Close()
	inside := gocv.NewMatWithSize(r.Dy(), r.Dx(), gocv.MatTypeCV8U)
	defer inside.Close()
	inside.SetTo(gocv.NewScalar(0, 0, 0, 0))
	outline := gocv.NewPointsVectorFromPoints([][]image.Point{c.ToPoints()})
	defer outline.Close()
	gocv.FillPolyWithParams(&inside, outline, color.RGBA{255, 255, 255, 0}, gocv.Line8, 0, image.Pt(-r.Min.X, -r.Min.Y))
	n := gocv.CountNonZero(inside)
	if n == 0 {
		return 0
	}
	gocv.BitwiseAnd(inside, roi, &inside)
	return float64(gocv.CountNonZero(inside)) / float64(n)
}

// polygonCorners finds the corners of one outline's polygon: each long
// edge and the next long edge after it, when only a short run of
// polygon lies between them, and they turn the polygon's way by about a
// right angle. Each edge is fitted to the outline's own points along
// it. With wide, a run that rounds a corner (roundedCorner) may lie
// between them too, and a piece of a rounding as long as an edge is
// passed over. Wide roundings show a widely rounded deck's corners, but
// also corners whose edges are too short to fit well.
func polygonCorners(outline, poly []image.Point, nz normaliser, wide bool) []linePair {
	n := len(poly)
	if n < 3 {
		return nil
	}
	var area float64
	for i := range poly {
		a, b := poly[i], poly[(i+1)%n]
		area += float64(a.X*b.Y - b.X*a.Y)
	}
	type edge struct {
		i    int // from poly[i] to poly[i+1]
		line [3]float64
		dir  [2]float64
		len  float64
		ends [2][2]float64
	}
	var long []edge
	for i := range poly {
		a, b := poly[i], poly[(i+1)%n]
		l := math.Hypot(float64(b.X-a.X), float64(b.Y-a.Y))
		if l < stillMinEdge {
			continue
		}
		line, ok := fitEdge(outline, a, b, nz)
		if !ok {
			continue
		}
		e := [2][2]float64{nz.in(float64(a.X), float64(a.Y)), nz.in(float64(b.X), float64(b.Y))}
		long = append(long, edge{i: i, line: line, dir: [2]float64{float64(b.X-a.X) / l, float64(b.Y-a.Y) / l}, len: l, ends: e})
	}
	// turn is the angle from a's direction to b's, in degrees, and
	// whether it turns the polygon's way.
	turn := func(a, b edge) (float64, bool) {
		dot := a.dir[0]*b.dir[0] + a.dir[1]*b.dir[1]
		cross := a.dir[0]*b.dir[1] - a.dir[1]*b.dir[0]
		return math.Acos(math.Max(-1, math.Min(1, dot))) * 180 / math.Pi, cross*area > 0
	}
	// A corner rounded widely can leave a piece of its rounding as long
	// as an edge: one shorter than half the edges either side, which
	// turn about a right angle the polygon's way, and turning part of
	// that from each. The edges either side are paired across it.
	if wide && len(long) > 3 {
		var edges []edge
		for j, b := range long {
			a, c := long[(j+len(long)-1)%len(long)], long[(j+1)%len(long)]
			ab, abOut := turn(a, b)
			bc, bcOut := turn(b, c)
			ac, acOut := turn(a, c)
			rounding := b.len < 0.5*math.Min(a.len, c.len) && abOut && bcOut && acOut &&
				math.Abs(ac-90) <= stillMaxTurn && math.Abs(ab+bc-ac) < 5
			if !rounding {
				edges = append(edges, b)
			}
		}
		long = edges
	}
	var pairs []linePair
	for j := range long {
		a, b := long[j], long[(j+1)%len(long)]
		if len(long) < 2 || (b.i-a.i+n)%n == 0 {
			continue
		}
		gap := 0.0 // polygon between a's end and b's start
		for k := (a.i + 1) % n; k != b.i; k = (k + 1) % n {
			q, r := poly[k], poly[(k+1)%n]
			gap += math.Hypot(float64(r.X-q.X), float64(r.Y-q.Y))
		}
		if gap > 0.3*math.Min(a.len, b.len) && !(wide && roundedCorner(poly[(a.i+1)%n], a.dir, poly[b.i], b.dir, gap, math.Min(a.len, b.len))) {
			continue
		}
		if deg, out := turn(a, b); !out || math.Abs(deg-90) > stillMaxTurn {
			continue // a concave corner (where two cards meet), or no right angle
		}
		cut := alongPicture(poly[a.i], poly[(a.i+1)%n], nz) || alongPicture(poly[b.i], poly[(b.i+1)%n], nz)
		pairs = append(pairs, linePair{l: a.line, m: b.line, le: a.ends, me: b.ends, cut: cut})
	}
	return pairs
}

// roundedCorner reports whether the polygon between an edge that ends
// at p, running along u, and the next that starts at q, running along v
// (gap long; the shorter of the two edges shorter long), is a card's
// rounded corner: the two edges' lines cross past both ends, each edge
// stopping short of the crossing by no more than the shorter edge's
// length and by at least 0.3 of the other's shortfall (the polygon puts
// its vertices anywhere along the rounding), and the rounding runs no
// longer than 1.3 quarter circles that meet the edges there. A card
// whose corners are rounded widely, or drawn with a soft shadow, rounds
// off more than the 0.3 of a short edge that polygonCorners allows
// otherwise, where a fan of cards shows a few millimetres of each.
func roundedCorner(p image.Point, u [2]float64, q image.Point, v [2]float64, gap, shorter float64) bool {
	den := u[0]*v[1] - u[1]*v[0]
	if math.Abs(den) < 0.5 { // some 30° off a right angle, or more
		return false
	}
	// p + s·u = q − t·v: s and t are how far short each edge stops.
	dx, dy := float64(q.X-p.X), float64(q.Y-p.Y)
	s := (dx*v[1] - dy*v[0]) / den
	t := (u[0]*dy - u[1]*dx) / den
	r := math.Max(s, t)
	return s > 0 && t > 0 && math.Min(s, t) >= 0.3*r && r <= shorter && gap <= 1.3*math.Pi/2*r
}

// alongPicture reports whether the polygon edge from a to b runs along
// one of the picture's edges (the picture normalised by nz), both its
// ends within a couple of pixels of it.
func alongPicture(a, b image.Point, nz normaliser) bool {
	const near = 2
	w, h := int(math.Round(2*nz.cx)), int(math.Round(2*nz.cy))
	lo := func(v int) bool { return v <= near }
	hi := func(v, max int) bool { return v >= max-1-near }
	return lo(a.X) && lo(b.X) || lo(a.Y) && lo(b.Y) || hi(a.X, w) && hi(b.X, w) || hi(a.Y, h) && hi(b.Y, h)
}

// fitEdge fits a line, by least squares, to the outline points that lie
// within 2 px of the polygon edge from a to b and in its middle 80%
// (clear of the corners' rounding). The line is normalised.
func fitEdge(outline []image.Point, a, b image.Point, nz normaliser) ([3]float64, bool) {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	l := math.Hypot(dx, dy)
	ux, uy := dx/l, dy/l
	var sx, sy, sxx, syy, sxy, cnt float64
	for _, p := range outline {
		px, py := float64(p.X-a.X), float64(p.Y-a.Y)
		t := px*ux + py*uy
		if t < 0.1*l || t > 0.9*l || math.Abs(-px*uy+py*ux) > 2 {
			continue
		}
		q := nz.in(float64(p.X), float64(p.Y))
		sx, sy, sxx, syy, sxy, cnt = sx+q[0], sy+q[1], sxx+q[0]*q[0], syy+q[1]*q[1], sxy+q[0]*q[1], cnt+1
	}
	if cnt < 5 {
		return [3]float64{}, false
	}
	mx, my := sx/cnt, sy/cnt
	cxx, cyy, cxy := sxx/cnt-mx*mx, syy/cnt-my*my, sxy/cnt-mx*my
	// The line's direction is the covariance's major axis; its normal
	// the minor one.
	th := 0.5 * math.Atan2(2*cxy, cxx-cyy)
	nx, ny := -math.Sin(th), math.Cos(th)
	return [3]float64{nx, ny, -(nx*mx + ny*my)}, true
}

// constraint is the row of the linear system in the dual conic's six
// entries (a, b, c, d, e, f of [[a b/2 d/2] [b/2 c e/2] [d/2 e/2 f]])
// that says lines l and m are perpendicular on the plane: lᵀ C m = 0.
func constraint(p linePair) [6]float64 {
	l, m := p.l, p.m
	return [6]float64{l[0] * m[0], (l[0]*m[1] + l[1]*m[0]) / 2, l[1] * m[1], (l[0]*m[2] + l[2]*m[0]) / 2, (l[1]*m[2] + l[2]*m[1]) / 2, l[2] * m[2]}
}

// conicFrom solves the dual conic from pairs by least squares: the
// eigenvector of the smallest eigenvalue of Σ rowᵀrow.
func conicFrom(pairs []linePair) [3][3]float64 {
	var m [6][6]float64
	for _, p := range pairs {
		r := constraint(p)
		for i := range 6 {
			for j := range 6 {
				m[i][j] += r[i] * r[j]
			}
		}
	}
	a := make([][]float64, 6)
	for i := range a {
		a[i] = m[i][:]
	}
	vals, vecs := eigenSym(a)
	best := 0
	for i := range vals {
		if vals[i] < vals[best] {
			best = i
		}
	}
	v := make([]float64, 6)
	for i := range 6 {
		v[i] = vecs[i][best]
	}
	return [3][3]float64{{v[0], v[1] / 2, v[3] / 2}, {v[1] / 2, v[2], v[4] / 2}, {v[3] / 2, v[4] / 2, v[5]}}
}

// fitRightAngles finds the dual conic that most corners agree with:
// conics from random fives of corners, the one most agree with, then
// refitted to those that agree, twice. It returns the conic and how many
// agree.
func fitRightAngles(pairs []linePair) ([3][3]float64, int, bool) {
	if len(pairs) < 5 {
		return [3][3]float64{}, 0, false
	}
	rng := rand.New(rand.NewPCG(uint64(len(pairs)), 23)) // the same picture gives the same fit
	var best []linePair
	sample := make([]linePair, 5)
	for range 300 {
		for i := range sample {
			sample[i] = pairs[rng.IntN(len(pairs))]
		}
		if in := agreeing(conicFrom(sample), pairs); len(in) > len(best) {
			best = in
		}
	}
	if len(best) < 5 {
		return [3][3]float64{}, 0, false
	}
	c := conicFrom(best)
	for range 2 {
		in := agreeing(c, pairs)
		if len(in) < 5 {
			break
		}
		best, c = in, conicFrom(in)
	}
	return c, len(best), true
}

// agreeing returns the pairs that the plane of conic c makes right
// angles of.
func agreeing(c [3][3]float64, pairs []linePair) []linePair {
	h, ok := rectifier(c)
	if !ok {
		return nil
	}
	return agreeingWith(h, pairs)
}

// mulT returns mᵀ·v.
func mulT(m [3][3]float64, v [3]float64) [3]float64 {
	var out [3]float64
	for i := range 3 {
		for j := range 3 {
			out[i] += m[j][i] * v[j]
		}
	}
	return out
}

// rectifier turns a dual conic C = K·diag(1,1,0)·Kᵀ into the homography
// K⁻¹ that rectifies the plane up to a similarity. It fails unless C has
// two positive eigenvalues (of one sign, after C's sign is chosen) and a
// third near zero.
func rectifier(c [3][3]float64) ([3][3]float64, bool) {
	a := [][]float64{c[0][:], c[1][:], c[2][:]}
	vals, vecs := eigenSym(a)
	order := []int{0, 1, 2}
	slices.SortFunc(order, func(i, j int) int { return cmpF(math.Abs(vals[j]), math.Abs(vals[i])) })
	l1, l2, l3 := vals[order[0]], vals[order[1]], vals[order[2]]
	if l1 < 0 {
		l1, l2, l3 = -l1, -l2, -l3
	}
	if l2 <= 0.1*l1 || math.Abs(l3) > 0.3*l2 {
		return [3][3]float64{}, false
	}
	var h [3][3]float64
	for r, k := range order {
		s := 1.0
		switch r {
		case 0:
			s = 1 / math.Sqrt(l1)
		case 1:
			s = 1 / math.Sqrt(l2)
		}
		for col := range 3 {
			h[r][col] = s * vecs[col][k]
		}
	}
	return h, true
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// upright turns h so that it keeps the picture's handedness (a mirrored
// table would show every index mirrored), maps the picture's centre to
// the front of the plane, and maps the picture's x axis at its centre to
// +X.
func upright(h [3][3]float64) [3][3]float64 {
	if h[2][2] < 0 { // the centre's w: a point reflection is a similarity
		for r := range 3 {
			for c := range 3 {
				h[r][c] = -h[r][c]
			}
		}
	}
	if jacobianDet(h, [2]float64{0, 0}) < 0 {
		for c := range 3 {
			h[0][c] = -h[0][c]
		}
	}
	const d = 1e-3
	p0, p1 := apply3(h, [2]float64{0, 0}), apply3(h, [2]float64{d, 0})
	a := math.Atan2(p1[1]-p0[1], p1[0]-p0[0])
	co, si := math.Cos(-a), math.Sin(-a)
	rot := [3][3]float64{{co, -si, 0}, {si, co, 0}, {0, 0, 1}}
	return mul3(rot, h)
}

// jacobianStep is the step, in normalised units, of differences.
const jacobianStep = 1e-4

// differences are how far h moves its image of normalised point p when
// p moves jacobianStep along x (dx) and along y (dy): its Jacobian at p,
// times jacobianStep.
func differences(h [3][3]float64, p [2]float64) (dx, dy [2]float64) {
	p0 := apply3(h, p)
	px := apply3(h, [2]float64{p[0] + jacobianStep, p[1]})
	py := apply3(h, [2]float64{p[0], p[1] + jacobianStep})
	return [2]float64{px[0] - p0[0], px[1] - p0[1]}, [2]float64{py[0] - p0[0], py[1] - p0[1]}
}

// jacobianDet is the area scale of h at normalised point p.
func jacobianDet(h [3][3]float64, p [2]float64) float64 {
	dx, dy := differences(h, p)
	return (dx[0]*dy[1] - dx[1]*dy[0]) / (jacobianStep * jacobianStep)
}

func apply3(h [3][3]float64, p [2]float64) [2]float64 {
	w := h[2][0]*p[0] + h[2][1]*p[1] + h[2][2]
	return [2]float64{(h[0][0]*p[0] + h[0][1]*p[1] + h[0][2]) / w, (h[1][0]*p[0] + h[1][1]*p[1] + h[1][2]) / w}
}

func identity3() [3][3]float64 { return [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} }

func mul3(a, b [3][3]float64) [3][3]float64 {
	var out [3][3]float64
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				out[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return out
}

func invert3(m [3][3]float64) ([3][3]float64, bool) {
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	if det == 0 || math.IsNaN(det) {
		return [3][3]float64{}, false
	}
	var inv [3][3]float64
	for i := range 3 {
		for j := range 3 {
			a, b := (j+1)%3, (j+2)%3
			c, d := (i+1)%3, (i+2)%3
			inv[i][j] = (m[a][c]*m[b][d] - m[a][d]*m[b][c]) / det
		}
	}
	return inv, true
}

// eigenSym diagonalises a small symmetric matrix by Jacobi rotations:
// the eigenvalues, and the eigenvectors as the columns of vecs.
func eigenSym(a [][]float64) (vals []float64, vecs [][]float64) {
	n := len(a)
	m := make([][]float64, n)
	vecs = make([][]float64, n)
	for i := range n {
		m[i] = slices.Clone(a[i])
		vecs[i] = make([]float64, n)
		vecs[i][i] = 1
	}
	for range 100 {
		off := 0.0
		for i := range n {
			for j := i + 1; j < n; j++ {
				off += m[i][j] * m[i][j]
			}
		}
		if off < 1e-30 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				if m[p][q] == 0 {
					continue
				}
				th := (m[q][q] - m[p][p]) / (2 * m[p][q])
				t := math.Copysign(1, th) / (math.Abs(th) + math.Sqrt(th*th+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n {
					mkp, mkq := m[k][p], m[k][q]
					m[k][p], m[k][q] = c*mkp-s*mkq, s*mkp+c*mkq
				}
				for k := range n {
					mpk, mqk := m[p][k], m[q][k]
					m[p][k], m[q][k] = c*mpk-s*mqk, s*mpk+c*mqk
				}
				for k := range n {
					vkp, vkq := vecs[k][p], vecs[k][q]
					vecs[k][p], vecs[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	vals = make([]float64, n)
	for i := range n {
		vals[i] = m[i][i]
	}
	return vals, vecs
}

// cardScales suggests how many units of the rectified plane h a mm is,
// likeliest first, from the cards' whole edges: an edge that runs from
// one right-angled corner of an outline to the next is a card's whole
// edge (in a dealt hand, the first card's near edges and the last card's
// far ones), where an edge that ends where it meets another card is a
// part. A whole edge is 63 or 88 mm less its rounded ends and any
// printed border (edgeLossMM), so it suggests both scales, unless the
// other whole edge at one of its corners shows which it is; the scale
// most edges suggest (to 4%) is the likeliest. With no whole edge, every
// right-angled corner's edges make the suggestions.
func cardScales(pairs []linePair, h [3][3]float64) []float64 {
	ends := map[[2][2]float64]int{}
	agree := agreeingWith(h, pairs)
	for _, p := range agree {
		ends[p.le]++
		ends[p.me]++
	}
	var whole, any []float64
	for e, n := range ends {
		l := edgeLength(h, e)
		if l <= 0 {
			continue
		}
		v := []float64{math.Log(l / (cardW - edgeLossMM)), math.Log(l / (cardH - edgeLossMM))}
		any = append(any, v...)
		if n >= 2 {
			whole = append(whole, v...)
		}
	}
	// A corner whose two edges are both whole tells which is the long
	// one: its suggestion counts thrice.
	for _, p := range agree {
		if ends[p.le] < 2 || ends[p.me] < 2 {
			continue
		}
		a, b := edgeLength(h, p.le), edgeLength(h, p.me)
		long, short := math.Max(a, b), math.Min(a, b)
		if r := long / short; r > 1.25 && r < 1.65 {
			v := math.Log((long/(cardH-edgeLossMM) + short/(cardW-edgeLossMM)) / 2)
			whole = append(whole, v, v, v)
		}
	}
	if len(whole) == 0 {
		whole = any
	}
	var out []float64
	for _, c := range clusters(whole, 0.04) {
		out = append(out, math.Exp(c))
	}
	return out
}

// edgeLossMM is how much shorter a card's whole edge is in the polygon
// of its paper's outline: the polygon cuts the rounded corners, and a
// printed frame or border eats into the paper (measured on the gnome
// decks).
const edgeLossMM = 4

// clusters groups xs into runs whose neighbours lie within w of each
// other (and span at most 2w), and returns each run's mean, the runs
// with more members first (the larger mean first among equals).
func clusters(xs []float64, w float64) []float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	type run struct {
		mean float64
		n    int
	}
	var runs []run
	for i := 0; i < len(xs); {
		j := i + 1
		for j < len(xs) && xs[j]-xs[j-1] <= w && xs[j]-xs[i] <= 2*w {
			j++
		}
		sum := 0.0
		for _, x := range xs[i:j] {
			sum += x
		}
		runs = append(runs, run{sum / float64(j-i), j - i})
		i = j
	}
	slices.SortStableFunc(runs, func(a, b run) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return cmpF(b.mean, a.mean)
	})
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.mean
	}
	return out
}

// agreeingWith returns the pairs that rectified plane h makes right
// angles of, within stillAgreeDeg.
func agreeingWith(h [3][3]float64, pairs []linePair) []linePair {
	hit, ok := invert3(h)
	if !ok {
		return nil
	}
	var out []linePair
	for _, p := range pairs {
		if offRight(hit, p) < stillAgreeDeg {
			out = append(out, p)
		}
	}
	return out
}

// offRight is how far off a right angle, in degrees, corner p lies on
// the plane whose homography's inverse is hit.
func offRight(hit [3][3]float64, p linePair) float64 {
	// Lines map by the inverse transpose.
	l, m := mulT(hit, p.l), mulT(hit, p.m)
	cos := math.Abs(l[0]*m[0]+l[1]*m[1]) / (math.Hypot(l[0], l[1]) * math.Hypot(m[0], m[1]))
	return math.Asin(math.Min(1, cos)) * 180 / math.Pi
}

// edgeLength is the length on plane h of the edge with normalised ends e.
func edgeLength(h [3][3]float64, e [2][2]float64) float64 {
	a, b := apply3(h, e[0]), apply3(h, e[1])
	return math.Hypot(b[0]-a[0], b[1]-a[1])
}

// planeCalibration makes the calibration of a w×h picture whose pixels
// lie on the table at toMM: fitted to the picture's corners and centre,
// with no lens term.
func planeCalibration(w, h int, toMM func(x, y float64) calibration.Point) (*calibration.Calibration, error) {
	t := &calibration.Table{Version: 1, Units: "mm", ImageWidth: w, ImageHeight: h}
	var pts []calibration.Correspondence
	for _, p := range [][2]float64{{0, 0}, {float64(w), 0}, {float64(w), float64(h)}, {0, float64(h)}, {float64(w) / 2, float64(h) / 2}} {
		pts = append(pts, calibration.Correspondence{Table: toMM(p[0], p[1]), X: p[0], Y: p[1]})
	}
	cal, err := calibration.FromCorrespondences(t, pts)
	if err != nil {
		return nil, fmt.Errorf("vision: the plane found: %w", err)
	}
	return cal, nil
}

// wholeCorners returns the corners of the outlines in pairs that are
// four corners whose edges run from one to the next, filled with paper:
// the outlines of face-up cards that lie whole, with a card's
// proportions. (Two cards that meet make an outline of more corners, or
// of corners joined by no edge; a shoe or a discard tray is no paper
// within.)
func wholeCorners(pairs []linePair) []linePair {
	next := map[[2][2]float64]int{} // an edge → the corner it leaves from
	for i, p := range pairs {
		next[p.le] = i
	}
	var out []linePair
	for _, p := range pairs {
		c, ok := p, true
		for range 4 {
			var i int
			if i, ok = next[c.me]; !ok {
				break
			}
			c = pairs[i]
		}
		if ok && c == p && p.paper {
			out = append(out, p)
		}
	}
	return out
}

// edgeCorners returns the corners of the outlines in pairs both of whose
// edges run whole to the outline's next corners, in outlines filled
// with paper: where two edges of a face-up card show whole, with a
// card's proportions. The top card of a hand fanned over another, whose
// far edges run over the card beneath, shows one such corner, and the
// card beneath another. (Where two cards meet, their edges meet at a
// concave corner, and neither runs whole; where the picture cuts a card
// off, its outline runs along the picture's edge, and the edges to it
// are cut short.) An edge may run whole along two cards lying in line;
// refinePlane takes these corners only where no card lies whole.
func edgeCorners(pairs []linePair) []linePair {
	// The edges the outlines' corners arrive along (l), and leave along
	// (m): an edge runs whole from one corner to the next where it is
	// both. A corner on the picture's edge counts for none: an edge
	// running to it is cut short.
	arrived, left := map[[2][2]float64]bool{}, map[[2][2]float64]bool{}
	for _, p := range pairs {
		if !p.cut {
			arrived[p.le], left[p.me] = true, true
		}
	}
	var out []linePair
	for _, p := range pairs {
		if p.paper && !p.cut && left[p.le] && arrived[p.me] {
			out = append(out, p)
		}
	}
	return out
}

// Scales of the costs refinePlane minimises: a corner's angle off a
// right angle, in degrees; a whole corner's edges' ratio off a card's,
// as a log; and the plane's stretch of the picture's centre, as a log (a
// camera 30° oblique stretches it by some 15%).
const (
	refineAngleDeg = stillAgreeDeg
	refineAspect   = 0.05
	refineStretch  = 0.1
)

// refinePlane adjusts rectified plane h so that every corner stays as
// near a right angle as it can while the face-up cards lying whole
// (wholeCorners) show a card's proportions and the picture's centre is
// stretched little. Right angles alone leave the plane free to stretch
// along the cards' edges where most cards lie turned alike, as on a
// dealt table: edges a few tenths of a degree off then stretch it by a
// tenth or more, and the corners of a single hand by half. A whole
// card's two edges pin that stretch; where none lies whole, the corners
// whose two edges show whole (edgeCorners: the top card of a hand, the
// outer corner of the card beneath), and the picture's own proportions,
// which a camera up to 30° oblique keeps to some 15%. The corners' costs
// are robust (Cauchy): an outline's corner where two cards meet counts
// little.
func refinePlane(h [3][3]float64, pairs []linePair, diags ...cardDiagonal) [3][3]float64 {
	whole := wholeCorners(pairs)
	if len(whole) == 0 {
		whole = edgeCorners(pairs)
	}
	// Centre the plane on the picture's centre at unit area scale, so
	// that the parameters below act alike on any picture.
	c := apply3(h, [2]float64{0, 0})
	s := 1 / math.Sqrt(math.Abs(jacobianDet(h, [2]float64{0, 0})))
	h0 := mul3([3][3]float64{{s, 0, -s * c[0]}, {0, s, -s * c[1]}, {0, 0, 1}}, h)
	// x: a skew and a stretch (the affine part a similarity leaves),
	// and the line at infinity's tilt (the projective part).
	at := func(x []float64) [3][3]float64 {
		a := [3][3]float64{{math.Exp(x[1]), x[0], 0}, {0, 1, 0}, {0, 0, 1}}
		p := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {x[2], x[3], 1}}
		return mul3(a, mul3(p, h0))
	}
	wantAspect := math.Log((cardH - edgeLossMM) / (cardW - edgeLossMM))
	cost := func(x []float64) float64 {
		hx := at(x)
		hit, ok := invert3(hx)
		if !ok {
			return math.Inf(1)
		}
		sum := 0.0
		for _, p := range pairs {
			d := offRight(hit, p) / refineAngleDeg
			sum += math.Log1p(d * d)
		}
		for _, p := range whole {
			a, b := edgeLength(hx, p.le), edgeLength(hx, p.me)
			if !(a > 0 && b > 0) {
				return math.Inf(1)
			}
			d := (math.Abs(math.Log(a/b)) - wantAspect) / refineAspect
			sum += math.Log1p(d * d)
		}
		for _, dg := range diags {
			for _, end := range [2][3][2]float64{{dg.a, dg.b, dg.as}, {dg.b, dg.a, dg.bs}} {
				d := (angleAt(hx, end[0], end[1], end[2]) - diagonalDeg) / refineDiagonalDeg
				sum += math.Log1p(d * d)
			}
		}
		d := stretchAt(hx, [2]float64{0, 0}) / refineStretch
		return sum + d*d
	}
	x := nelderMead(cost, make([]float64, 4), 0.05, 400)
	return at(x)
}

// cardDiagonal is a card read at two opposite index corners, in the
// picture's normalised coordinates: the corners a and b, and a point
// along the short edge from each (as, bs). On the table its diagonal
// makes diagonalDeg with its short edge at either corner, as a whole
// card's edges hold its proportions.
type cardDiagonal struct{ a, b, as, bs [2]float64 }

// diagonalDeg is the angle between a card's diagonal and its short edge.
var diagonalDeg = math.Atan2(cardH, cardW) * 180 / math.Pi

// refineDiagonalDeg is the scale of refinePlane's cost of a diagonal's
// angle off diagonalDeg: the angle a card's proportions refineAspect off
// move it by (d/dr atan r = sin 2θ / 2), so that a card read at two
// opposite corners counts as a whole card does.
var refineDiagonalDeg = refineAspect * math.Sin(2*diagonalDeg*math.Pi/180) / 2 * 180 / math.Pi

// angleAt is the angle at o, on plane h, between the directions to p and
// to q, in degrees.
func angleAt(h [3][3]float64, o, p, q [2]float64) float64 {
	a, b, c := apply3(h, o), apply3(h, p), apply3(h, q)
	u, v := [2]float64{b[0] - a[0], b[1] - a[1]}, [2]float64{c[0] - a[0], c[1] - a[1]}
	return math.Abs(math.Atan2(u[0]*v[1]-u[1]*v[0], u[0]*v[0]+u[1]*v[1])) * 180 / math.Pi
}

// withDiagonals returns p refined (refinePlane) so that the cards read at
// two opposite index corners, diags (picture pixels: each corner, and a
// point along the short edge from it), show a card's proportions too.
func (p *Plane) withDiagonals(diags [][4]calibration.Point) *Plane {
	var ds []cardDiagonal
	for _, d := range diags {
		ds = append(ds, cardDiagonal{a: p.nz.in(d[0].X, d[0].Y), as: p.nz.in(d[1].X, d[1].Y), b: p.nz.in(d[2].X, d[2].Y), bs: p.nz.in(d[3].X, d[3].Y)})
	}
	return p.rectifiedBy(refinePlane(p.hr, p.pairs, ds...))
}

// refined is rectified plane h refined (refinePlane), and how far that
// stretches it (stretchAt, at the picture's centre; 0 where h has no
// inverse).
func refined(h [3][3]float64, pairs []linePair) ([3][3]float64, float64) {
	r := refinePlane(h, pairs)
	hi, ok := invert3(h)
	if !ok {
		return h, 0
	}
	return r, stretchAt(mul3(r, hi), apply3(h, [2]float64{0, 0}))
}

// stretchAt is how far h stretches the plane at point p: the log of the
// ratio of its Jacobian's singular values there.
func stretchAt(h [3][3]float64, p [2]float64) float64 {
	dx, dy := differences(h, p)
	const d = jacobianStep
	a, b := dx[0]/d, dy[0]/d
	c, e := dx[1]/d, dy[1]/d
	s := a*a + b*b + c*c + e*e
	det := math.Abs(a*e - b*c)
	disc := math.Sqrt(math.Max(0, s*s-4*det*det))
	return 0.5 * math.Log((s+disc)/(s-disc))
}

// nelderMead minimises f from x0 by the Nelder–Mead simplex, its first
// simplex step from x0 along each axis, for at most iters iterations.
func nelderMead(f func([]float64) float64, x0 []float64, step float64, iters int) []float64 {
	n := len(x0)
	pts := make([][]float64, n+1)
	vals := make([]float64, n+1)
	for i := range pts {
		pts[i] = slices.Clone(x0)
		if i > 0 {
			pts[i][i-1] += step
		}
		vals[i] = f(pts[i])
	}
	order := make([]int, n+1)
	along := func(c, p []float64, t float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = c[i] + t*(p[i]-c[i])
		}
		return out
	}
	for range iters {
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(i, j int) int { return cmpF(vals[i], vals[j]) })
		best, worst, second := order[0], order[n], order[n-1]
		if vals[worst]-vals[best] < 1e-9 {
			break
		}
		centroid := make([]float64, n)
		for _, i := range order[:n] {
			for k := range centroid {
				centroid[k] += pts[i][k] / float64(n)
			}
		}
		r := along(centroid, pts[worst], -1)
		fr := f(r)
		switch {
		case fr < vals[best]:
			e := along(centroid, pts[worst], -2)
			if fe := f(e); fe < fr {
				pts[worst], vals[worst] = e, fe
			} else {
				pts[worst], vals[worst] = r, fr
			}
		case fr < vals[second]:
			pts[worst], vals[worst] = r, fr
		default:
			k := along(centroid, pts[worst], 0.5)
			if fk := f(k); fk < vals[worst] {
				pts[worst], vals[worst] = k, fk
				continue
			}
			for _, i := range order[1:] {
				pts[i] = along(pts[best], pts[i], 0.5)
				vals[i] = f(pts[i])
			}
		}
	}
	best := 0
	for i := range vals {
		if vals[i] < vals[best] {
			best = i
		}
	}
	return pts[best]
}

package vision

import (
	"image"
	"math"
	"slices"

	"bjmonitor/calibration"
)

// corner is a convex corner of a card outline in a rectified zone image:
// the corner point and the unit directions of its two edges, leaving the
// corner along the outline, ordered so that U×V > 0 (the card's own
// top-left index corner, seen the usual way up, has U along the top edge
// and V down the left edge).
type corner struct {
	P    calibration.Point
	U, V calibration.Point
	// Guessed: placed a set inset before an index's ink, not where edges
	// meet (indexJunctions), so its crop may be cut a couple of mm off.
	Guessed bool
	// NoIndex: the card's size shows this frame to be a card's top right
	// or bottom left corner, where the model reads no index: V runs along
	// a short edge or U along a long one (completedCorners). Its crop is
	// still read, for a card's back.
	NoIndex bool
}

// pt is the point (x, y): in mm on the table, or in pixels in a zone's
// rectified picture.
func pt(x, y float64) calibration.Point { return calibration.Point{X: x, Y: y} }

func cross(a, b calibration.Point) float64 { return a.X*b.Y - a.Y*b.X }
func dot(a, b calibration.Point) float64   { return a.X*b.X + a.Y*b.Y }

// fromImage is a pixel of an OpenCV outline as a point.
func fromImage(p image.Point) calibration.Point { return pt(float64(p.X), float64(p.Y)) }

// findCorners returns the card-like corners of a closed outline (a polygon
// approximation of a blob's contour, in pixels): where two straight edges
// of at least minEdge pixels meet at 90°±maxTurn degrees, turning the
// outline's convex way, with at most maxGap pixels of rounding (short
// edges) between them. The corner is where the two edges' lines cross, so
// a card's rounded corner gives the point its straight edges aim at.
func findCorners(poly []image.Point, minEdge, maxGap, maxTurnDeg float64) []corner {
	n := len(poly)
	if n < 3 {
		return nil
	}
	// The outline's orientation decides which turns are convex.
	orient := orientation(poly)
	long := longEdges(poly, minEdge)
	var out []corner
	cosMax := math.Cos((90 - maxTurnDeg) * math.Pi / 180)
	for k := range long {
		e1, e2 := long[k], long[(k+1)%len(long)]
		if len(long) == 1 {
			break
		}
		// The gap between them: the short edges skipped, as path length.
		gap := 0.0
		for j := (e1.j + 1) % n; j != e2.i; j = (j + 1) % n {
			gap += fromImage(poly[(j+1)%n]).Sub(fromImage(poly[j])).Len()
		}
		if gap > maxGap {
			continue
		}
		d1, d2 := e1.b.Sub(e1.a).Unit(), e2.b.Sub(e2.a).Unit()
		if math.Abs(dot(d1, d2)) > cosMax {
			continue // not near a right angle
		}
		if cross(d1, d2)*orient <= 0 {
			continue // concave: the inner corner of a fan's staircase
		}
		den := cross(d1, d2)
		t := cross(e2.a.Sub(e1.a), d2) / den
		p := e1.a.Add(d1.Scale(t))
		out = append(out, edgeCorner(p, e1, e2, poly, minEdge))
	}
	return out
}

// alongBorder reports whether one of a corner's edges is the border of
// the zone's picture (w×h pixels, r per mm): a card the border cuts off
// has no corner there, and a reading there would place it askew. Zones
// overlap by a card's length (Options.MarginMM), so another sees it whole.
func alongBorder(c corner, w, h int, r float64) bool {
	const parallel = 0.995 // within some 6°
	for _, e := range [2]calibration.Point{c.U, c.V} {
		if math.Abs(e.Y) > parallel && (c.P.X <= r || c.P.X >= float64(w-1)-r) {
			return true
		}
		if math.Abs(e.X) > parallel && (c.P.Y <= r || c.P.Y >= float64(h-1)-r) {
			return true
		}
	}
	return false
}

// orientation is +1 for an outline traced with positive area in image
// coordinates (clockwise on the screen), -1 for the other way.
func orientation(poly []image.Point) float64 {
	area := 0
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		area += a.X*b.Y - b.X*a.Y
	}
	if area < 0 {
		return -1
	}
	return 1
}

// edge is a straight edge of an outline, from a to b: its polygon's
// sides i to j (one side where i == j).
type edge struct {
	a, b calibration.Point
	i, j int
}

// bentCos is how far, as the cosine of the angle, a short side of an
// outline may turn from a longer edge next to it and still be part of
// that edge, bent: some 12°. A card's corner rounded over a few
// millimetres, or its edge bent slightly, can leave the outline's polygon
// a short side there. Two long sides that turn a little are two cards'
// edges, as along a dealer's row.
const bentCos = 0.978

// longEdges returns the edges of a closed outline at least minEdge long.
// A side shorter than twice minEdge, bent (bentCos) off a longer edge
// next to it, lengthens that edge, which keeps its direction.
func longEdges(poly []image.Point, minEdge float64) []edge {
	n := len(poly)
	var long []edge
	// joined returns e and f, sides in a row, as one edge, if one is a
	// short side bent off the other.
	joined := func(e, f edge) (edge, bool) {
		de, df := e.b.Sub(e.a), f.b.Sub(f.a)
		if dot(de.Unit(), df.Unit()) <= bentCos || math.Min(de.Len(), df.Len()) >= 2*minEdge {
			return edge{}, false
		}
		if de.Len() >= df.Len() {
			d := de.Unit()
			return edge{e.a, e.a.Add(d.Scale(dot(f.b.Sub(e.a), d))), e.i, f.j}, true
		}
		d := df.Unit()
		return edge{f.b.Sub(d.Scale(dot(f.b.Sub(e.a), d))), f.b, e.i, f.j}, true
	}
	for i := range poly {
		a, b := fromImage(poly[i]), fromImage(poly[(i+1)%n])
		if b.Sub(a).Len() < minEdge {
			continue
		}
		side := edge{a, b, i, i}
		if k := len(long) - 1; k >= 0 && long[k].j == i-1 {
			if e, ok := joined(long[k], side); ok {
				long[k] = e
				continue
			}
		}
		long = append(long, side)
	}
	// The outline closes: its last edge may run on into its first.
	if k := len(long) - 1; k > 0 && long[k].j == n-1 && long[0].i == 0 {
		if e, ok := joined(long[k], long[0]); ok {
			long[0] = e
			long = long[:k]
		}
	}
	return long
}

// skewed is how far from square, as the cosine of the angle between
// its edges, a corner's edges may be and still both be card edges: some
// 12°. A card's corner is square on the rectified table; a corner further
// off has one edge that is not the card's, most often the slanted side of
// a notch an index printed at the edge cuts into the paper's outline.
const skewed = 0.2

// edgeCorner is the corner at p where edge e1 of the outline poly
// arrives and e2 leaves. A corner further from square than skewed is
// squared to its longer edge: the shorter is a notch's side.
func edgeCorner(p calibration.Point, e1, e2 edge, poly []image.Point, reach float64) corner {
	d1, d2 := e1.b.Sub(e1.a).Unit(), e2.b.Sub(e2.a).Unit()
	c := cornerAt(p, d1, d2)
	if math.Abs(dot(d1, d2)) <= skewed {
		return c
	}
	keep := d2
	if e1.b.Sub(e1.a).Len() >= e2.b.Sub(e2.a).Len() {
		keep = d1.Scale(-1)
	}
	return squareTo(c, keep == c.U, poly, reach) // cornerAt puts -d1 or d2 in U as it is
}

// squareTo squares corner c to one of its edges, U where keepU: the
// other edge is taken to be a notch's side, and the card's own edge there
// to run square to the kept one, through the point of the outline that
// lies furthest back along the kept edge within reach of the corner (a
// notch only cuts into the paper).
func squareTo(c corner, keepU bool, poly []image.Point, reach float64) corner {
	keep, bent := c.U, c.V
	if !keepU {
		keep, bent = c.V, c.U
	}
	other := pt(-keep.Y, keep.X)
	if dot(other, bent) < 0 {
		other = other.Scale(-1)
	}
	shift := 0.0
	for _, q := range poly {
		d := fromImage(q).Sub(c.P)
		along, across := dot(d, keep), dot(d, other)
		if across >= 0 && across <= 2*reach && along > -reach/2 && along < shift {
			shift = along
		}
	}
	p := c.P.Add(keep.Scale(shift))
	if keepU {
		return corner{P: p, U: keep, V: other}
	}
	return corner{P: p, U: other, V: keep}
}

// cornerAt is the corner at p where an edge arriving along d1 meets one
// leaving along d2.
func cornerAt(p, d1, d2 calibration.Point) corner {
	u, v := d1.Scale(-1), d2 // leaving the corner: back along the first edge, on along the second
	if cross(u, v) < 0 {
		u, v = v, u
	}
	return corner{P: p, U: u, V: v}
}

// notchedCorners returns the card corners of an outline (as findCorners
// takes it, r pixels a mm) where an index printed at the very edge of the
// card notches the paper's outline: the outline wanders in and out near
// the corner, so its straight edges meet only after a detour longer than
// findCorners allows. Here two long edges at a right angle make a corner
// when the point their lines meet lies on the outline (within 3 mm: the
// corner's tip survives), both edges end within 12 mm of it, and every
// point of the outline between them lies inside the corner: a notch, not
// the step between two cards of a fan. Corners within 3 mm of one in have
// are left out.
func notchedCorners(poly []image.Point, have []corner, r float64) []corner {
	n := len(poly)
	if n < 4 {
		return nil
	}
	orient := orientation(poly)
	long := longEdges(poly, 7*r)
	cosMax := math.Cos(65 * math.Pi / 180)
	var out []corner
	for k, e1 := range long {
		for s := 1; s <= 3 && s < len(long); s++ {
			e2 := long[(k+s)%len(long)]
			d1, d2 := e1.b.Sub(e1.a).Unit(), e2.b.Sub(e2.a).Unit()
			den := cross(d1, d2)
			if math.Abs(dot(d1, d2)) > cosMax || den*orient <= 0 {
				continue
			}
			p := e1.a.Add(d1.Scale(cross(e2.a.Sub(e1.a), d2) / den))
			if p.Sub(e1.b).Len() > 12*r || e2.a.Sub(p).Len() > 12*r ||
				dot(p.Sub(e1.b), d1) < -r || dot(e2.a.Sub(p), d2) < -r {
				continue
			}
			// The card lies towards -d1 and d2 from the corner.
			inside := true
			for j := (e1.j + 1) % n; j != e2.i; j = (j + 1) % n {
				q := fromImage(poly[j]).Sub(p)
				inside = inside && dot(q, d1) <= r && dot(q, d2) >= -r
			}
			if !inside || distToPoly(poly, p) > 3*r {
				continue
			}
			c := edgeCorner(p, e1, e2, poly, 7*r)
			known := false
			for _, cs := range [2][]corner{have, out} {
				for _, h := range cs {
					known = known || h.P.Sub(c.P).Len() < 3*r
				}
			}
			if !known {
				out = append(out, c)
			}
			break
		}
	}
	return out
}

// steppedCorners returns the card corners of an outline (as findCorners
// takes it, r pixels a mm) where a card lies a few millimetres higher
// than the card beside it, over it: the outline runs along the higher
// card's top edge, rounds its corner, runs down its side edge only as far
// as the lower card's top edge, too short for findCorners, and then on
// along the lower card (stepCorner). Corners within 3 mm of one in have
// are left out. cloth is the zone's picture of the table's cloth (255
// where it shows): with none, no corner is found, as an index's ink and
// the felt cannot be told apart.
func steppedCorners(poly []image.Point, have []corner, r float64, cloth *greyPicture) []corner {
	if len(poly) < 4 || cloth == nil {
		return nil
	}
	const edgeMM = 15.0 // the edge a corner is on: most of a card's top edge
	orient := orientation(poly)
	var out []corner
	for _, e := range longEdges(poly, edgeMM*r) {
		for _, step := range [2]int{1, -1} {
			c, ok := stepCorner(poly, e, step, orient, r, *cloth)
			near := func(h corner) bool { return h.P.Sub(c.P).Len() < 3*r }
			if ok && !slices.ContainsFunc(have, near) && !slices.ContainsFunc(out, near) {
				out = append(out, c)
			}
		}
	}
	return out
}

// stepCorner returns the corner at an end of edge e of the outline poly
// (orient its orientation, r pixels a mm), walking on from the edge's end
// (step 1) or back from its start (step -1), where the outline there
// shows a card lying over a lower one (steppedCorners). From the edge's
// end, the outline must:
//   - round the convex way, within cornerGapMM, to a side running in,
//     square to the edge within 25°, for at least 1.5 mm: the card's side
//     edge;
//   - with the cloth beside that side edge, past it: beside a glyph
//     printed at the card's edge, which notches the outline the same way,
//     lies the glyph's ink;
//   - from the side edge's foot, head on along the edge (within 30°: the
//     cards of a hand lie at angles a little apart), and keep at least
//     1.5 mm below the edge's line until 12 mm on past the corner: the
//     lower card's edge. Past a glyph the outline comes back up to the
//     line, or turns down the card's own side edge.
//
// The corner is where the edge's line meets the side edge's, square to
// it, within 5 mm of the outline (a corner rounded over 7 mm or more
// leaves its tip that far off), in the frame cornerAt gives it.
func stepCorner(poly []image.Point, e edge, step int, orient, r float64, cloth greyPicture) (corner, bool) {
	const (
		stubMM    = 1.5  // the least of a side edge that shows a direction
		squareCos = 0.9  // within some 25° of square to the edge
		stepMinMM = 1.5  // how far below the edge's line the lower card lies, at least
		stepRunMM = 12.0 // and how far on past the corner
		tipMM     = 5.0  // the rounded corner's tip lies this close to the corner
	)
	from, end, k := e.a, e.b, e.j+1
	if step < 0 {
		from, end, k = e.b, e.a, e.i
	}
	// d is the way the outline arrives, in the way into the blob, to the
	// convex side.
	d := end.Sub(from).Unit()
	in := pt(-d.Y, d.X)
	if orient*float64(step) < 0 {
		in = in.Scale(-1)
	}
	at := func(k int) calibration.Point { return ringAt(poly, k) }
	// Round the corner to the first side running in. The edge's line is
	// taken through the last point of the outline along it, where the
	// rounding starts: a long edge's direction, carried on for some
	// millimetres, strays.
	round, last := false, end
	for j := 0; j < len(poly) && at(k).Sub(end).Len() <= cornerGapMM*r; j, k = j+1, k+step {
		side := at(k + step).Sub(at(k))
		if round = side.Len() >= stubMM*r && dot(side.Unit(), in) >= squareCos; round {
			break
		}
		if dot(side.Unit(), d) >= squareCos {
			last = at(k + step)
		}
	}
	if !round {
		return corner{}, false
	}
	// The side edge runs in as far as the lower card.
	s0 := at(k)
	for j := 0; j < len(poly) && dot(at(k+step).Sub(at(k)).Unit(), in) >= squareCos; j++ {
		k += step
	}
	s1 := at(k)
	mid := s0.Add(s1).Scale(0.5)
	p := last.Add(d.Scale(dot(mid.Sub(last), d)))
	if dot(s1.Sub(s0), in) < stubMM*r || dot(s0.Sub(p), in) > cornerGapMM*r/2 ||
		distToPoly(poly, p) > tipMM*r || !clothBeside(cloth, mid, d, r) || !leavesAlong(poly, k, step, d, r) {
		return corner{}, false
	}
	for j := 0; j < len(poly); j, k = j+1, k+step {
		q := at(k).Sub(p)
		if dot(q, in) < stepMinMM*r || dot(q, d) < -r {
			return corner{}, false
		}
		if dot(q, d) >= stepRunMM*r {
			return cornerAt(p, d, in), true
		}
	}
	return corner{}, false
}

// ringAt is point k of the closed polygon poly, k taken round it.
func ringAt(poly []image.Point, k int) calibration.Point {
	n := len(poly)
	return fromImage(poly[((k%n)+n)%n])
}

// clothBeside reports whether the cloth shows (in cloth, r pixels a mm)
// at four or more of six points: 1 and 2 mm on along d from p, and from
// the points 1 mm either side of p across d.
func clothBeside(cloth greyPicture, p, d calibration.Point, r float64) bool {
	across := pt(-d.Y, d.X)
	seen := 0
	for _, a := range [2]float64{1, 2} {
		for _, b := range [3]float64{-1, 0, 1} {
			q := p.Add(d.Scale(a * r)).Add(across.Scale(b * r))
			if v, ok := cloth.pixel(q); ok && v != 0 {
				seen++
			}
		}
	}
	return seen >= 4
}

// leavesAlong reports whether the outline poly (r pixels a mm), walked
// from its point k by step (1 or -1), heads along d (a unit vector,
// within 30°) to its first point 3 mm or more away.
func leavesAlong(poly []image.Point, k, step int, d calibration.Point, r float64) bool {
	from := ringAt(poly, k)
	for j := 1; j < len(poly); j++ {
		if w := ringAt(poly, k+j*step).Sub(from); w.Len() >= 3*r {
			return dot(w.Unit(), d) >= math.Cos(math.Pi/6)
		}
	}
	return false
}

// distToPoly is the distance from q to the closed polygon's nearest edge.
func distToPoly(poly []image.Point, q calibration.Point) float64 {
	best := math.Inf(1)
	for i := range poly {
		best = math.Min(best, distToEdge(poly, i, q))
	}
	return best
}

// distToEdge is the distance from q to the closed polygon's edge i, from
// poly[i] to the next point.
func distToEdge(poly []image.Point, i int, q calibration.Point) float64 {
	a, b := fromImage(poly[i]), fromImage(poly[(i+1)%len(poly)])
	ab := b.Sub(a)
	t := 0.0
	if l2 := dot(ab, ab); l2 > 0 {
		t = math.Max(0, math.Min(1, dot(q.Sub(a), ab)/l2))
	}
	return q.Sub(a.Add(ab.Scale(t))).Len()
}

// edgeWithin returns an edge of the closed polygon that passes within lim
// of q, trying edge from first, then the next ones in turn; ok is false
// when none does (distToPoly(poly, q) > lim).
func edgeWithin(poly []image.Point, q calibration.Point, lim float64, from int) (edge int, ok bool) {
	for k := range poly {
		if i := (from + k) % len(poly); distToEdge(poly, i, q) <= lim {
			return i, true
		}
	}
	return 0, false
}

// completedCorners returns the corners a card's own edge points to where
// the outline lost them: from each corner found, an edge of the outline
// that runs straight for nearly a card's width (cardW) or length (cardH)
// and then turns in, into the card, ends at the card's next corner, which
// lies exactly cardW or cardH along it. An index printed near the edge
// notches the outline there (a side edge with 14 mm of it on the felt
// breaks into pieces too short for findCorners), so the corner is placed
// by the card's size, not by the outline, in the frame the model reads
// there: at a card's top right or bottom left corner, that frame has no
// index (NoIndex). Corners within 4 mm of one in have are left
// out; the model reads the others, and answers none where no index is.
// sealed, where not nil, is the outline once the cuts such an index
// makes in the card's margin are closed (fillBlobs): a corner the glyphs
// cut off the outline as it is lies on that one. cloth, where not nil,
// is the zone's picture of the table's cloth (255 where it shows): an
// index printed over the corner itself, out to both edges, takes the
// corner off the outline by up to inkedMM, and the corner is taken there
// too where no cloth shows inside it (inkedCorner).
func completedCorners(poly []image.Point, have []corner, r float64, sealed []image.Point, cloth *greyPicture) []corner {
	n := len(poly)
	if n < 4 {
		return nil
	}
	const (
		onLine = 1.5 // mm: the outline keeps this close to the edge's line
		short  = 7.0 // mm: an edge may end this much short of the corner (its rounding, a notch)
		// An index printed against the edge eats the margin for its whole
		// width, up to notched mm: so far short, the corner is taken only
		// where the outline, broken by the glyphs, still passes within
		// nearMM of it.
		notched = 14.0
		nearMM  = 5.0
	)
	var out []corner
	known := func(p calibration.Point) bool {
		for _, cs := range [2][]corner{have, out} {
			for _, h := range cs {
				if h.P.Sub(p).Len() < 4*r {
					return true
				}
			}
		}
		return false
	}
	for _, c := range have {
		// The outline's vertex nearest the corner: the edges leave from
		// about there.
		i0, best := -1, 8*r
		for i, q := range poly {
			if d := fromImage(q).Sub(c.P).Len(); d < best {
				i0, best = i, d
			}
		}
		if i0 < 0 {
			continue
		}
		for _, e := range [2][2]calibration.Point{{c.U, c.V}, {c.V, c.U}} {
			along, side := e[0], e[1] // the edge followed, and the card's other edge from c
			reach, turnIn := 0.0, false
			for _, step := range [2]int{1, n - 1} { // forward and back along the outline
				far := 0.0
				for k, j := 1, (i0+step)%n; k < n; k, j = k+1, (j+step)%n {
					q := fromImage(poly[j]).Sub(c.P)
					if math.Abs(cross(along, q)) > onLine*r {
						// Left the line: it turns in when it heads into the card.
						if far > reach {
							reach, turnIn = far, dot(q, side) > 0
						}
						break
					}
					far = math.Max(far, dot(q, along))
				}
			}
			if !turnIn {
				continue
			}
			for _, size := range [2]float64{cardW, cardH} {
				if reach < (size-notched)*r || reach > (size+1)*r {
					continue
				}
				p := c.P.Add(along.Scale(size * r))
				if reach < (size-short)*r && distToPoly(poly, p) > nearMM*r && (sealed == nil || distToPoly(sealed, p) > nearMM*r) &&
					(cloth == nil || distToPoly(poly, p) > inkedMM*r || !inkedCorner(*cloth, p, along.Scale(-1), side, r)) {
					continue
				}
				if !known(p) {
					c := cornerAt(p, along, side)
					// The edge followed, size long, leaves the new corner
					// back along along: in U unless cornerAt turned the
					// frame. An index corner has its short edge in U.
					inU := cross(along.Scale(-1), side) >= 0
					c.NoIndex = inU != (size == cardW)
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// inkedMM is how far off a card's outline an index printed over the
// card's corner, out to both its edges, may take the corner: an index
// is some 10 mm wide.
const inkedMM = 10.0

// inkedCorner reports whether the card whose corner is p, its edges
// leaving along u and v (unit vectors, in pixels, r a mm), shows no
// cloth within 5 mm of the corner, in the zone's picture of the cloth:
// the corner is there, printed over, not cut off by the felt.
func inkedCorner(cloth greyPicture, p, u, v calibration.Point, r float64) bool {
	seen := 0
	for a := 1.0; a <= 5; a++ {
		for b := 1.0; b <= 5; b++ {
			q := p.Add(u.Scale(a * r)).Add(v.Scale(b * r))
			if v, ok := cloth.pixel(q); !ok || v != 0 {
				if seen++; seen > 2 {
					return false
				}
			}
		}
	}
	return true
}

// noIndexAt reports whether corner c of an outline (poly, r pixels a mm)
// can have no index. From the corner the outline runs straight along U
// for further than a card's short edge (cardW), so U runs along a long
// edge, and along V for a whole short edge (from 50 mm to a little over
// cardW) and no further: c is a card's top-right or bottom-left corner,
// where the right-handed frame that the model reads has no index.
//
// Both tests are needed. Cards in a row, as the dealer lays them, share
// straight edges, so a short edge can run on for long; and a corner
// squared to a notch (an index printed at the edge) has a V edge that is
// only the notch's side: were a V run of 10 mm enough, such an index
// corner would be left unread.
func noIndexAt(poly []image.Point, c corner, r float64) bool {
	const short = cardW + 7
	v := runAlong(poly, c.P, c.V, r, short+1)
	return v >= 50 && v <= short && runAlong(poly, c.P, c.U, r, short+1) > short
}

// runAlong is how far, in mm up to most, the outline poly runs
// straight from p along direction d (a unit vector; r pixels a mm).
func runAlong(poly []image.Point, p, d calibration.Point, r, most float64) float64 {
	const tol = 1.5 // mm off the line still on it
	// Each step is near the edge the last one was near, as a rule: that
	// edge is tried first.
	t, e := 0.0, 0
	for t < most {
		var ok bool
		if e, ok = edgeWithin(poly, p.Add(d.Scale((t+1)*r)), tol*r, e); !ok {
			break
		}
		t++
	}
	return t
}

package vision

import (
	"image"
	"math"
	"slices"

	"bjmonitor/calibration"
	"bjmonitor/cards"
)

// cardShape is a card the paper's outline shows, whatever is printed on
// it: its centre and long axis on the table, in mm.
type cardShape struct{ centre, v calibration.Point }

// local returns where table point p lies from the shape's centre, in mm:
// across its long axis, and along it.
func (s cardShape) local(p calibration.Point) (across, along float64) {
	v := s.v.Unit()
	d := p.Sub(s.centre)
	return dot(d, pt(-v.Y, v.X)), dot(d, v)
}

// corners returns the shape's four corners on the table.
func (s cardShape) corners() [4]calibration.Point {
	v := s.v.Unit()
	u := pt(-v.Y, v.X)
	var out [4]calibration.Point
	for i, k := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		out[i] = s.centre.Add(u.Scale(k[0] * cardW / 2)).Add(v.Scale(k[1] * cardH / 2))
	}
	return out
}

// What makes a paper shape a card, read or not (cardShapes, unreadShapes).
const (
	// oppositeCos: the two index corners of one card face opposite ways,
	// each edge within some 8° of the other's reversed.
	oppositeCos = -0.99
	// cornerNearMM: a reading this close to a shape's corner is of that
	// corner.
	cornerNearMM = 5.0
	// unreadClearMM: an unread card's centre lies at least this far from
	// any card read. The cards of a hand lie some 22 mm apart; a shape
	// closer to a card read than that is made of the edges where that
	// card and its neighbours overlap, often a quarter turned from them.
	unreadClearMM = 18.0
	// minPaperShare is the least share of a card's face that is paper
	// in the zone's mask: a face is mostly its white ground and margin,
	// even a court card; a box or a line printed on the felt, whose
	// outline may be a card's size, is mostly felt inside.
	minPaperShare = 0.4
)

// loneShape is the card whose rectangle rect (in the zone's picture)
// singleCard found, placed on the table.
func (d *Detector) loneShape(z *zone, rect [4]image.Point) cardShape {
	r := d.opts.PxPerMM
	var p [4]calibration.Point
	var c calibration.Point
	for i, q := range rect {
		p[i] = pt(z.x0+float64(q.X)/r, z.y0+float64(q.Y)/r)
		c = c.Add(p[i].Scale(0.25))
	}
	v := p[1].Sub(p[0])
	if w := p[2].Sub(p[1]); w.Len() > v.Len() {
		v = w
	}
	return cardShape{centre: c, v: v.Unit()}
}

// cardShapes returns the cards the zone's paper shows by their outline
// alone: each lone card's rectangle (z.lone), and each card two of whose
// index corners, read this frame (z.reads), face each other across it
// and agree on where it lies, its body on the paper. A shape counts only
// where paper covers enough of it (minPaperShare) and lies at each of its
// corners (cornersOnPaper), each once.
func (d *Detector) cardShapes(z *zone) []cardShape {
	onPaper := func(p calibration.Point) bool { return d.onPaper(z, p) }
	cands := slices.Clone(z.lone)
	for i, a := range z.reads {
		for _, b := range z.reads[i+1:] {
			if s, ok := oppositeCorners(a.at, b.at); ok && bodyOnPaper(a.at, onPaper) && bodyOnPaper(b.at, onPaper) {
				cands = append(cands, s)
			}
		}
	}
	var out []cardShape
	for _, s := range cands {
		dup := slices.ContainsFunc(out, func(o cardShape) bool { return o.centre.Sub(s.centre).Len() < SameCardMM })
		if !dup && d.paperShare(z, s) >= minPaperShare && d.cornersOnPaper(z, s) {
			out = append(out, s)
		}
	}
	return out
}

// cornersOnPaper reports whether paper lies a few millimetres in from
// each of the shape's four corners: a card's corner is paper, its own or
// that of a card over it. Two corners of a fan's cards that face each
// other across a card's diagonal by chance, each read as no index, make
// a shape whose far corners lie out on the felt. Each corner may show
// its paper at any of three points, so an index printed out to the edge,
// which leaves felt where its ink meets the margin, does not refuse it.
func (d *Detector) cornersOnPaper(z *zone, s cardShape) bool {
	v := s.v.Unit()
	u := pt(-v.Y, v.X)
	for i, c := range s.corners() {
		// The shape's own axes, pointing in from corner i (corners
		// runs round the shape from its -u, -v corner).
		in := [4][2]float64{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}[i]
		iu, iv := u.Scale(in[0]), v.Scale(in[1])
		on := false
		for _, k := range [3][2]float64{{cornerInMM, cornerInMM}, {cornerInMM, 3 * cornerInMM}, {3 * cornerInMM, cornerInMM}} {
			on = on || d.onPaper(z, c.Add(iu.Scale(k[0])).Add(iv.Scale(k[1])))
		}
		if !on {
			return false
		}
	}
	return true
}

// cornerInMM is how far in from a card's corner, along both its edges,
// cornersOnPaper looks for paper: past a corner rounded by up to some
// 13 mm, and past the blur of the outline.
const cornerInMM = 4.0

// oppositeCorners reports whether a and b are the two index corners of
// one card, the top left and the bottom right: their edges run opposite
// ways and the card each places lies in one place. It returns that card
// (diagonalShape).
func oppositeCorners(a, b corner) (cardShape, bool) {
	if dot(a.U, b.U) > oppositeCos || dot(a.V, b.V) > oppositeCos {
		return cardShape{}, false
	}
	ca, cb := indexCentre(a), indexCentre(b)
	if ca.Sub(cb).Len() >= sameFaceMM {
		return cardShape{}, false
	}
	return diagonalShape(a, b), true
}

// diagonalShape returns the card whose opposite index corners are a and
// b. Where both were found where edges meet, its centre lies midway
// between their points, and its long edge along whichever of their edges
// lies nearer the way the diagonal between them gives: where a card lies
// over the edge of another, the edge found at one corner may be the
// other card's, some degrees off its own, while the corner's point lies
// within a millimetre. A corner placed from an index's ink (Guessed)
// lies on the outline before the ink, which may be another card's edge
// a few millimetres off its own, and along it by as much: the card is
// placed from the other corner alone, where that one was found where
// edges meet, and from both as they say where neither was.
func diagonalShape(a, b corner) cardShape {
	switch {
	case a.Guessed && b.Guessed:
		return cardShape{centre: indexCentre(a).Add(indexCentre(b)).Scale(0.5), v: a.V}
	case a.Guessed:
		return cardShape{centre: indexCentre(b), v: b.V.Scale(-1)}
	case b.Guessed:
		return cardShape{centre: indexCentre(a), v: a.V}
	}
	// The long edge makes the diagonal's angle with it, turned the way
	// the two corners' own edges lie.
	d := b.P.Sub(a.P).Unit()
	sin, cos := cardW/math.Hypot(cardW, cardH), cardH/math.Hypot(cardW, cardH)
	left, right := pt(d.X*cos-d.Y*sin, d.X*sin+d.Y*cos), pt(d.X*cos+d.Y*sin, -d.X*sin+d.Y*cos)
	along := a.V.Sub(b.V)
	diag := left
	if dot(right, along) > dot(left, along) {
		diag = right
	}
	v, w := a.V.Unit(), b.V.Unit().Scale(-1)
	if dot(w, diag) > dot(v, diag) {
		v = w
	}
	return cardShape{centre: a.P.Add(b.P).Scale(0.5), v: v}
}

// indexCentre is the centre of the card whose index corner is c.
func indexCentre(c corner) calibration.Point {
	return c.P.Add(c.U.Scale(cardW / 2)).Add(c.V.Scale(cardH / 2))
}

// paperShare is the share of points on a grid over the shape's face,
// inside its margin, that lie on paper in the zone's mask.
func (d *Detector) paperShare(z *zone, s cardShape) float64 {
	const nu, nv = 9, 12
	r := d.opts.PxPerMM
	v := s.v.Unit()
	u := pt(-v.Y, v.X)
	on, all := 0, 0
	for i := range nu {
		for j := range nv {
			a := (float64(i)+0.5)/nu - 0.5
			b := (float64(j)+0.5)/nv - 0.5
			p := s.centre.Add(u.Scale(a * (cardW - 4))).Add(v.Scale(b * (cardH - 4)))
			x, y := int((p.X-z.x0)*r), int((p.Y-z.y0)*r)
			all++
			if x >= 0 && y >= 0 && x < z.mask.Cols() && y < z.mask.Rows() && z.mask.GetUCharAt(y, x) != 0 {
				on++
			}
		}
	}
	return float64(on) / float64(all)
}

// unreadShapes returns the shapes that no reading names: the model was
// shown at least one of the shape's corners, and read none of them as a
// back or as a card with confidence Unreadable or more.
func unreadShapes(reads []read, shapes []cardShape) []cardShape {
	var out []cardShape
	for _, s := range shapes {
		shown, named := false, false
		for _, rd := range reads {
			at := false
			for _, c := range s.corners() {
				at = at || rd.at.P.Sub(c).Len() < cornerNearMM
			}
			if !at {
				continue
			}
			shown = true
			named = named || rd.res.Back || rd.res.Card.Valid() && rd.res.Confidence >= Unreadable
		}
		if shown && !named {
			out = append(out, s)
		}
	}
	return out
}

// unknowns returns an observation, with the zero Card and no confidence,
// for each unread shape clear of the cards of obs (unreadClearMM): a
// card that cannot be read still lies there.
func (d *Detector) unknowns(unread []cardShape, obs []Observation) []Observation {
	var out []Observation
	for _, s := range unread {
		clash := slices.ContainsFunc(obs, func(o Observation) bool {
			return math.Hypot(o.Center.X-s.centre.X, o.Center.Y-s.centre.Y) < unreadClearMM
		})
		if !clash {
			out = append(out, d.observation(cards.Card{}, 0, false, s.centre, s.v))
		}
	}
	return out
}

// nearShape reports whether a card centred at c lies where one of
// shapes does.
func nearShape(c calibration.Point, shapes []cardShape) bool {
	return slices.ContainsFunc(shapes, func(s cardShape) bool { return s.centre.Sub(c).Len() < SameCardMM })
}

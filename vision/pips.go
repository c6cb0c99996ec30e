package vision

import (
	"math"
	"slices"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/pips"
)

// What a card's pips say of its reading (checkPips).
const (
	// pipsPxPerMM is the scale a face is cut at for its pips: about the
	// camera's own (1.2 to 2.5 px/mm, where pips.Read was measured), a
	// quarter of the pixels of a finer cut that counted the same.
	pipsPxPerMM = 2.0
	// pipDoubt is the most confidence a reading keeps once its card's
	// pips have counted another rank: below Confident, so that the
	// card's bets go out for review rather than as a sure mismatch, and
	// above the tracker's CountConfidence, so that the card counts.
	pipDoubt = 0.6
	// pipCount is the confidence of a card known by its rank alone:
	// its index unread, its pips counted. No count of a face cut
	// cleanly is wrong (pips.TestRead), but with no index to agree, a
	// shape cut a little off, over the pips of a card beside it, is
	// counted as surely: below Confident, so that an alert resting on
	// the card goes out for review, and above the tracker's
	// CountConfidence, so that the card counts.
	pipCount = DisputedConfidence
	// pipSuitMargin is how much likelier, in summed natural log, a
	// card's glyphs must make one suit of the colour read than the other
	// for the pips to name it (Observation.Pips): odds of 22,000 to one.
	// The least margin of a right suit among the held-out development
	// decks' cards is 13 to 20 (models/pipsuit).
	pipSuitMargin = 10.0
)

// shapePips is what the pips of a card shape's face say (readShapePips):
// the face pips.Read counted (ok), or an ace's (ace, pips.Ace), and where
// a SuitReader read its glyphs, their log-probabilities summed, suit by
// suit. An ace's pip is printed upright, and nothing tells which way up
// the face was cut (its two index corners read alike from either end):
// its suits are read as cut and turned half round (turned), and name a
// suit only where both ways name it (aceSuit).
type shapePips struct {
	face  pips.Face
	ok    bool
	suits *[4]float64
	// split: the glyphs are not all likeliest of one suit. A shape cut
	// over part of the card beside it takes in that card's pips too.
	split  bool
	ace    bool
	turned *[4]float64
	// contest is set where the shape and another card each lie over
	// the other by their corners (contested): the model's readings of
	// those corners say which is on top (settleContests).
	contest *contest
	// covered: another card lies over the shape (covered), and its
	// pips were not counted.
	covered bool
}

// contest is what tells which of two cards lies on top, where each
// one's corners put it over the other: under, the reads whose cards lie
// over the shape, and over, the shape's own reads that lie over those
// cards (indices of the zone's reads).
type contest struct{ under, over []int }

// readShapePips reads the pips of each card shape of the zone (z.shapes,
// found from the outline and the corners' geometry before the model
// reads), on the zone's worker: the faces are cut and counted while the
// model reads other zones, and checkPips only looks the counts up. A
// shape another card lies over (covered) is not counted, unless which of
// the two lies on top is in doubt (contested): then it is counted, and
// the readings settle whether the count stands (settleContests).
func (d *Detector) readShapePips(frame gocv.Mat, z *zone) {
	z.pips = z.pips[:0]
	face := gocv.NewMat()
	defer face.Close()
	paper := func(p calibration.Point) (bool, bool) { return d.paperAt(z, p) }
	for _, s := range z.shapes {
		var c *contest
		if under := coveredBy(s, z.reads, paper); len(under) > 0 {
			if c = contested(s, under, z.reads, paper); c == nil {
				z.pips = append(z.pips, shapePips{covered: true})
				continue
			}
		}
		var quad [4]calibration.Point
		for i, p := range s.corners() {
			x, y := d.cal.ToImage(p)
			quad[i] = pt(x, y)
		}
		pips.CutFace(frame, quad, pipsPxPerMM, &face)
		// An ace's pip is looked for only where its suit can be read.
		f, ok := pips.ReadOrAce(face, pipsPxPerMM, d.opts.Suits != nil)
		var sp shapePips
		switch {
		case ok && f.Pips == 1:
			sp = shapePips{face: f, ace: true}
			sp.suits, _ = d.readSuits(f.Glyphs)
			sp.turned, _ = d.readSuits([][]byte{turned(f.Glyphs[0])})
		case ok:
			sp = shapePips{face: f, ok: true}
			sp.suits, sp.split = d.readSuits(f.Glyphs)
		}
		sp.contest = c
		z.pips = append(z.pips, sp)
	}
}

// aceSuit returns the suit of like's colour an ace's pip names surely
// (suitOf) both as its face was cut and turned half round, or 0. Read the
// wrong way up, a heart's or a club's pip is often taken surely for the
// other suit of its colour (on the held-out development decks, 74 of 206
// aces); read both ways, none was.
func (sp shapePips) aceSuit(like cards.Suit) cards.Suit {
	if s := suitOf(sp.suits, like); s == suitOf(sp.turned, like) {
		return s
	}
	return 0
}

// turned returns a glyph turned half round.
func turned(g []byte) []byte {
	out := slices.Clone(g)
	slices.Reverse(out)
	return out
}

// readSuits sums the log-probabilities Options.Suits reads glyphs with,
// suit by suit, and reports whether they are split: not every glyph is
// likeliest of the same suit. It returns nil with no reader, no glyph,
// or where it fails (the pips then name no suit, and the card is known by
// its index alone).
func (d *Detector) readSuits(glyphs [][]byte) (sum *[4]float64, split bool) {
	if d.opts.Suits == nil || len(glyphs) == 0 {
		return nil, false
	}
	lp, err := d.opts.Suits.ReadSuits(glyphs)
	if err != nil || len(lp) != len(glyphs) {
		return nil, false
	}
	sum = &[4]float64{}
	first := -1
	for _, g := range lp {
		best := 0
		for i, v := range g {
			sum[i] += v
			if v > g[best] {
				best = i
			}
		}
		if first < 0 {
			first = best
		}
		split = split || best != first
	}
	return sum, split
}

// pipsAgree is the least confidence of a reading that its card's pips
// bear out (bearsOut): two witnesses that owe each other nothing, the
// index in its font and the pips laid out and drawn large, name the same
// card.
const pipsAgree = Confident

// bearsOut reports whether the pips of a card's face, counted (sp.ok),
// bear out reading c: they count c's rank, and their glyphs name c's suit
// over each of the other three by pipSuitMargin (namedSuit). A faint or
// unfamiliar index read with little confidence is then sure; one its
// pips do not name the suit of stays as the model read it.
func bearsOut(sp shapePips, c cards.Card) bool {
	return sp.ok && c.Valid() && cards.Rank(sp.face.Pips) == c.Rank && namedSuit(sp.suits) == c.Suit
}

// namedSuit returns the suit that the summed log-probabilities suits make
// likelier than each other suit by pipSuitMargin at least, or 0.
func namedSuit(suits *[4]float64) cards.Suit {
	if suits == nil {
		return 0
	}
	best := 0
	for i := range suits {
		if suits[i] > suits[best] {
			best = i
		}
	}
	for i := range suits {
		if i != best && suits[best]-suits[i] < pipSuitMargin {
			return 0
		}
	}
	return cards.Suits[best]
}

// suitOf returns the suit of like's colour that the summed
// log-probabilities suits make likelier than the other by pipSuitMargin
// at least, or 0.
func suitOf(suits *[4]float64, like cards.Suit) cards.Suit {
	if suits == nil || !like.Valid() {
		return 0
	}
	a, b := like, like.Other()
	pa, pb := suits[slices.Index(cards.Suits[:], a)], suits[slices.Index(cards.Suits[:], b)]
	switch {
	case pa-pb >= pipSuitMargin:
		return a
	case pb-pa >= pipSuitMargin:
		return b
	}
	return 0
}

// covered reports whether another card lies over shape s: a corner
// found this frame (reads), where edges meet, lies on s's face clear of
// its long edges, and the card it would be the corner of reaches over s
// (reachesOver), shows its paper beyond it (showsBeyond) and would not
// lie over a corner of s's that shows (hidesOwnCorner). A corner on
// s's face shows only where its card lies on top, so that card hides
// part of s, and the pips seen there may be its own: in a dealer's row
// laid some 30 mm apart, a covered 9's first column of pips and the next
// card's make a 4-and-4 layout, an 8. (A corner just past s's end may be
// a card's beneath s: contested.) paper tells whether a table point is
// card paper, and whether it lies where paper could be seen at all (in
// the zone).
func covered(s cardShape, reads []read, paper func(calibration.Point) (paper, seen bool)) bool {
	return len(coveredBy(s, reads, paper)) > 0
}

// coveredBy returns the reads whose corners mark shape s covered
// (covered), by their index in reads.
func coveredBy(s cardShape, reads []read, paper func(calibration.Point) (paper, seen bool)) []int {
	var out []int
	for i, rd := range reads {
		if rd.at.Guessed {
			continue // placed from ink, which a face's own pips have
		}
		// Cards laid in a row line up their ends, so the corners of
		// those over s lie on its ends: clear of its long edges is
		// enough.
		across, along := s.local(rd.at.P)
		if math.Abs(across) < cardW/2-cornerNearMM && math.Abs(along) < cardH/2+cornerNearMM &&
			reachesOver(s, rd.at) && showsBeyond(s, rd.at, paper) && !hidesOwnCorner(s, rd.at, reads) {
			out = append(out, i)
		}
	}
	return out
}

// hidesOwnCorner reports whether the card whose corner is c would lie
// over a corner of s's own that shows among reads (one isCornerOf s
// whose edges run along s's, found where they meet or placed from its
// index's ink): the point ownCornerInMM in from that corner along its
// edges lies inside c's card, beyondMarginMM in from its edges,
// whichever of c's edges is the long one (the square of side cardW that
// c's edges span). A card over s would hide that corner of s, so c's
// card lies beneath s: in a dealer's row whose ends lie a millimetre or
// two out of line, the top right corner of the card beneath shows on
// the next card's end, where the top left corner of a card laid over it
// from the right would lie.
func hidesOwnCorner(s cardShape, c corner, reads []read) bool {
	cu, cv := c.U.Unit(), c.V.Unit()
	for _, rd := range reads {
		p := rd.at.P.Add(rd.at.U.Unit().Scale(ownCornerInMM)).Add(rd.at.V.Unit().Scale(ownCornerInMM))
		if across, along := s.local(p); !isCornerOf(s, rd.at.P) ||
			math.Abs(across) > cardW/2-beyondMarginMM || math.Abs(along) > cardH/2-beyondMarginMM {
			continue // not s's corner, or another card's whose corner lies there
		}
		d := p.Sub(c.P)
		a, b := dot(d, cu), dot(d, cv)
		if a > beyondMarginMM && a < cardW-beyondMarginMM && b > beyondMarginMM && b < cardW-beyondMarginMM {
			return true
		}
	}
	return false
}

// ownCornerInMM is how far in from a card's corner, along both its
// edges, hidesOwnCorner takes a point that shows where the corner does:
// the paper inside the corner, where an index's ink is printed.
const ownCornerInMM = 6.0

// contested returns the contest over shape s, where every read that
// marks it covered (under, coveredBy) lies past s's end by pastEndMM or
// more, and the card it is the corner of, laid along s, is marked
// covered in turn by a corner of s's past that card's end; nil where
// some card lies over s beyond doubt. Two cards lying a few millimetres
// apart along their length, one over the other, each show a corner past
// the other's end: the lower card's beside the upper one's bottom end,
// the upper card's beside the lower one's top end, and the outline is
// the same whichever lies on top. The card a corner is of lies where the
// corner's edges place it (its index centre), found as a shape or not.
func contested(s cardShape, under []int, reads []read, paper func(calibration.Point) (paper, seen bool)) *contest {
	c := &contest{under: under}
	for _, i := range under {
		if _, along := s.local(reads[i].at.P); math.Abs(along) < cardH/2+pastEndMM {
			return nil
		}
		t := cardShape{centre: indexCentre(reads[i].at), v: reads[i].at.V}
		if math.Abs(dot(t.v.Unit(), s.v.Unit())) < parallelCos {
			return nil // a card laid across s, a double: no end beside s's
		}
		back := false
		for j := range reads {
			if _, along := t.local(reads[j].at.P); j != i && math.Abs(along) >= cardH/2+pastEndMM &&
				isCornerOf(s, reads[j].at.P) && covered(t, reads[j:j+1], paper) {
				c.over = append(c.over, j)
				back = true
			}
		}
		if !back {
			return nil
		}
	}
	return c
}

// What makes two cards a contest (contested).
const (
	// pastEndMM is how far past a card's end the corner of the other
	// that marks it covered must lie: cards laid in a row with their
	// ends in line, the one over the other, are no contest.
	pastEndMM = 1.5
	// parallelCos: the two cards' long edges lie within 10° of each
	// other. A card laid across another (a double) is no contest: the
	// corner of it that lies over the other may be one that prints no
	// index, read none though the card lies on top.
	parallelCos = 0.985
)

// isCornerOf reports whether p lies within cornerNearMM of one of s's
// corners.
func isCornerOf(s cardShape, p calibration.Point) bool {
	corners := s.corners()
	return slices.ContainsFunc(corners[:], func(q calibration.Point) bool { return Dist(p, q) < cornerNearMM })
}

// settleContests keeps the pips of a contested shape (shapePips.contest)
// only where the model's readings put it on top: every corner of the
// other card over it read as none, and one of its own corners over that
// card read as a card or a back. The corner of the card on top shows its
// index; the other card's corner beside its end has its index under it.
// Where the model reads neither (a design it cannot read), the shape
// counts as covered, as before the readings.
func settleContests(z *zone) {
	for k := range z.pips {
		if c := z.pips[k].contest; c != nil && !c.onTop(z.reads) {
			z.pips[k] = shapePips{covered: true}
		}
	}
}

// onTop reports whether the readings of reads put the contested shape on
// top (settleContests).
func (c *contest) onTop(reads []read) bool {
	for _, i := range c.under {
		if !reads[i].res.None() {
			return false
		}
	}
	for _, j := range c.over {
		if !reads[j].res.None() {
			return true
		}
	}
	return false
}

// reachesOver reports whether the card whose corner is c lies over part
// of shape s: a point of its face within a card's width of c (the face
// whichever of U and V runs along its long edge) lies on s's face, clear
// of its outline. A corner on s's end whose card runs away from s is no
// card over it: where s lies over the end of a card beneath, that card's
// long edge meets s's end in a junction found as a corner, whose card
// would lie over the paper of the card beneath.
func reachesOver(s cardShape, c corner) bool {
	cu, cv := c.U.Unit(), c.V.Unit()
	for a := beyondStepMM / 2; a < cardW; a += beyondStepMM {
		for b := beyondStepMM / 2; b < cardW; b += beyondStepMM {
			across, along := s.local(c.P.Add(cu.Scale(a)).Add(cv.Scale(b)))
			if math.Abs(across) < cardW/2-beyondMarginMM && math.Abs(along) < cardH/2-beyondMarginMM {
				return true
			}
		}
	}
	return false
}

// What a card over a shape shows beyond it (showsBeyond).
const (
	// beyondStepMM is the spacing of the points a card's face is
	// sampled at.
	beyondStepMM = 3.0
	// beyondMarginMM: a point this close to the shape's outline may be
	// either card's, and is not sampled.
	beyondMarginMM = 2.0
	// beyondPaperShare is the least share of paper among the sampled
	// points beyond the shape that a card lying there shows. A card as
	// wide as the shape whose corner lies on its face reaches past one
	// of its long edges by 5 mm at least, and shows its own paper there
	// but where a hand or the next card lies over it. Face art that
	// meets a card's edge (a frame's gold bracket, a border line) makes
	// a corner too, of a card that is not there: beyond the shape its
	// face falls on felt, or on part of a card beneath. A card's corner
	// found a quarter turned puts its card partly where it is not (some
	// 54% paper for a card over half the shape); its corner found as it
	// lies shows all of it.
	beyondPaperShare = 0.4
)

// showsBeyond reports whether the card whose corner is c shows its paper
// where it lies beyond shape s: a share beyondPaperShare of the points of
// its face, outside s's outline and in sight, are paper. With no point
// beyond s in sight, nothing rules the card out and it counts as shown.
func showsBeyond(s cardShape, c corner, paper func(calibration.Point) (paper, seen bool)) bool {
	cu, cv := c.U.Unit(), c.V.Unit()
	onPaper, seen := 0, 0
	for a := beyondStepMM / 2; a < cardW; a += beyondStepMM {
		for b := beyondStepMM / 2; b < cardH; b += beyondStepMM {
			q := c.P.Add(cu.Scale(a)).Add(cv.Scale(b))
			if across, along := s.local(q); math.Abs(across) < cardW/2+beyondMarginMM && math.Abs(along) < cardH/2+beyondMarginMM {
				continue // on s, or too near its outline to tell
			}
			p, ok := paper(q)
			if !ok {
				continue
			}
			seen++
			if p {
				onPaper++
			}
		}
	}
	return seen == 0 || float64(onPaper) >= beyondPaperShare*float64(seen)
}

// checkPips takes, for each face-up card the zone shows whole (where a
// shape of z.shapes lies), the count of its pips (readShapePips), and
// where they count another rank than its index reads, takes their count
// for the rank and lowers the reading's confidence to pipDoubt; where
// another card may lie over its pips (mayLieUnder), those in sight may be
// only some of them, and the index keeps its rank at pipDoubt. The count
// owes nothing to the index's font: a small or unfamiliar index misread (a
// 2 as a 9, a turned 6 as a 9) is put right, for review; where they count
// the rank its index reads and name its suit (bearsOut), the reading is
// sure (pipsAgree), however faint the index. A card whose index could not
// be read at all is known by the rank they count alone
// (cards.Card.RankOnly), at pipCount. A face that shows no number card's
// layout (an ace, a court card, one partly covered) says nothing (package
// pips). What the pips say, their suit too where it was read (of the
// colour the index reads; for a card known by its rank alone, over all
// four suits, namedSuit, where every glyph is likeliest of it), goes with
// the observation (Observation.Pips) for the tracker to weigh against the
// card's other readings; so does the suit of an ace's single pip, where
// its index reads an ace.
func (d *Detector) checkPips(z *zone) {
	counted := pipsAt(z.shapes, z.pips)
	if counted == nil {
		return
	}
	// Which cards may lie on top of others, as their readings stand
	// before the counts change any (mayLieUnder).
	mayTop := make([]bool, len(z.obs))
	for i, o := range z.obs {
		sp, ok := counted(faceOf(o))
		mayTop[i] = mayLieOnTop(sp, ok, o.Card.Rank)
	}
	for i := range z.obs {
		o := &z.obs[i]
		if o.FaceDown || o.Clipped {
			continue
		}
		sp, ok := counted(faceOf(*o))
		switch {
		case !ok:
		case sp.ok:
			// What the index read, as the pips bear it out, before
			// their count changes it.
			agree := bearsOut(sp, o.Card)
			if n := cards.Rank(sp.face.Pips); n != o.Card.Rank && o.Card.Valid() && d.mayLieUnder(z, i, mayTop) {
				// The pips in sight may be only some of the card's:
				// its index keeps its rank, in doubt.
				o.Confidence = math.Min(o.Confidence, pipDoubt)
			} else {
				*o = withCount(*o, n)
			}
			suit := suitOf(sp.suits, o.Card.Suit)
			if o.Card.RankOnly() && !sp.split {
				// No index reading tells the colour: the glyphs name
				// the suit over all four, each of them likeliest of it.
				suit = namedSuit(sp.suits)
			}
			o.Pips = cards.Card{Rank: cards.Rank(sp.face.Pips), Suit: suit}
			if agree {
				o.Confidence = math.Max(o.Confidence, pipsAgree)
			}
		case sp.ace && o.Card.Rank == cards.Ace:
			o.Pips = cards.Card{Rank: cards.Ace, Suit: sp.aceSuit(o.Card.Suit)}
		}
	}
}

// mayLieUnder reports whether another card of the zone may lie over the
// pips of z.obs[i] (liesUnder), of those that mayTop marks
// (mayLieOnTop).
func (d *Detector) mayLieUnder(z *zone, i int, mayTop []bool) bool {
	others := make([]cardShape, 0, len(z.obs)-1)
	for j, q := range z.obs {
		if j != i && mayTop[j] {
			others = append(others, shapeOf(q))
		}
	}
	paper := func(p calibration.Point) (bool, bool) { return d.paperAt(z, p) }
	return liesUnder(shapeOf(z.obs[i]), others, z.reads, paper)
}

// mayLieOnTop reports whether a card whose index reads rank may lie over
// the cards its shape overlaps, by what the pips of its shape say (sp;
// found: a shape lies where the card does): where its shape was not
// found (a card laid across others, a double, seldom is), where its pips
// counted rank, and where a corner marked it covered (its pips were not
// counted: the card over it hides them). A card whose pips were counted
// and did not count rank, with no corner over it (they lay out no number
// card's face, or another's), may be the one beneath: something hides
// its pips, and that may be the card it overlaps.
func mayLieOnTop(sp shapePips, found bool, rank cards.Rank) bool {
	return !found || sp.covered || sp.ok && cards.Rank(sp.face.Pips) == rank
}

// shapeOf is the card shape observation o lies in.
func shapeOf(o Observation) cardShape {
	f := faceOf(o)
	return cardShape{centre: f.centre, v: f.v}
}

// liesUnder reports whether one of others (card shapes) may lie over the
// pips of shape s: one whose outline, 2 mm in from its edges
// (beyondMarginMM), takes in part of the face where pips are printed
// (overPips), and that no index corner of s's among reads marks covered
// in turn (covered), as its corner marks a card it lies over. A card
// laid across a hand (a double), or one laid a few millimetres up and
// along from the card beneath, hides that card's pips where none of its
// corners shows on its face, and the pips left in sight may lay out a
// smaller number card's: a 3 whose middle pip is hidden counts as a 2.
// A shape centred within SameCardMM of s's is s itself.
func liesUnder(s cardShape, others []cardShape, reads []read, paper func(calibration.Point) (paper, seen bool)) bool {
	for _, t := range others {
		if Dist(t.centre, s.centre) < SameCardMM || !overPips(s, t) {
			continue
		}
		beneath := slices.ContainsFunc(reads, func(rd read) bool {
			return isCornerOf(s, rd.at.P) && covered(t, []read{rd}, paper)
		})
		if !beneath {
			return true
		}
	}
	return false
}

// Where a number card's pips are printed (overPips): clear of its long
// edges and its ends by these, in mm. The outer columns of pips lie some
// 16 mm in from the long edges and the end pips some 16 mm in from the
// ends, each pip 7 to 12 mm across.
const (
	pipsFromEdgeMM = 10.0
	pipsFromEndMM  = 10.0
)

// overPips reports whether card shape t, 2 mm in from its edges, takes in
// a point of the part of shape s's face where pips are printed, sampled
// beyondStepMM apart.
func overPips(s, t cardShape) bool {
	v := s.v.Unit()
	u := pt(-v.Y, v.X)
	for a := -cardW/2 + pipsFromEdgeMM; a <= cardW/2-pipsFromEdgeMM; a += beyondStepMM {
		for b := -cardH/2 + pipsFromEndMM; b <= cardH/2-pipsFromEndMM; b += beyondStepMM {
			across, along := t.local(s.centre.Add(u.Scale(a)).Add(v.Scale(b)))
			if math.Abs(across) < cardW/2-beyondMarginMM && math.Abs(along) < cardH/2-beyondMarginMM {
				return true
			}
		}
	}
	return false
}

// withCount returns observation o as its card's pips, counting rank n,
// leave it: a reading of another rank takes n, at most pipDoubt sure; an
// unread card is known by rank n alone, at pipCount.
func withCount(o Observation, n cards.Rank) Observation {
	switch {
	case n == o.Card.Rank:
	case o.Card == cards.Card{}:
		o.Card, o.Confidence = cards.Card{Rank: n}, pipCount
	case o.Card.Valid():
		o.Card.Rank = n
		o.Confidence = math.Min(o.Confidence, pipDoubt)
	}
	return o
}

// pipsWitness returns what the pips of the card shape at a face say of
// its rank: the count of the shape of shapes that lies there (counted,
// one for each shape, readShapePips), where its pips were counted. It
// returns nil where no pips were counted.
func pipsWitness(shapes []cardShape, counted []shapePips) func(face) (cards.Rank, bool) {
	at := pipsAt(shapes, counted)
	if at == nil {
		return nil
	}
	return func(f face) (cards.Rank, bool) {
		sp, ok := at(f)
		return cards.Rank(sp.face.Pips), ok && sp.ok
	}
}

// pipsAt returns what the pips of the card shape at a face say (counted,
// one for each shape of shapes), where a shape lies there; nil where no
// shape's pips were looked at.
func pipsAt(shapes []cardShape, counted []shapePips) func(face) (shapePips, bool) {
	if len(counted) == 0 || len(counted) != len(shapes) {
		return nil
	}
	return func(f face) (shapePips, bool) {
		k := shapeAt(f.centre, f.v, shapes)
		if k < 0 {
			return shapePips{}, false
		}
		return counted[k], true
	}
}

// settleByPips empties each group that lies where a group of another
// rank does, when the pips of the card there count the other group's
// rank: the pips settle which of the two cards lies there, whichever the
// model read surer, and the card they side with stands at its own
// confidence, not in dispute (dropSamePlace). A deck that prints its
// second index upright (not turned half round) shows it upside down on
// a card lying the other way round, and the model reads a turned 6 as
// a 9, or a 7 as a 4, as surely as the other corner right; the pips owe
// nothing to the index. Where both groups are of the rank counted (a
// suit in dispute) or neither is, the pips settle nothing.
func settleByPips(faces []*faceGroup, pips func(face) (cards.Rank, bool)) {
	if pips == nil {
		return
	}
	for _, g := range faces {
		if !g.kept() {
			continue
		}
		if n, ok := pips(g.face); !ok || n != g.card.Rank {
			continue
		}
		for _, h := range faces {
			if h != g && h.kept() && h.card.Rank != g.card.Rank && g.centre.Sub(h.centre).Len() < SameCardMM {
				h.at = nil
			}
		}
	}
}

// shapeAt returns the index of the shape of shapes that lies at centre,
// its long axis along v (a card whose outline or both index corners
// show), or -1.
func shapeAt(centre, v calibration.Point, shapes []cardShape) int {
	v = v.Unit()
	for k, s := range shapes {
		if Dist(s.centre, centre) <= cornerNearMM && math.Abs(dot(s.v.Unit(), v)) >= -oppositeCos {
			return k
		}
	}
	return -1
}

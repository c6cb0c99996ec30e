package vision

import (
	"errors"
	"fmt"
	"image"
	"iter"
	"math"
	"runtime"
	"slices"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
)

// Still is what one still picture shows.
type Still struct {
	Cards []Observation
	// Cal maps the picture to the table plane: the table file's, or
	// found from the cards (EstimatePlane), whose millimetres are the
	// picture's own.
	Cal *calibration.Calibration
	// Plane says how the plane was found when no calibration was given.
	Plane PlaneFit
}

// maxStillMM is how far from the picture's centre a still is read, in
// mm: a view nearly along the felt reaches to the horizon.
const maxStillMM = 2000.0

// The scales a still's cards may suggest: below 1 px/mm an index's rank
// is some 8 px high, and the model reads 1.2–5 px/mm; above 6 px/mm a
// card would fill a 1080p picture.
const (
	minStillPxPerMM = 1.0
	maxStillPxPerMM = 6.0
)

// maxScaleTries is how many of the scales a still's cards suggest are
// tried, likeliest first.
const maxScaleTries = 4

// ReadStill finds and reads the cards of one still picture (8-bit BGR).
// With a calibration (the table file's camera, for pictures the size it
// was calibrated at), the cards are placed on the table in mm. Without
// one, the table plane is found from the cards themselves (FindPlane;
// where it reads a card twice, readTwice, the still is read again on its
// Alt and on the plane refined by the cards read twice, withDiagonals, and
// the plane that reads the cards best stands), at scale pxPerMM (at the
// picture's centre) when that is positive, or else at the scale that reads
// the cards best (searchScale). Either way the whole picture is read as
// one zone, with the detector the monitor runs on video, at once (nothing
// needs to settle in a still). suits, when not nil, reads the suit of the
// pips of each number card and ace that lies whole: where they name the
// other suit of the colour its index reads, the card is theirs, in doubt
// (bySuitOfPips). A card whose index the model read surely, but with some
// chance of the other suit of its colour, stands in doubt where its pips
// name no suit (doubtOtherSuit). reader is best a cascade opened with
// StillRecheckBelow.
func ReadStill(img gocv.Mat, cal *calibration.Calibration, reader Reader, suits SuitReader, pxPerMM float64) (Still, error) {
	st, err := readStill(img, cal, reader, suits, pxPerMM)
	doubtOtherSuit(st.Cards)
	bySuitOfPips(st.Cards)
	return st, err
}

// doubtOtherSuit puts in doubt each card of cs whose index the model
// read surely but gave the other suit of its colour at least
// stillSuitDoubt: DisputedConfidence at most, that card its rival.
// Where its pips name a suit, they settle it instead: its own, or the
// other (bySuitOfPips).
func doubtOtherSuit(cs []Observation) {
	for i := range cs {
		c := &cs[i]
		if !c.Card.Valid() || c.Confidence < Confident || c.otherSuit < stillSuitDoubt || c.Pips.Suit.Valid() {
			continue
		}
		c.Rivals = append(c.Rivals, cards.Card{Rank: c.Card.Rank, Suit: c.Card.Suit.Other()})
		c.Confidence = DisputedConfidence
	}
}

// stillSuitDoubt is the probability of the other suit of its colour from
// which a sure reading of a still card's index is put in doubt. A club's
// index pip a few pixels across is read as a spade's, surely, more than
// any other confusion of the models; on the development stills it was
// chosen on (912 cards, every crop read by both models as
// StillRecheckBelow has it; models/NOTES.md) 0.03 took the readings
// confidently wrong from 8 to 2 and left 718 of 793 confident.
const stillSuitDoubt = 0.03

// StillRecheckBelow is the recheck threshold (classify.OpenCascade) that
// ReadStill's reader is opened with: every crop is read by both models,
// whose mean is surer where it is right and less sure where it is wrong
// than the fast model alone (on the development stills above, 8
// readings confidently wrong of 793, against 13 of 807). A still is read
// once, so the careful model's time counts for little.
const StillRecheckBelow = 1.0

// readStill is ReadStill before the suits are weighed (doubtOtherSuit,
// bySuitOfPips).
func readStill(img gocv.Mat, cal *calibration.Calibration, reader Reader, suits SuitReader, pxPerMM float64) (Still, error) {
	if img.Empty() || img.Type() != gocv.MatTypeCV8UC3 {
		return Still{}, errors.New("vision: want an 8-bit BGR picture")
	}
	if reader == nil {
		return Still{}, errors.New("vision: ReadStill needs a reader")
	}
	if cal != nil {
		if cal.Table.ImageWidth != img.Cols() || cal.Table.ImageHeight != img.Rows() {
			return Still{}, fmt.Errorf("vision: the picture is %dx%d, the calibration's camera %dx%d", img.Cols(), img.Rows(), cal.Table.ImageWidth, cal.Table.ImageHeight)
		}
		cs, _, _, err := readWhole(img, cal, reader, suits)
		return Still{Cards: cs, Cal: cal}, err
	}
	p, err := FindPlane(img)
	if err != nil {
		return Still{}, err
	}
	st, sc, err := readOnPlane(img, p, reader, suits, pxPerMM)
	if err != nil || !readTwice(st.Cards) {
		return st, err
	}
	// The plane refined is within the corners' noise of the plain one,
	// which reads a card twice: it stands where it reads better
	// (stillScore), as a scale does.
	if p.Alt != nil {
		if alt, altSc, err := readOnPlane(img, p.Alt, reader, suits, pxPerMM); err == nil && altSc.better(sc) {
			st, sc, p = alt, altSc, p.Alt
		}
	}
	// A card still read twice, at its two index corners, tells the
	// plane its proportions (Plane.withDiagonals).
	if diags := twiceDiagonals(st.Cards); len(diags) > 0 {
		q := p.withDiagonals(diags)
		if again, againSc, err := readOnPlane(img, q, reader, suits, pxPerMM); err == nil && againSc.better(sc) {
			st = again
		}
	}
	return st, nil
}

// readOnPlane reads a still on plane p at scale pxPerMM when that is
// positive, or else at the scale that reads it best (searchScale), and
// returns what it read there and how well.
func readOnPlane(img gocv.Mat, p *Plane, reader Reader, suits SuitReader, pxPerMM float64) (Still, stillScore, error) {
	if pxPerMM > 0 {
		if pxPerMM < 0.5 || pxPerMM > 8 {
			return Still{}, stillScore{}, fmt.Errorf("vision: %.2f px/mm: no card index can be read below 0.5 px/mm, nor rectified above 8", pxPerMM)
		}
		st, sc, _, err := readAtScale(img, p, reader, suits, pxPerMM)
		return st, sc, err
	}
	var edges []float64
	for _, px := range p.Scales {
		if px >= minStillPxPerMM && px <= maxStillPxPerMM && len(edges) < maxScaleTries {
			edges = append(edges, px)
		}
	}
	type scaled struct {
		st Still
		sc stillScore
	}
	read := map[float64]scaled{}
	px, err := searchScale(edges, p.Fit.Perspective, func(px float64) (stillScore, measure, error) {
		st, sc, m, err := readAtScale(img, p, reader, suits, px)
		read[px] = scaled{st, sc}
		return sc, m, err
	})
	if err != nil {
		return Still{}, stillScore{}, err
	}
	return read[px].st, read[px].sc, nil
}

// bySuitOfPips takes, for each card of cs whose pips were counted at its
// rank and read surely as the other suit of the colour its index reads
// (Observation.Pips), the pips' suit, in doubt: DisputedConfidence at
// most, the index's reading its rival. A card known by its rank alone
// takes the suit its pips name, as doubtful as before. A still is one
// sighting, as the tracker weighs a card's sightings on video.
func bySuitOfPips(cs []Observation) {
	for i := range cs {
		c := &cs[i]
		if !c.Pips.Valid() || !(c.Card.Valid() || c.Card.RankOnly()) || c.Pips.Rank != c.Card.Rank || c.Pips.Suit == c.Card.Suit {
			continue
		}
		if c.Card.Valid() {
			c.Rivals = append(c.Rivals, c.Card)
		}
		c.Card.Suit = c.Pips.Suit
		c.Confidence = min(c.Confidence, DisputedConfidence)
	}
}

// readAtScale reads a still on plane p at px pixels a mm, and scores that
// scale: its stillScore and the scale's measure by the cards read at both
// index corners (diagonalRatio).
func readAtScale(img gocv.Mat, p *Plane, reader Reader, suits SuitReader, px float64) (Still, stillScore, measure, error) {
	c, err := p.Calibration(px)
	if err != nil {
		return Still{}, stillScore{}, measure{}, err
	}
	cs, sc, m, err := readWhole(img, c, reader, suits)
	if err != nil {
		return Still{}, stillScore{}, measure{}, err
	}
	cs = joinOpposite(cs)
	st := Still{Cards: cs, Cal: c, Plane: p.Fit}
	st.Plane.PxPerMM = px
	sc.reads = readScore(cs)
	return st, sc, m, nil
}

// searchScale finds the scale a still reads best at (stillScore), reading
// it (read: the scale's score and the cards' measure of it) first at the
// scales its cards' edges suggest, edges, likeliest first. The edges'
// scale can be some 10% off, as a card's edges are cut short by its
// rounded corners and by the cards over it; at that scale a card's two
// index corners still agree on its centre, but its body reaches past its
// paper. The cards read at both index corners measure the best scale
// (diagonalRatio): where enough of them (measure.sure) say it is
// minScaleFix or more off, the still is read again at theirs, which wins
// a tie. Where the view was rectified (rectified: one scale holds over
// the whole plane) and fewer than minConfirming cards pair at the best
// scale, it wins outright where the cards measure it again there, within
// minScaleFix: fewer cards may pair at the right scale than at a wrong
// one (where a deck prints its second index upright, a nine reads a six
// at its far corner, and a card may pair at a wrong scale by chance). A
// tilted picture taken as the plane has no one scale, and the cards that
// pair measure only where they lie.
// Where fewer than minConfirming cards pair (are read at two index
// corners that agree) at the scale found so (a few cards fanned in one
// hand, whose edges cover one another), all the edges' scales may be some
// 20% off: the still is read around it (scaleLadder), and at the scales
// the cards measure there (one pair's measure will do: it only says
// where to read), and a scale found so stands only where at least
// minConfirming cards pair at it, as a few more cards read at a scale
// that none confirms say little; none of those is read within
// minScaleFix of a scale read before. Where no edge suggests a scale in
// range (edges broken where an index or the art reaches a card's margin
// make the cards look far smaller than they are), or where none of those
// scales is confirmed so (edges a third or more off), the still is read
// across the range, every sweepStep, and at the scales the cards measure
// there, a scale standing only where minConfirming cards pair. Where no
// edge suggests a scale and nothing confirms one so, the scale the cards
// measured that reads best stands, if a card pairs at it: a lone hand
// fanned, whose cards' far corners mostly lie under the next card or
// read unsurely, may pair one card only, but that card's two corners
// measure the scale.
// At most maxStillReads scales are read.
func searchScale(edges []float64, rectified bool, read func(px float64) (stillScore, measure, error)) (float64, error) {
	s := &scaleSearch{rectified: rectified, read: read, bestScore: stillScore{paired: -1}}
	for _, px := range edges {
		if _, err := s.try(px, false, nil, false); err != nil {
			return 0, err
		}
	}
	if s.best == 0 {
		// No edge suggests a scale in range: sweep the range.
		if err := s.confirmAt(sweepScales()); err != nil {
			return 0, err
		}
		switch {
		case s.best != 0:
			return s.best, nil
		case s.measuredBest != 0:
			return s.measuredBest, nil
		}
		return 0, errNoScale
	}
	if s.bestMeas.sure() {
		if _, err := s.try(s.best*s.bestMeas.ratio, true, []float64{s.best}, false); err != nil {
			return 0, err
		}
	}
	if s.bestScore.paired >= minConfirming {
		return s.best, nil // confirmed
	}
	var ladder []float64
	for _, k := range scaleLadder {
		ladder = append(ladder, s.best*k)
	}
	if err := s.confirmAt(ladder); err != nil {
		return 0, err
	}
	if s.bestScore.paired >= minConfirming {
		return s.best, nil
	}
	// Nothing near the edges' scales confirms one: sweep the range.
	if err := s.confirmAt(sweepScales()); err != nil {
		return 0, err
	}
	return s.best, nil
}

// scaleSearch is searchScale's state: the scales read so far, and the
// best of them.
type scaleSearch struct {
	rectified bool
	read      func(px float64) (stillScore, measure, error)

	best      float64
	bestScore stillScore
	bestMeas  measure   // the cards' measure of the best scale
	tried     []float64 // the scales read, in order
	// The scale the cards measured that reads best, confirmed or not,
	// where a card pairs at it.
	measuredBest  float64
	measuredScore stillScore
}

// try reads the still at px, unless px is out of range or within
// minScaleFix of a scale in near, and keeps px where it reads better than
// the best so far (or as well, where the cards measured px) and, if
// confirm, at least minConfirming cards pair at it. It returns the cards'
// measure of px (diagonalRatio), none where px was not read.
func (s *scaleSearch) try(px float64, measured bool, near []float64, confirm bool) (measure, error) {
	if px < minStillPxPerMM || px > maxStillPxPerMM || len(s.tried) == maxStillReads {
		return measure{}, nil
	}
	for _, q := range near {
		if math.Abs(px/q-1) < minScaleFix {
			return measure{}, nil
		}
	}
	s.tried = append(s.tried, px)
	sc, m, err := s.read(px)
	if err != nil {
		return measure{}, err
	}
	// A scale the cards measured, and measure again there, stands on
	// their geometry over a best scale too few cards confirm.
	selfMeasured := s.rectified && measured && s.bestScore.paired < minConfirming && m.sure() && math.Abs(m.ratio-1) < minScaleFix
	if (!confirm || sc.paired >= minConfirming) && (sc.better(s.bestScore) || measured && !s.bestScore.better(sc) || selfMeasured) {
		s.best, s.bestScore, s.bestMeas = px, sc, m
	}
	if measured && sc.paired > 0 && sc.better(s.measuredScore) {
		s.measuredBest, s.measuredScore = px, sc
	}
	return m, nil
}

// confirmAt reads the still at each of scales, then at the scales the
// cards measure there, keeping a scale only where minConfirming cards
// pair at it.
func (s *scaleSearch) confirmAt(scales []float64) error {
	var measured []float64
	for _, px := range scales {
		m, err := s.try(px, false, s.tried, true)
		if err != nil {
			return err
		}
		if m.pairs > 0 {
			measured = append(measured, px*m.ratio)
		}
	}
	for _, q := range measured {
		if _, err := s.try(q, true, s.tried, true); err != nil {
			return err
		}
	}
	return nil
}

// sweepScales are the scales a still is read at across the whole range,
// sweepStep apart.
func sweepScales() []float64 {
	var sweep []float64
	for px := minStillPxPerMM; px <= maxStillPxPerMM; px *= sweepStep {
		sweep = append(sweep, px)
	}
	return sweep
}

// scaleLadder is where around the best of the edges' scales a still is
// read again when too few of its cards confirm that scale: 10% and 20%
// either side, so that the right scale lies within some 5% of one that
// is read, near enough for the cards' corners to pair and measure it.
var scaleLadder = []float64{0.9, 1.1, 0.8, 1.2}

// sweepStep is the ratio between the scales a still is read at where its
// cards' edges suggest none in range: the right scale lies within some
// 12% of one of them, near enough for the cards read at both index
// corners to measure it (diagonalRatio takes them 25% off).
const sweepStep = 1.25

// minConfirming is how many cards read at two index corners that agree
// confirm a still's scale.
const minConfirming = 2

// maxStillReads bounds how many scales one still is read at: the edges'
// maxScaleTries, the ladder, the sweep, and the scales the cards measure
// at them.
const maxStillReads = 24

// joinOpposite joins the readings of one card from its two index
// corners that the estimated scale sets apart. The centre a corner gives
// lies 54 mm from it along the card's diagonal, so a scale some 10% off
// sets the centres that two opposite corners give 10 mm apart, as two
// cards, turned half round from each other. Two cards of a hand lie 15
// mm or more apart, and the same way round, though one may be read at its
// turned corner only. Of such a pair the surer reading stands; where the
// two name different cards, one corner is misread, and the card is in
// doubt (DisputedConfidence). It reuses cs's array.
func joinOpposite(cs []Observation) []Observation {
	gone := make([]bool, len(cs))
	for i := range cs {
		for j := range cs {
			o, p := &cs[i], &cs[j]
			if i == j || gone[i] || gone[j] || !o.Card.Valid() || !p.Card.Valid() || Dist(o.Center, p.Center) >= oppositeJoinMM {
				continue
			}
			turn := math.Abs(math.Remainder(o.Angle-p.Angle, 360))
			if turn < 180-oppositeTurnDeg || p.Confidence > o.Confidence || p.Confidence == o.Confidence && j < i {
				continue
			}
			if o.Card != p.Card {
				o.Confidence = math.Min(o.Confidence, DisputedConfidence)
			}
			gone[j] = true
		}
	}
	out := cs[:0]
	for i, o := range cs {
		if !gone[i] {
			out = append(out, o)
		}
	}
	return out
}

// readTwice reports whether cs holds two readings of a card at its two
// index corners that the plane sets apart (twiceApart).
func readTwice(cs []Observation) bool {
	for i, o := range cs {
		if slices.ContainsFunc(cs[i+1:], func(p Observation) bool { return twiceApart(o, p) }) {
			return true
		}
	}
	return false
}

// twiceApart reports whether readings o and p may be one card read at its
// two index corners on a plane stretched along the cards' edges, where
// the centres the corners give stray the most: both read as a card,
// turned half round from each other (within oppositeTurnDeg), their
// centres oppositeJoinMM to twiceMM apart (joinOpposite joins those less
// far apart).
func twiceApart(o, p Observation) bool {
	d := Dist(o.Center, p.Center)
	turn := math.Abs(math.Remainder(o.Angle-p.Angle, 360))
	return o.Card.Valid() && p.Card.Valid() && d >= oppositeJoinMM && d < twiceMM && turn >= 180-oppositeTurnDeg
}

// twiceDiagonals returns, for each pair of readings of cs of one rank
// that twiceApart takes for one card, its two index corners in the
// picture, each followed by a point along the short edge from it (an
// observation's image quad starts at the corner whose index was read,
// clockwise).
func twiceDiagonals(cs []Observation) [][4]calibration.Point {
	var out [][4]calibration.Point
	for i, o := range cs {
		for _, p := range cs[i+1:] {
			if o.Card.Rank == p.Card.Rank && twiceApart(o, p) {
				out = append(out, [4]calibration.Point{o.ImageQuad[0], o.ImageQuad[1], p.ImageQuad[0], p.ImageQuad[1]})
			}
		}
	}
	return out
}

// twiceMM is how far apart twiceApart takes two readings of one card to
// lie at most: the two index corners of a card on a plane stretched by
// some 15% along its short edge.
const twiceMM = 18.0

// What joinOpposite takes for one card read at opposite corners: centres
// less than oppositeJoinMM apart (a scale up to some 11% off), turned
// half round within oppositeTurnDeg.
const (
	oppositeJoinMM  = 12.0
	oppositeTurnDeg = 25.0
)

// minScaleFix is how far off, as a share, the scale a still's cards
// measure (diagonalRatio) must say the chosen one is for the still to be
// read again at theirs: some 3%, a millimetre and a half along a card's
// half length.
const minScaleFix = 0.03

// stillScore is how well a scale reads a still: first the cards read
// confidently as one card at two index corners that agree on where it
// lies (paired), which at a scale a quarter or more wrong (a card's short
// edge taken for its long one) lie apart, as two cards; then readScore.
// A scale minConfirming paired cards confirm beats any other; between
// two that none confirms, first the pairs of opposite corners that agree
// on where their card lies, whatever they read (agreeing): where a deck
// prints its second index upright, its sixes and nines never pair, and
// at a scale too small each card's two corners read as two cards, which
// raises readScore. So between two scales none confirms, where their
// corners agree and pair alike, the one whose cards cover the paper
// better (cover, by more than coverMargin) comes before the reads: at a
// scale too small each card's outline, drawn at a card's size from its
// corner, covers only part of its paper, and at one too large it reaches
// past it.
type stillScore struct {
	paired, agreeing int
	cover            float64
	reads            float64
}

// coverMargin is how much better one scale's cards must cover the paper
// (paperCover) to come before another's reads: on the development decks
// whose second index prints upright, the right scale covers 0.06 to 0.13
// more than one read 15–35% under it.
const coverMargin = 0.05

func (s stillScore) better(t stillScore) bool {
	sc, tc := s.paired >= minConfirming, t.paired >= minConfirming
	switch {
	case sc != tc:
		return sc
	case !sc && s.agreeing != t.agreeing:
		return s.agreeing > t.agreeing
	case s.paired != t.paired:
		return s.paired > t.paired
	case !sc && math.Abs(s.cover-t.cover) > coverMargin:
		return s.cover > t.cover
	}
	return s.reads > t.reads
}

// readScore is how well a scale reads a still: the distinct cards read
// confidently, less those read twice. At a wrong scale a card's two
// index corners make two cards of it, or none; a still rarely shows one
// card twice.
func readScore(cs []Observation) float64 {
	seen := map[cards.Card]int{}
	sum := 0.0
	for _, o := range cs {
		if o.Card.Valid() && o.Confidence >= Confident {
			seen[o.Card]++
			sum += o.Confidence
		}
	}
	score := 0.0
	for _, n := range seen {
		score += 1 - float64(n-1)
	}
	return score + sum/float64(len(cs)+1)
}

// readWhole reads every card of img, calibrated as cal, as one zone, and
// scores the scale by its cards read at two index corners: those read
// confidently as one card at corners that agree (pairedCards), and those
// whose opposite corners agree on where the card lies, whatever they read
// (agreeingCorners); by how well the cards read cover the paper
// (paperCover); and by how far apart the corners of the cards read at
// both lie (diagonalRatio). The score's reads are left to the caller.
func readWhole(img gocv.Mat, cal *calibration.Calibration, reader Reader, suits SuitReader) ([]Observation, stillScore, measure, error) {
	whole, err := wholeView(cal)
	if err != nil {
		return nil, stillScore{}, measure{}, err
	}
	opts := DefaultOptions()
	opts.MarginMM, opts.SettleFrames, opts.MaxWaitFrames = 10, 0, 1
	opts.Workers = runtime.GOMAXPROCS(0)
	opts.Suits = suits
	// The detector's grid holds at most 16M pixels a zone: a wide view
	// is rectified coarser.
	minX, minY, maxX, maxY := bounds(whole.Table.Dealer.Polygon)
	area := (maxX - minX + 2*opts.MarginMM) * (maxY - minY + 2*opts.MarginMM)
	if a := area * opts.PxPerMM * opts.PxPerMM; a > 15<<20 {
		opts.PxPerMM = math.Sqrt(15 << 20 / area)
	}
	d, err := NewDetector(whole, reader, opts)
	if err != nil {
		return nil, stillScore{}, measure{}, err
	}
	defer d.Close()
	f, err := d.Detect(img, 0, 0)
	var reads []read
	for _, z := range d.lastRead {
		reads = append(reads, z.reads...)
	}
	sc := stillScore{paired: d.pairedCards(), agreeing: agreeingCorners(reads), cover: d.paperCover(f.Cards)}
	return f.Cards, sc, diagonalRatio(reads), err
}

// paperCover is how well the cards read of cs cover the paper the last
// frame's zones found: the area of their outlines and the paper's
// together, over the area of either (1 where they are one; 0 with no
// paper or no card read). A card read is drawn at a card's size from the
// corner it was read at, so its outline changes with the scale; a card
// no corner reads takes its outline from the paper, at any scale.
func (d *Detector) paperCover(cs []Observation) float64 {
	r := d.opts.PxPerMM
	both, either := 0, 0
	for _, z := range d.lastRead {
		drawn := gocv.Zeros(z.filled.Rows(), z.filled.Cols(), gocv.MatTypeCV8U)
		for _, o := range cs {
			if !o.Card.Valid() {
				continue
			}
			pts := make([]image.Point, len(o.Quad))
			for i, q := range o.Quad {
				pts[i] = image.Pt(int(math.Round((q.X-z.x0)*r)), int(math.Round((q.Y-z.y0)*r)))
			}
			pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
			gocv.FillPoly(&drawn, pv, white)
			pv.Close()
		}
		and, or := gocv.NewMat(), gocv.NewMat()
		gocv.BitwiseAnd(drawn, z.filled, &and)
		gocv.BitwiseOr(drawn, z.filled, &or)
		both, either = both+gocv.CountNonZero(and), either+gocv.CountNonZero(or)
		for _, m := range []gocv.Mat{drawn, and, or} {
			m.Close()
		}
	}
	if either == 0 {
		return 0
	}
	return float64(both) / float64(either)
}

// agreeingCorners counts the pairs of index corners half a turn apart,
// both read confidently as a card, whatever card, that put the card's
// centre within agreeMM of each other. At the right scale each card read
// at its two index corners gives such a pair, even where the two read
// differently (a second index printed upright reads a nine as a six); a
// scale some 10% off sets them apart.
func agreeingCorners(reads []read) int {
	n := 0
	for a, b := range halfTurnPairs(reads) {
		if indexCentre(a.at).Sub(indexCentre(b.at)).Len() < agreeMM {
			n++
		}
	}
	return n
}

// halfTurnPairs yields the pairs of readings, both confidently of a
// card, whose corners point half a turn apart (within some 18°): a card
// read at its two index corners, or two cards' corners facing each other.
func halfTurnPairs(reads []read) iter.Seq2[read, read] {
	return func(yield func(read, read) bool) {
		sure := func(rd read) bool { return rd.res.Card.Valid() && rd.res.Confidence >= Confident }
		for i, a := range reads {
			if !sure(a) {
				continue
			}
			for _, b := range reads[i+1:] {
				if sure(b) && dot(a.at.U, b.at.U) <= -0.95 && !yield(a, b) {
					return
				}
			}
		}
	}
}

// agreeMM is how near the centres two opposite index corners of a card
// give lie at the right scale: they lie 54 mm from the centre, so a scale
// 9% off sets them 10 mm apart.
const agreeMM = 5.0

// measure is the scale a still was read at as its cards measure it
// (diagonalRatio): ratio 1 says the scale is right, 0.9 that the picture
// holds 0.9 times the pixels a mm it was read at; pairs is how many pairs
// of opposite index corners measured it (a card read at both, or two
// cards alike whose corners face each other), their median standing.
// None measures it: ratio 0.
type measure struct {
	ratio float64
	pairs int
}

// sure reports whether enough pairs measure the scale for their measure
// to stand against the scale read: two, as one may be two cards' corners.
func (m measure) sure() bool { return m.pairs >= 2 }

// diagonalRatio measures the scale a still was read at by its cards: over
// the cards read confidently at both their index corners (opposite
// corners, 180° apart), the median of the distance between those corners
// over a card's diagonal.
func diagonalRatio(reads []read) measure {
	diag := math.Hypot(cardW, cardH)
	var rs []float64
	for a, b := range halfTurnPairs(reads) {
		if !turnedAlike(a.res.Card, b.res.Card) {
			continue
		}
		if r := a.at.P.Sub(b.at.P).Len() / diag; r > 0.75 && r < 1.3 {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return measure{}
	}
	slices.Sort(rs)
	return measure{ratio: rs[len(rs)/2], pairs: len(rs)}
}

// pairedCards counts the cards the zones read in the last frame read
// confidently at two index corners whose cards' centres agree.
func (d *Detector) pairedCards() int {
	n := 0
	for _, z := range d.lastRead {
		onPaper := func(p calibration.Point) bool { return d.onPaper(z, p) }
		for _, g := range faceGroups(z.reads, onPaper, pipsWitness(z.shapes, z.pips)) {
			if g.conf >= Confident && twoCorners(g.at) {
				n++
			}
		}
	}
	return n
}

// twoCorners reports whether at holds two of a card's corners: two
// readings of its index found minCornerApartMM or more apart. One index
// corner may be found twice, where its edges meet and a set inset before
// its ink (corner.Guessed), a few mm apart; at any scale both read alike
// and agree on the card's centre, and they confirm no scale.
func twoCorners(at []corner) bool {
	for i, a := range at {
		for _, b := range at[i+1:] {
			if Dist(a.P, b.P) >= minCornerApartMM {
				return true
			}
		}
	}
	return false
}

// minCornerApartMM is how far apart two of a card's corners lie at
// least, half its short side, at a scale up to half its own off: one
// corner found twice lies within some 10 mm of itself.
const minCornerApartMM = cardW / 2

// wholeView returns cal with one zone, the dealer's, covering the whole
// picture (up to maxStillMM from its centre): in a still every card
// counts, wherever it lies.
func wholeView(cal *calibration.Calibration) (*calibration.Calibration, error) {
	t := *cal.Table
	w, h := float64(t.ImageWidth), float64(t.ImageHeight)
	centre := cal.ToTable(w/2, h/2)
	var poly []calibration.Point
	const steps = 8 // along each side: a lens term bends the picture's edges on the felt
	for side := range 4 {
		for i := range steps {
			f := float64(i) / steps
			x, y := [4]float64{f * w, w, (1 - f) * w, 0}[side], [4]float64{0, f * h, h, (1 - f) * h}[side]
			p := cal.ToTable(x, y)
			if d := Dist(p, centre); d > maxStillMM || math.IsNaN(d) {
				k := maxStillMM / d
				if math.IsNaN(d) {
					k = 0
				}
				p = calibration.Point{X: centre.X + (p.X-centre.X)*k, Y: centre.Y + (p.Y-centre.Y)*k}
			}
			poly = append(poly, p)
		}
	}
	t.Seats, t.Dealer = nil, calibration.Zone{Polygon: poly}
	c := *cal
	c.Table = &t
	return &c, nil
}

func bounds(poly []calibration.Point) (minX, minY, maxX, maxY float64) {
	minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range poly {
		minX, minY = math.Min(minX, p.X), math.Min(minY, p.Y)
		maxX, maxY = math.Max(maxX, p.X), math.Max(maxY, p.Y)
	}
	return
}

// turnedAlike reports whether two readings of a card's opposite index
// corners may name the same card: the same card, or a six and a nine of
// one suit (an index printed upright at both corners reads the other way
// up from the card's far end).
func turnedAlike(a, b cards.Card) bool {
	sixNine := a.Rank == cards.Six && b.Rank == cards.Nine || a.Rank == cards.Nine && b.Rank == cards.Six
	return a == b || sixNine && a.Suit == b.Suit
}

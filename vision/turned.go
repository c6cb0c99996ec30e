package vision

import (
	"image"
	"slices"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// Some decks print the index at the bottom-right corner upright, as at
// the top left, instead of turned half round. Read from the card's other
// end, as the monitor reads every index corner, those glyphs stand upside
// down, and the model reads them as another card, often surely: a 3♥ as
// an 8♦, a 6♥ as a 9♦. The card's two corners then disagree, and it
// stands in doubt (dropSamePlace). Turning each glyph of such a crop half
// round where it lies shows the index as the model knows it; which of
// the two corners is the upside-down one, upsideDown tells where the
// index can.

// turnGlyphs writes into dst the index crop src (BGR, cut by
// classify.Cropper) with each glyph of its index (glyphBoxes) turned half
// round in its own bounding box. It reports whether it found any glyph.
func turnGlyphs(src gocv.Mat, dst *gocv.Mat) bool {
	if src.Empty() || src.Type() != gocv.MatTypeCV8UC3 {
		return false
	}
	boxes := glyphBoxes(src)
	if len(boxes) == 0 {
		return false
	}
	src.CopyTo(dst)
	in, err := src.DataPtrUint8()
	if err != nil {
		return false
	}
	out, err := dst.DataPtrUint8()
	if err != nil {
		return false
	}
	sstep, dstep := int(src.Step()), int(dst.Step())
	for _, b := range boxes {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				sx, sy := b.Min.X+b.Max.X-1-x, b.Min.Y+b.Max.Y-1-y
				copy(out[y*dstep+3*x:y*dstep+3*x+3], in[sy*sstep+3*sx:sy*sstep+3*sx+3])
			}
		}
	}
	return true
}

// An index's glyphs begin within turnReachXMM of the corner along the
// card's short edge and turnReachYMM along its long edge: the jumbo
// indices of the kept decks reach some 17 × 34 mm.
const (
	turnReachXMM = 17.0
	turnReachYMM = 34.0
)

// glyphBoxes returns the bounding boxes of the glyphs of the index in an
// index crop: its ink (inkMask) in connected clusters, those whose boxes
// touch or overlap joined, each beginning near the corner (turnReachXMM,
// turnReachYMM) and less than half the crop's height tall.
func glyphBoxes(crop gocv.Mat) []image.Rectangle {
	mask, ok := inkMask(crop)
	if !ok {
		return nil
	}
	defer mask.Close()
	labels, stats, centroids := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer labels.Close()
	defer stats.Close()
	defer centroids.Close()
	n := gocv.ConnectedComponentsWithStats(mask, &labels, &stats, &centroids)
	perCol := float64(crop.Cols()) / classify.CropWidthMM
	perRow := float64(crop.Rows()) / classify.CropHeightMM
	reachX, reachY := int(turnReachXMM*perCol), int(turnReachYMM*perRow)
	var boxes []image.Rectangle
	for k := 1; k < n; k++ {
		x, y := int(stats.GetIntAt(k, 0)), int(stats.GetIntAt(k, 1))
		w, h := int(stats.GetIntAt(k, 2)), int(stats.GetIntAt(k, 3))
		if x >= reachX || y >= reachY || 2*h >= crop.Rows() || stats.GetIntAt(k, 4) < 3 {
			continue
		}
		boxes = append(boxes, image.Rect(x, y, x+w, y+h))
	}
	// A 10 joined may reach a box it did not touch: join those too.
	return joinTouching(joinTen(joinTouching(boxes)))
}

// joinTen joins the figure 1 of a 10 with the 0 beside it, so that the
// rank turns whole: a 10 turned figure by figure reads 01. A 1 is a box
// three times as tall as it is wide or more; its 0 is the nearest box
// beside it, level with it over half its height, a third of its height
// away or nearer.
func joinTen(boxes []image.Rectangle) []image.Rectangle {
	for i, one := range boxes {
		h := one.Dy()
		if 3*one.Dx() > h {
			continue
		}
		best, gap := -1, h/3+1
		for j, b := range boxes {
			level := min(one.Max.Y, b.Max.Y) - max(one.Min.Y, b.Min.Y)
			g := max(b.Min.X-one.Max.X, one.Min.X-b.Max.X)
			if j != i && 2*level >= h && g >= 0 && g < gap {
				best, gap = j, g
			}
		}
		if best >= 0 {
			boxes[i] = one.Union(boxes[best])
			return joinTen(slices.Delete(boxes, best, best+1))
		}
	}
	return boxes
}

// inkMask returns a mask of the crop's ink: each pixel by its darkest
// channel, so that red ink is as dark as black, darker than halfway from
// the paper (its upper quartile) to the ink (its 2nd percentile), the
// two faintContrast apart at least. The rows along the top edge and the
// columns along the left that are mostly dark are felt beyond a corner
// found a little inside the card, not ink.
func inkMask(crop gocv.Mat) (gocv.Mat, bool) {
	b, err := crop.DataPtrUint8()
	if err != nil {
		return gocv.Mat{}, false
	}
	rows, cols, step := crop.Rows(), crop.Cols(), int(crop.Step())
	dark := make([]uint8, rows*cols)
	for y := range rows {
		for x := range cols {
			p := b[y*step+3*x:]
			dark[y*cols+x] = min(p[0], p[1], p[2])
		}
	}
	sorted := slices.Clone(dark)
	slices.Sort(sorted)
	paper, ink := int(sorted[len(sorted)*3/4]), int(sorted[len(sorted)/50])
	if paper-ink < faintContrast {
		return gocv.Mat{}, false
	}
	level := (paper + ink) / 2
	for i, v := range dark {
		if int(v) < level {
			dark[i] = 255
		} else {
			dark[i] = 0
		}
	}
	mostly := func(n, of int) bool { return 2*n > of }
	for y := 0; y < rows; y++ {
		row := dark[y*cols : (y+1)*cols]
		if !mostly(bytesSet(row), cols) {
			break
		}
		clear(row)
	}
	for x := 0; x < cols; x++ {
		n := 0
		for y := range rows {
			if dark[y*cols+x] != 0 {
				n++
			}
		}
		if !mostly(n, rows) {
			break
		}
		for y := range rows {
			dark[y*cols+x] = 0
		}
	}
	mask, err := gocv.NewMatFromBytes(rows, cols, gocv.MatTypeCV8U, dark)
	return mask, err == nil
}

// bytesSet counts the bytes of b that are not zero.
func bytesSet(b []uint8) int {
	n := 0
	for _, v := range b {
		if v != 0 {
			n++
		}
	}
	return n
}

// joinTouching joins boxes that touch or overlap, until none do.
func joinTouching(boxes []image.Rectangle) []image.Rectangle {
	for joined := true; joined; {
		joined = false
		for i := 0; i < len(boxes) && !joined; i++ {
			for j := i + 1; j < len(boxes); j++ {
				if boxes[i].Inset(-1).Overlaps(boxes[j]) {
					boxes[i] = boxes[i].Union(boxes[j])
					boxes = slices.Delete(boxes, j, j+1)
					joined = true
					break
				}
			}
		}
	}
	return boxes
}

// turnedPair is two readings of one card's place, at corners half a turn
// from each other, that name two cards.
type turnedPair struct{ a, b int }

// disputedPairs returns the pairs of readings that put two cards at one
// place from corners half a turn apart, and so put the card in doubt: a
// card's two index corners read as two cards, one surely and the other
// at disputeFloor or more, at a corner not merely guessed (dropSamePlace).
// Only readings that count are paired (groupIndices). Any other pair the
// surer reading settles alone.
func disputedPairs(reads []read, onPaper func(calibration.Point) bool) []turnedPair {
	counts := func(i int) bool { return countsAsIndex(reads, i, onPaper) }
	var pairs []turnedPair
	for i := range reads {
		if !counts(i) {
			continue
		}
		for j := i + 1; j < len(reads); j++ {
			a, b := reads[i], reads[j]
			if a.res.Card != b.res.Card && dot(a.at.U, b.at.U) < -0.9 &&
				indexCentre(a.at).Sub(indexCentre(b.at)).Len() < SameCardMM && counts(j) && disputes(a, b) {
				pairs = append(pairs, turnedPair{i, j})
			}
		}
	}
	return pairs
}

// disputes reports whether two readings of one card's place put it in
// doubt: the surer is sure, and the other at disputeFloor or more, at a
// corner not merely guessed.
func disputes(a, b read) bool {
	if a.res.Confidence < b.res.Confidence {
		a, b = b, a
	}
	return a.res.Confidence >= Confident && putsInDoubt(b.res.Confidence, b.at.Guessed && !b.confirmed)
}

// settleTurned reads, for each of the zone's disputed pairs
// (disputedPairs), both crops with their glyphs turned (turnGlyphs), and
// gives the corner whose index stands upside down (upsideDown) the
// reading of its turned glyphs: the other corner's card. The zone's cache
// keeps that reading for the crop. frame is the frame the crops were cut
// from.
func (d *Detector) settleTurned(frame gocv.Mat, z *zone) error {
	pairs := disputedPairs(z.reads, func(p calibration.Point) bool { return d.onPaper(z, p) })
	if len(pairs) == 0 {
		return nil
	}
	// Each read's turned crop, once: a read may be in several pairs.
	slot := map[int]int{}
	var crops []gocv.Mat
	defer func() {
		for _, m := range crops {
			m.Close()
		}
	}()
	cut := gocv.NewMat()
	defer cut.Close()
	for _, p := range pairs {
		for _, i := range []int{p.a, p.b} {
			if _, ok := slot[i]; ok {
				continue
			}
			slot[i] = -1
			if err := z.cropper.Cut(frame, z.reads[i].frame, &cut); err != nil {
				continue
			}
			turned := gocv.NewMat()
			if !turnGlyphs(cut, &turned) {
				turned.Close()
				continue
			}
			slot[i] = len(crops)
			crops = append(crops, turned)
		}
	}
	if len(crops) == 0 {
		return nil
	}
	res, err := d.readAll(crops)
	if err != nil {
		return err
	}
	turnedRead := func(i int) (classify.Result, bool) {
		k := slot[i]
		if k < 0 {
			return classify.Result{}, false
		}
		return res[k], true
	}
	var settled []int
	var to []classify.Result
	for _, p := range pairs {
		for _, ab := range [][2]int{{p.a, p.b}, {p.b, p.a}} {
			i, j := ab[0], ab[1]
			ti, oki := turnedRead(i)
			tj, okj := turnedRead(j)
			if oki && okj && upsideDown(z.reads[i].res, ti, z.reads[j].res, tj) && !slices.Contains(settled, j) {
				settled, to = append(settled, j), append(to, tj)
			}
		}
	}
	for k, j := range settled {
		rd := &z.reads[j]
		was := rd.res
		rd.setResult(to[k])
		if rd.cached {
			z.recache(rd.at, was, rd.res)
		}
	}
	return nil
}

// recache gives the cached reading of corner at that was was the reading
// now: a crop that looks the same later reads as it was settled.
func (z *zone) recache(at corner, was, now classify.Result) {
	for k := range z.cache {
		if sameCorner(z.cache[k].at, at) && z.cache[k].res.Card == was.Card {
			z.cache[k].res = now
		}
	}
}

// upsideDown reports whether the reading b of one corner of a card is
// its upside-down index, and a of the other corner the card: a reads a
// card surely, and b's glyphs turned (tb) read that card surely too, b
// does not read a heart where a reads a diamond (a heart upside down reads
// as a diamond, and turned back as a heart; a diamond reads as a diamond
// either way), and a's glyphs turned (ta) read
//   - another card than either, or a's card less than surely: a's index
//     turned is not what it is upright, so a is the upright one (but for
//     a 6 and a 9: halfTurnRanks);
//   - b's card, where a's card has a suit that is not a diamond and b's
//     is a diamond: a diamond turned half round is a diamond, so had the
//     card been b's, no corner would show a's suit. A heart turned half
//     round reads as a diamond, a 6♥ as a 9♦.
//
// Where a's glyphs turned read b's card otherwise, each corner turned
// reads the other's card, and the index alone cannot tell which way up
// the card lies (a 6♦ and a 9♦, a 2♦ and a 7♦). Where they read no card,
// the glyphs may not have been found whole: nothing is told either.
func upsideDown(a, ta, b, tb classify.Result) bool {
	x, y := a.Card, b.Card
	if !x.Valid() || !y.Valid() || x == y || a.Confidence < Confident || tb.Card != x || tb.Confidence < Confident {
		return false
	}
	if x.Suit == cards.Diamonds && y.Suit == cards.Hearts {
		return false // a heart upside down reads as a diamond, never the other way
	}
	switch ta.Card {
	case y:
		return y.Suit == cards.Diamonds && x.Suit != cards.Diamonds
	case x:
		return ta.Confidence < Confident
	}
	return ta.Card.Valid() && !halfTurnRanks(x.Rank, y.Rank)
}

// halfTurnRanks reports whether ranks a and b are a 6 and a 9, each the
// other turned half round: the upright corner's glyphs turned then read
// the other corner's rank, and a reading of any other card says they were
// not found whole.
func halfTurnRanks(a, b cards.Rank) bool {
	return a == cards.Six && b == cards.Nine || a == cards.Nine && b == cards.Six
}

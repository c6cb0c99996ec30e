package enroll

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"sort"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision"
)

// Colour bounds of card paper: the monitor's own (bright and nearly
// grey, where felt is saturated).
var paperLo, paperHi = vision.PaperBounds()

// Card size in mm, and how far a blob of paper may differ from it and
// still be a card: the outline of the paper shrinks where a deck prints
// a dark border, and a reference mark's white square (75 mm a side with
// its margin) must not pass.
const (
	cardW, cardH = cards.Width, cards.Length
	minShort     = 52.0
	maxShort     = 71.0
	minLong      = 76.0
	maxLong      = 97.0
)

// laid is one card found on the felt.
type laid struct {
	centre calibration.Point // table mm
	u, v   calibration.Point // unit directions of its short and long edges, u towards +X, v towards +Y
	imageX float64           // its centre's column in the picture
}

// findCards finds the cards laid out in frame (8-bit BGR): blobs that
// have a card's size and shape on the table. Each blob's outline is
// mapped to table mm and a card fitted to it (fitCard); the faces' art
// plays no part. Blobs are looked for twice: as paper (bright, nearly
// grey), which gives sharp edges, and as whatever is not felt, which
// keeps whole the court cards whose pictures cut their paper apart. A
// blob that is not one card (a card touching the shoe or a printed line)
// loses its parts narrower than splitMM, and what is left is tried
// again. A card must show paper over at least minPaper of its face, so
// that the card back in the discard holder, framed in white, is none.
// Blobs that are still not cards are returned as odd, by their centres.
func findCards(frame gocv.Mat, cal *calibration.Calibration) (cards []laid, odd []calibration.Point, err error) {
	if frame.Empty() || frame.Type() != gocv.MatTypeCV8UC3 {
		return nil, nil, fmt.Errorf("enroll: want an 8-bit BGR picture, got type %v %dx%d", frame.Type(), frame.Cols(), frame.Rows())
	}
	hsv := gocv.NewMat()
	defer hsv.Close()
	gocv.CvtColor(frame, &hsv, gocv.ColorBGRToHSV)
	paper := gocv.NewMat()
	defer paper.Close()
	gocv.InRangeWithScalar(hsv, paperLo, paperHi, &paper)
	px := cal.PxPerMM(calibration.Point{X: 0, Y: 350})
	notFelt := gocv.NewMat()
	defer notFelt.Close()
	feltMask(hsv, &notFelt)
	gocv.BitwiseNot(notFelt, &notFelt)
	onPaper := func(l laid) bool { return paperShare(paper, cal, l) >= minPaper }
	cards, odd = blobs(paper, cal, px, onPaper)
	var more []laid
	if len(odd) > 0 {
		// Paper that is not one card may be a card whose edge the
		// specks of textured or shaded stock break (outside the
		// paper's colours): healed, it is one.
		healed := gocv.NewMat()
		defer healed.Close()
		heal(paper, &healed, px)
		more, _ = blobs(healed, cal, px, onPaper)
	}
	notPaper, _ := blobs(notFelt, cal, px, onPaper)
	more = append(more, notPaper...)
	// Cards laid for enrolment do not overlap, so no two centres lie
	// nearer than a card's width, give or take a little placing. A card
	// fitted to healed paper or to what is not felt nearer than that to
	// a card of paper is that card, or two cards that touch, their
	// pictures joining (two court cards), not a third card between them.
	for _, m := range more {
		if !slices.ContainsFunc(cards, func(c laid) bool { return norm(sub2(c.centre, m.centre)) < 0.9*cardW }) {
			cards = append(cards, m)
		}
	}
	odd = slices.DeleteFunc(odd, func(p calibration.Point) bool {
		return slices.ContainsFunc(cards, func(c laid) bool { return norm(sub2(c.centre, p)) < cardW/2 })
	})
	return cards, odd, nil
}

// heal writes into dst paper closed (dilated, then eroded) with a square
// of healMM: specks up to that size within paper are paper. Cards laid
// apart stay apart, and a bridge this thin between two that nearly touch
// is what splitter cuts.
func heal(paper gocv.Mat, dst *gocv.Mat, px float64) {
	k := int(math.Round(healMM*px)) | 1
	kernel := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(k, k))
	defer kernel.Close()
	gocv.MorphologyEx(paper, dst, gocv.MorphClose, kernel)
}

// healMM is the widest speck heal fills.
const healMM = 3.0

// minPaper is the least share of a card's face that must be paper.
const minPaper = 0.1

// blobs finds the card-shaped blobs of mask for which keep holds, and the
// centres of the other blobs of a card's area or more, off the marks.
func blobs(mask gocv.Mat, cal *calibration.Calibration, px float64, keep func(laid) bool) (cards []laid, odd []calibration.Point) {
	contours := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxNone)
	defer contours.Close()
	minArea := 0.4 * cardW * cardH * px * px
	split := newSplitter(mask, px)
	defer split.Close()
	for i := range contours.Size() {
		c := contours.At(i)
		if gocv.ContourArea(c) < minArea {
			continue
		}
		pts := c.ToPoints()
		if l, ok := fitCard(pts, cal); ok && keep(l) {
			cards = append(cards, l)
			continue
		}
		parts, rest := split.split(pts, cal, minArea)
		for _, l := range parts {
			if keep(l) {
				cards = append(cards, l)
			}
		}
		for _, p := range rest {
			if !nearMark(p, cal.Table) {
				odd = append(odd, p)
			}
		}
	}
	return cards, odd
}

// feltMask writes into dst the felt of a picture in HSV: the most common
// hue among its saturated pixels (green or blue cloth), give or take
// feltHue, saturated and not black.
func feltMask(hsv gocv.Mat, dst *gocv.Mat) {
	var hist [180]int
	const step = 4 // every 4th pixel each way is plenty for a mode
	for y := 0; y < hsv.Rows(); y += step {
		for x := 0; x < hsv.Cols(); x += step {
			v := hsv.GetVecbAt(y, x)
			if v[1] >= 80 && v[2] >= 40 && int(v[0]) < len(hist) {
				hist[v[0]]++
			}
		}
	}
	mode := 0
	for h := range hist {
		if hist[h] > hist[mode] {
			mode = h
		}
	}
	const feltHue = 15
	lo := gocv.NewScalar(float64(max(mode-feltHue, 0)), 60, 25, 0)
	hi := gocv.NewScalar(float64(min(mode+feltHue, 179)), 255, 255, 0)
	gocv.InRangeWithScalar(hsv, lo, hi, dst)
}

// paperShare is the share of a grid of points over the face of card l
// (5 mm in from its edges) that lie on paper.
func paperShare(paper gocv.Mat, cal *calibration.Calibration, l laid) float64 {
	n, on := 0, 0
	for i := range 7 {
		for j := range 9 {
			a := -cardW/2 + 5 + float64(i)*(cardW-10)/6
			b := -cardH/2 + 5 + float64(j)*(cardH-10)/8
			p := calibration.Point{X: l.centre.X + a*l.u.X + b*l.v.X, Y: l.centre.Y + a*l.u.Y + b*l.v.Y}
			x, y := cal.ToImage(p)
			xi, yi := int(math.Round(x)), int(math.Round(y))
			n++
			if xi >= 0 && yi >= 0 && xi < paper.Cols() && yi < paper.Rows() && paper.GetUCharAt(yi, xi) != 0 {
				on++
			}
		}
	}
	return float64(on) / float64(n)
}

func sub2(a, b calibration.Point) calibration.Point {
	return calibration.Point{X: a.X - b.X, Y: a.Y - b.Y}
}

// splitMM: a blob of paper that is not one card is cut apart by removing
// every part of it narrower than this, such as the white edge of a chip,
// the rim of the shoe or the discard holder that a card lies against. A
// card keeps its outline: its paper is wider than that all round the
// index.
const splitMM = 6.0

// splitter cuts blobs of paper that are not one card into parts. It owns
// its scratch Mats: Close releases them.
type splitter struct {
	size        image.Point
	px          float64
	mask        gocv.Mat // the mask the blobs come from; its caller closes it
	blob, parts gocv.Mat
	kernel      gocv.Mat
}

func newSplitter(mask gocv.Mat, px float64) *splitter {
	k := int(math.Round(splitMM*px)) | 1
	return &splitter{
		size: image.Pt(mask.Cols(), mask.Rows()), px: px, mask: mask,
		blob: gocv.NewMatWithSize(mask.Rows(), mask.Cols(), gocv.MatTypeCV8U), parts: gocv.NewMat(),
		kernel: gocv.GetStructuringElement(gocv.MorphRect, image.Pt(k, k)),
	}
}

// Close releases the scratch Mats; the mask stays its owner's.
func (s *splitter) Close() {
	s.blob.Close()
	s.parts.Close()
	s.kernel.Close()
}

// split takes the paper of one blob, opens it (erodes, then dilates) with
// a square of splitMM, and fits a card to what is left. It returns the
// cards, or the centre of the blob when no card came of it.
func (s *splitter) split(outline []image.Point, cal *calibration.Calibration, minArea float64) ([]laid, []calibration.Point) {
	var box image.Rectangle
	for _, p := range outline {
		box = box.Union(image.Rect(p.X, p.Y, p.X+1, p.Y+1))
	}
	box = box.Inset(-2).Intersect(image.Rect(0, 0, s.size.X, s.size.Y))
	blob := s.blob.Region(box)
	defer blob.Close()
	blob.SetTo(gocv.NewScalar(0, 0, 0, 0))
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{outline})
	defer pv.Close()
	gocv.DrawContours(&s.blob, pv, 0, color.RGBA{R: 255, G: 255, B: 255, A: 255}, -1)
	paper := s.mask.Region(box)
	defer paper.Close()
	gocv.BitwiseAnd(blob, paper, &s.parts) // the blob's own paper, with its holes
	gocv.MorphologyEx(s.parts, &s.parts, gocv.MorphOpen, s.kernel)
	contours := gocv.FindContours(s.parts, gocv.RetrievalExternal, gocv.ChainApproxNone)
	defer contours.Close()
	// A court card's thin margins go too, leaving pieces of it: all the
	// pieces together are tried as one card first, then each big piece
	// as a card of its own (two cards joined by a thin bridge).
	var all []image.Point
	var big [][]image.Point
	for i := range contours.Size() {
		c := contours.At(i)
		a := gocv.ContourArea(c)
		if a < 0.02*minArea {
			continue // a speck left of print or texture
		}
		pts := c.ToPoints()
		for j := range pts {
			pts[j] = pts[j].Add(box.Min)
		}
		all = append(all, pts...)
		if a >= minArea {
			big = append(big, pts)
		}
	}
	if l, ok := fitCard(all, cal); ok {
		return []laid{l}, nil
	}
	var out []laid
	for _, pts := range big {
		if l, ok := fitCard(pts, cal); ok {
			out = append(out, l)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	l, _ := fitCard(outline, cal)
	return nil, []calibration.Point{l.centre}
}

// nearMark reports whether p lies on a reference mark, whose white square
// is about a card's size.
func nearMark(p calibration.Point, t *calibration.Table) bool {
	for _, m := range t.Marks {
		if math.Hypot(p.X-m.Center.X, p.Y-m.Center.Y) < m.Size {
			return true
		}
	}
	return false
}

// fitCard fits a card to an outline in the picture, in table mm: the
// rectangle of least area gives the card's direction, then each edge is
// put where most of the outline lies along it, so that something light
// touching the card (a printed spot, a chip's edge) does not move it. It
// reports whether the card found has a card's size, lying upright (its
// long edge nearer the table's Y axis than its X axis).
func fitCard(outline []image.Point, cal *calibration.Calibration) (laid, bool) {
	if len(outline) < 16 {
		return laid{}, false // and OpenCV aborts on an empty outline
	}
	tp := make([]calibration.Point, len(outline))
	pts := make([]image.Point, len(outline))
	for i, p := range outline {
		tp[i] = cal.ToTable(float64(p.X), float64(p.Y))
		// MinAreaRect takes integer points: eighths of a mm.
		pts[i] = image.Pt(int(math.Round(tp[i].X*8)), int(math.Round(tp[i].Y*8)))
	}
	pv := gocv.NewPointVectorFromPoints(pts)
	defer pv.Close()
	r := gocv.MinAreaRect(pv)
	if len(r.Points) != 4 {
		return laid{}, false
	}
	e1 := calibration.Point{X: float64(r.Points[1].X - r.Points[0].X), Y: float64(r.Points[1].Y - r.Points[0].Y)}
	e2 := calibration.Point{X: float64(r.Points[2].X - r.Points[1].X), Y: float64(r.Points[2].Y - r.Points[1].Y)}
	if norm(e1) == 0 || norm(e2) == 0 {
		return laid{}, false
	}
	u := scale(e1, 1/norm(e1))
	if math.Abs(u.X) < math.Abs(u.Y) {
		u = scale(e2, 1/norm(e2))
	}
	if u.X < 0 {
		u = scale(u, -1)
	}
	v := calibration.Point{X: -u.Y, Y: u.X} // u turned by 90°, towards +Y
	left, right := edges(tp, u)
	top, bottom := edges(tp, v)
	w, h := right-left, bottom-top
	cu, cv := (left+right)/2, (top+bottom)/2
	l := laid{centre: calibration.Point{X: cu*u.X + cv*v.X, Y: cu*u.Y + cv*v.Y}, u: u, v: v}
	if w < minShort || w > maxShort || h < minLong || h > maxLong {
		return l, false // not a card, or one lying sideways
	}
	l.imageX, _ = cal.ToImage(l.centre)
	return l, true
}

// edges finds the two edges of an outline across direction d: where, in
// the lower and in the upper half of the outline's extent along d, most
// of its points lie (to binMM), refined to the mean of the points within
// a bin of there.
func edges(pts []calibration.Point, d calibration.Point) (lo, hi float64) {
	proj := make([]float64, len(pts))
	mn, mx := math.Inf(1), math.Inf(-1)
	for i, p := range pts {
		proj[i] = p.X*d.X + p.Y*d.Y
		mn, mx = math.Min(mn, proj[i]), math.Max(mx, proj[i])
	}
	const binMM = 0.5
	bins := make([]int, int((mx-mn)/binMM)+1)
	for _, x := range proj {
		bins[int((x-mn)/binMM)]++
	}
	peak := func(from, to int) float64 {
		best := from
		for i := from; i < to; i++ {
			if bins[i] > bins[best] {
				best = i
			}
		}
		at := mn + (float64(best)+0.5)*binMM
		var sum float64
		n := 0
		for _, x := range proj {
			if math.Abs(x-at) <= binMM {
				sum += x
				n++
			}
		}
		return sum / float64(n)
	}
	half := len(bins) / 2
	if half == 0 {
		return mn, mx
	}
	return peak(0, half), peak(half, len(bins))
}

func norm(p calibration.Point) float64 { return math.Hypot(p.X, p.Y) }

func scale(p calibration.Point, k float64) calibration.Point {
	return calibration.Point{X: p.X * k, Y: p.Y * k}
}

// rowGapMM: two cards whose centres are further apart than this along
// the table's Y axis lie in different rows (rows are a card's length
// apart; a row's cards differ by a few mm).
const rowGapMM = cardH / 2

// intoRows groups the cards into rows by their centres' table Y, the
// dealer's side first, and orders each row by the picture's x.
func intoRows(cs []laid) [][]laid {
	cs = slices.Clone(cs)
	sort.Slice(cs, func(i, j int) bool { return cs[i].centre.Y < cs[j].centre.Y })
	var rows [][]laid
	for i, c := range cs {
		if i == 0 || c.centre.Y-cs[i-1].centre.Y > rowGapMM {
			rows = append(rows, nil)
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], c)
	}
	for _, r := range rows {
		sort.Slice(r, func(i, j int) bool { return r[i].imageX < r[j].imageX })
	}
	return rows
}

// slotted places each row's cards in the row's 13 places: the places are
// evenly spaced, one pitch (the median distance between neighbours) apart,
// starting where the rows with all 13 cards start. A place with no card
// is nil.
func slotted(rows [][]laid) ([][13]*laid, error) {
	dir, ok := rowDirection(rows)
	if !ok {
		return nil, fmt.Errorf("%w: too few cards to tell the rows' direction", ErrLayout)
	}
	along := func(c laid) float64 { return c.centre.X*dir.X + c.centre.Y*dir.Y }
	var gaps, starts, firsts []float64
	for _, r := range rows {
		for i := 1; i < len(r); i++ {
			gaps = append(gaps, along(r[i])-along(r[i-1]))
		}
		if len(r) > 0 {
			firsts = append(firsts, along(r[0]))
		}
		if len(r) == 13 {
			starts = append(starts, along(r[0]))
		}
	}
	if len(gaps) == 0 {
		return nil, fmt.Errorf("%w: no row has two cards", ErrLayout)
	}
	pitch := median(gaps)
	if pitch < cardW {
		return nil, fmt.Errorf("%w: cards %.0f mm apart along their rows overlap or touch (a card is 63 mm wide)", ErrLayout, pitch)
	}
	start := median(firsts)
	if len(starts) > 0 {
		start = median(starts)
	}
	out := make([][13]*laid, len(rows))
	for ri, r := range rows {
		for i := range r {
			k := int(math.Round((along(r[i]) - start) / pitch))
			if k < 0 || k > 12 || out[ri][k] != nil || math.Abs(along(r[i])-start-float64(k)*pitch) > 0.35*pitch {
				return nil, fmt.Errorf("%w: row %d (%s): its cards are not in 13 evenly spaced places in line with the other rows (a card at %.0f mm, %.0f mm apart)",
					ErrLayout, ri+1, rowNames[min(ri, 3)], along(r[i])-start, pitch)
			}
			out[ri][k] = &r[i]
		}
	}
	return out, nil
}

// rowDirection is the table direction in which the picture's x grows
// along a row: the mean direction from each row's first card to its last.
func rowDirection(rows [][]laid) (calibration.Point, bool) {
	var d calibration.Point
	for _, r := range rows {
		if len(r) < 2 {
			continue
		}
		a, b := r[0].centre, r[len(r)-1].centre
		step := calibration.Point{X: b.X - a.X, Y: b.Y - a.Y}
		if n := norm(step); n > 0 {
			d.X += step.X / n
			d.Y += step.Y / n
		}
	}
	n := norm(d)
	if n == 0 {
		return d, false
	}
	return scale(d, 1/n), true
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

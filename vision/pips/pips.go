// Package pips counts the pips on the face of a number card: a second
// witness of a card's rank that owes nothing to the font of its index.
// A deck in an unfamiliar design may defeat the index reader, but its
// two to ten share one layout in every design: that many like pips in
// two or three columns, symmetric left to right and, but for a seven's
// or a nine's odd pip, under a half turn.
//
// Read looks only at the middle of the face, clear of indices in any
// corner, and answers only when what it sees is such a layout; a court
// card's picture, an ace's single pip, a face with ornaments among its
// pips or a face partly covered give no count rather than a wrong one.
// Where it counts, it also cuts each pip out as a glyph, upright, for a
// reader of the pips' suit (Face.Glyphs): a pip is drawn far larger than
// the index's.
package pips

import (
	"cmp"
	"image"
	"image/color"
	"math"
	"slices"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
)

// A card's face, in mm.
const (
	cardW = cards.Width
	cardH = cards.Length
)

// The middle of the face where pips lie (mm from the face's top-left
// corner): between the index columns of a card indexed in all four
// corners, and clear of the top and bottom edges.
const (
	bodyX0, bodyX1 = 12.0, 51.0
	bodyY0, bodyY1 = 6.0, 82.0
)

// What a layout of pips is made of.
const (
	// minBlobMM2: ink smaller than this (mm²) is print, noise or a
	// pip's speck of glare, never a pip.
	minBlobMM2 = 6.0
	// The largest pip of a number card is 15 to 200 mm²: a jumbo
	// deck's pips are some 12 mm across, a small one's 5.
	minPipMM2, maxPipMM2 = 15.0, 200.0
	// maxInkMM: no pip, nor any print among pips, is wider or taller
	// than this; a court card's picture and frame are.
	maxInkMM = 16.0
	// pipShare: a pip is at least this share of the largest one. Ink
	// between doubtShare and pipShare of it is neither pip nor print
	// (an ornament, a pip cut by a shadow) and leaves the face
	// uncounted.
	pipShare, doubtShare = 0.65, 0.3
	// twinMM: a pip's mirror image lies this close to another pip.
	twinMM = 3.5
	// turnMM: its image under a half turn lies this close to another
	// pip. A pip's position is its ink's centroid, and a heart's lies
	// well above the middle of its box; the middle row of a six, or a
	// three's middle pip, is printed upright where its half-turn image
	// would be turned, and a large heart's centroid then lies 4 to 7 mm
	// from that image (gnome's bellot).
	turnMM = 2 * twinMM
	// minContrast: the pips are at least this much darker, in the
	// darkest of the three colours, than the paper around them.
	minContrast = 40.0
)

// Face is what a number card's face shows of its pips.
type Face struct {
	// Pips is how many: 2 to 10.
	Pips int
	// Ink is the pips' colour, blue, green and red, each a share of the
	// paper's around them, so that the light's colour and strength
	// cancel: about equal shares for black pips, a red share well above
	// the others for red ones.
	Ink [3]float64
	// Glyphs are the pips that lie clear of the face's middle row, each
	// cut out as GlyphPx × GlyphPx grey pixels (the darkest of the
	// three colours, ink 0 and paper 255) around its ink, upright: those
	// of the face's lower half, printed turned, are turned back. What a
	// suit reader reads; the middle row's pips are printed upright
	// whichever end of the card is up, so no glyph of theirs is.
	Glyphs [][]byte
}

// GlyphPx is the side of a pip's glyph (Face.Glyphs) in pixels.
const GlyphPx = 24

// Where a glyph is cut.
const (
	// glyphSide is the glyph's side, in sides of its pip's ink box: a
	// margin of paper around the pip.
	glyphSide = 1.25
	// middleRowMM: a pip whose centre lies this close to the face's
	// middle line across is in the middle row (Glyphs).
	middleRowMM = 3.0
	// An ace's pip (Ace) is at most aceMaxMM wide and tall, and its
	// centre lies within aceOffMM of the face's: decks print it 10 to 25
	// mm across, in the middle.
	aceMaxMM, aceOffMM = 30.0, 6.0
)

// Read returns what face shows of its pips, and whether it shows a
// number card's layout at all. face is the card's whole face, BGR, its
// long edges along the Mat's columns (either end up), at pxPerMM pixels
// a millimetre: cardW × cardH mm.
func Read(face gocv.Mat, pxPerMM float64) (Face, bool) {
	b, ok := inkOf(face, pxPerMM)
	if !ok {
		return Face{}, false
	}
	defer b.close()
	return b.number()
}

// Ace returns what face (as Read takes it) shows of an ace's single pip:
// Face.Pips 1, its ink's colour, and the pip's glyph as the face is cut
// (an ace's pip is printed upright; which way up the face was cut is the
// caller's to know or to try). It answers only where the face's body
// holds one piece of ink larger than print and none else but pieces
// touching it (onePiece), no wider nor taller than aceMaxMM, lying within
// aceOffMM of the face's centre: an ornate ace of spades whose art
// spreads, a number card, a court card or a face partly covered give
// none.
func Ace(face gocv.Mat, pxPerMM float64) (Face, bool) {
	b, ok := inkOf(face, pxPerMM)
	if !ok {
		return Face{}, false
	}
	defer b.close()
	return b.ace()
}

// ReadOrAce is Read, and where face shows no number card's layout and
// aces is set, Ace, finding the face's ink once for both.
func ReadOrAce(face gocv.Mat, pxPerMM float64, aces bool) (Face, bool) {
	b, ok := inkOf(face, pxPerMM)
	if !ok {
		return Face{}, false
	}
	defer b.close()
	if f, ok := b.number(); ok || !aces {
		return f, ok
	}
	return b.ace()
}

// number is Read's answer for the ink of b.
func (b *inked) number() (Face, bool) {
	pips, ok := pipsOf(b.blobs)
	if !ok || !laidOut(centres(pips)) {
		return Face{}, false
	}
	return b.faceOf(pips, false), true
}

// ace is Ace's answer for the ink of b.
func (b *inked) ace() (Face, bool) {
	pip, ok := onePiece(b.blobs, b.r)
	if !ok {
		return Face{}, false
	}
	if pip.area < minPipMM2 || pip.extent > aceMaxMM || math.Hypot(pip.at.x-cardW/2, pip.at.y-cardH/2) > aceOffMM {
		return Face{}, false
	}
	// Cut as it lies: glyphs turns a pip below the middle row, and an
	// ace's lies on it.
	pip.at.y = cardH / 2
	f := b.faceOf([]blob{pip}, true)
	return f, len(f.Glyphs) == 1
}

// onePiece returns the one piece of ink of blobs (r pixels a mm), where
// every other piece lies within aceJoinMM of the largest: a club's stem
// printed on a thin neck, or a spade's, parts from its lobes where the
// camera blurs the neck, and the pip is the pieces together.
func onePiece(blobs []blob, r float64) (blob, bool) {
	if len(blobs) == 0 {
		return blob{}, false
	}
	big := slices.MaxFunc(blobs, func(a, b blob) int { return cmp.Compare(a.area, b.area) })
	join := int(math.Ceil(aceJoinMM * r))
	near := big.box.Inset(-join)
	pip := blob{box: big.box}
	for _, bl := range blobs {
		if !bl.box.Overlaps(near) {
			return blob{}, false
		}
		pip.area += bl.area
		pip.at = pip.at.add(bl.at.scale(bl.area))
		pip.box = pip.box.Union(bl.box)
	}
	pip.at = pip.at.scale(1 / pip.area)
	pip.extent = float64(max(pip.box.Dx(), pip.box.Dy())) / r
	return pip, true
}

// aceJoinMM: a piece of ink this close to an ace's pip is part of it.
const aceJoinMM = 1.5

// inked is a face's body as Read and Ace look at it: the face's darkest
// colour (dark), its body's rectangle, ink and paper and their levels,
// and the pieces of ink there. It owns its Mats but face: close releases
// them.
type inked struct {
	face             gocv.Mat
	body             image.Rectangle
	dark, ink, paper gocv.Mat
	levels           [2]float64
	blobs            []blob
	r                float64 // pixels a mm
}

// inkOf finds the ink of face's body (inkMask), where face is a BGR face
// at pxPerMM large enough to hold the body and its ink stands out.
func inkOf(face gocv.Mat, pxPerMM float64) (*inked, bool) {
	if face.Empty() || face.Channels() != 3 || pxPerMM <= 0 {
		return nil, false
	}
	r := pxPerMM
	body := image.Rect(int(bodyX0*r), int(bodyY0*r), int(math.Ceil(bodyX1*r)), int(math.Ceil(bodyY1*r)))
	if !body.In(image.Rect(0, 0, face.Cols(), face.Rows())) || body.Dx() < 8 || body.Dy() < 8 {
		return nil, false
	}
	dark := darkest(face)
	darkBody := dark.Region(body)
	ink, paper, levels, ok := inkMask(darkBody)
	darkBody.Close()
	if !ok {
		dark.Close()
		return nil, false
	}
	return &inked{face: face, body: body, dark: dark, ink: ink, paper: paper, levels: levels,
		blobs: components(ink, r, pt(bodyX0, bodyY0)), r: r}, true
}

// close releases the Mats b owns.
func (b *inked) close() {
	b.dark.Close()
	b.ink.Close()
	b.paper.Close()
}

// faceOf returns the Face pips make, with their ink's colour and glyphs
// (those of the middle row too, with middle).
func (b *inked) faceOf(pips []blob, middle bool) Face {
	region := b.face.Region(b.body)
	defer region.Close()
	return Face{Pips: len(pips), Ink: inkColour(region, b.ink, b.paper), Glyphs: glyphs(b.dark, b.levels, b.body.Min, pips, middle)}
}

// centres returns where the blobs lie.
func centres(blobs []blob) []point {
	out := make([]point, len(blobs))
	for i, b := range blobs {
		out[i] = b.at
	}
	return out
}

// glyphs cuts the pips of a face that lie clear of the middle row (all
// of them with middle), as Face.Glyphs has them, from dark, the face's
// darkest colour, whose ink and paper lie at levels. The pips were found
// in the face's body, whose top-left corner lies at origin on the face;
// their ink may run past it.
func glyphs(dark gocv.Mat, levels [2]float64, origin image.Point, pips []blob, middle bool) [][]byte {
	inkLevel, paperLevel := levels[0], levels[1]
	span := math.Max(paperLevel-inkLevel, 1)
	bounds := image.Rect(0, 0, dark.Cols(), dark.Rows())
	glyph, tile := gocv.NewMat(), gocv.NewMat()
	defer glyph.Close()
	defer tile.Close()
	var out [][]byte
	for _, p := range pips {
		if math.Abs(p.at.y-cardH/2) < middleRowMM && !middle {
			continue
		}
		side := int(math.Ceil(float64(max(p.box.Dx(), p.box.Dy())) * glyphSide))
		c := p.box.Min.Add(p.box.Max).Div(2).Add(origin)
		sq := image.Rect(c.X-side/2, c.Y-side/2, c.X-side/2+side, c.Y-side/2+side)
		// A glyph's margin may reach past the face: paper there.
		in := sq.Intersect(bounds)
		if in.Empty() {
			continue
		}
		src := dark.Region(in)
		if in != sq {
			paper := gocv.NewScalar(paperLevel, 0, 0, 0)
			tile.Close()
			tile = gocv.NewMatWithSizeFromScalar(paper, side, side, gocv.MatTypeCV8UC1)
			dst := tile.Region(in.Sub(sq.Min))
			src.CopyTo(&dst)
			dst.Close()
			src.Close()
			src = tile.Region(image.Rect(0, 0, side, side))
		}
		gocv.Resize(src, &glyph, image.Pt(GlyphPx, GlyphPx), 0, 0, gocv.InterpolationArea)
		src.Close()
		if p.at.y > cardH/2 {
			gocv.Rotate(glyph, &glyph, gocv.Rotate180Clockwise)
		}
		b := glyph.ToBytes()
		for i, v := range b {
			b[i] = uint8(min(max((float64(v)-inkLevel)/span*255, 0), 255))
		}
		out = append(out, b)
	}
	return out
}

// darkest returns the darkest of bgr's three colours at each pixel, where
// black and red ink are both dark. The caller closes it.
func darkest(bgr gocv.Mat) gocv.Mat {
	dark := gocv.NewMat()
	ch := gocv.Split(bgr)
	gocv.Min(ch[0], ch[1], &dark)
	gocv.Min(dark, ch[2], &dark)
	for _, c := range ch {
		c.Close()
	}
	return dark
}

// inkColour returns the mean colour of the ink in bgr, channel by
// channel a share of the paper's mean (ink and paper: inkMask's masks).
func inkColour(bgr, ink, paper gocv.Mat) [3]float64 {
	i, p := bgr.MeanWithMask(ink), bgr.MeanWithMask(paper)
	share := func(a, b float64) float64 { return a / math.Max(b, 1) }
	return [3]float64{share(i.Val1, p.Val1), share(i.Val2, p.Val2), share(i.Val3, p.Val3)}
}

// inkMask returns the pixels of dark (the darkest of a face's three
// colours, where black and red ink both are dark) that are ink and those
// that are paper, and the mean level of each: Otsu's threshold, where ink
// and paper differ by minContrast at least. The caller closes both masks.
func inkMask(dark gocv.Mat) (ink, paper gocv.Mat, levels [2]float64, ok bool) {
	ink, paper = gocv.NewMat(), gocv.NewMat()
	gocv.Threshold(dark, &ink, 0, 255, gocv.ThresholdBinaryInv|gocv.ThresholdOtsu)
	gocv.BitwiseNot(ink, &paper)
	inkMean, paperMean := dark.MeanWithMask(ink), dark.MeanWithMask(paper)
	if gocv.CountNonZero(ink) == 0 || gocv.CountNonZero(paper) == 0 ||
		paperMean.Val1-inkMean.Val1 < minContrast {
		ink.Close()
		paper.Close()
		return gocv.Mat{}, gocv.Mat{}, levels, false
	}
	return ink, paper, [2]float64{inkMean.Val1, paperMean.Val1}, true
}

// blob is a connected piece of ink: its area in mm², its centroid in mm
// on the face, the larger side of its bounding box in mm, and that box in
// the mask's pixels.
type blob struct {
	area, extent float64
	at           point
	box          image.Rectangle
}

// components returns the pieces of ink in mask no smaller than
// minBlobMM2, placed on the face (mask's top-left corner lies at origin,
// in mm).
func components(mask gocv.Mat, r float64, origin point) []blob {
	labels, stats, centroids := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer labels.Close()
	defer stats.Close()
	defer centroids.Close()
	n := gocv.ConnectedComponentsWithStats(mask, &labels, &stats, &centroids)
	var out []blob
	for i := 1; i < n; i++ {
		a := float64(stats.GetIntAt(i, int(gocv.CC_STAT_AREA))) / (r * r)
		if a < minBlobMM2 {
			continue
		}
		c := pt(centroids.GetDoubleAt(i, 0)/r, centroids.GetDoubleAt(i, 1)/r)
		x, y := int(stats.GetIntAt(i, int(gocv.CC_STAT_LEFT))), int(stats.GetIntAt(i, int(gocv.CC_STAT_TOP)))
		w, h := int(stats.GetIntAt(i, int(gocv.CC_STAT_WIDTH))), int(stats.GetIntAt(i, int(gocv.CC_STAT_HEIGHT)))
		out = append(out, blob{area: a, extent: float64(max(w, h)) / r, at: origin.add(c), box: image.Rect(x, y, x+w, y+h)})
	}
	return out
}

// pipsOf returns the blobs that are pips: those near the largest one in
// size, where the largest is a pip's size, no blob is larger than a pip
// or lies between pip and print in size, and there are 2 to 10.
func pipsOf(blobs []blob) ([]blob, bool) {
	largest := 0.0
	for _, b := range blobs {
		if b.extent > maxInkMM {
			return nil, false
		}
		largest = math.Max(largest, b.area)
	}
	if largest < minPipMM2 || largest > maxPipMM2 {
		return nil, false
	}
	var pips []blob
	for _, b := range blobs {
		switch {
		case b.area >= pipShare*largest:
			pips = append(pips, b)
		case b.area >= doubtShare*largest:
			return nil, false
		}
	}
	return pips, len(pips) >= 2 && len(pips) <= 10
}

// laidOut reports whether pips lie as a number card's do: each pip's
// mirror image across the layout's vertical middle is a pip, and so is
// its image under a half turn about the layout's centre, but for one pip
// on the middle line of a seven or a nine, which designs place anywhere
// between the columns' first and last rows (gnome's bellot prints a
// nine's high). The centre is the middle of the pips' bounding box,
// which such an odd pip does not move.
func laidOut(pips []point) bool {
	lo, hi := pips[0], pips[0]
	for _, p := range pips {
		lo = pt(math.Min(lo.x, p.x), math.Min(lo.y, p.y))
		hi = pt(math.Max(hi.x, p.x), math.Max(hi.y, p.y))
	}
	c := pt((lo.x+hi.x)/2, (lo.y+hi.y)/2)
	if math.Abs(c.x-cardW/2) > 2*twinMM || math.Abs(c.y-cardH/2) > 2*twinMM {
		return false
	}
	odd := 0
	for _, p := range pips {
		if !near(pips, pt(2*c.x-p.x, p.y), twinMM) {
			return false
		}
		if !near(pips, pt(2*c.x-p.x, 2*c.y-p.y), turnMM) {
			if len(pips) != 7 && len(pips) != 9 || math.Abs(p.x-c.x) > twinMM {
				return false
			}
			odd++
		}
	}
	return odd <= 1
}

// near reports whether some pip lies within tol mm of q.
func near(pips []point, q point, tol float64) bool {
	for _, p := range pips {
		if math.Hypot(p.x-q.x, p.y-q.y) <= tol {
			return true
		}
	}
	return false
}

// point is a place on the face, in mm from its top-left corner.
type point struct{ x, y float64 }

func pt(x, y float64) point           { return point{x, y} }
func (p point) add(q point) point     { return point{p.x + q.x, p.y + q.y} }
func (p point) scale(k float64) point { return point{p.x * k, p.y * k} }

// CutFace cuts a card's face out of frame into dst at pxPerMM, for Read:
// corners are the face's corners in frame's pixels, clockwise from its
// top-left one (as vision.Observation.ImageQuad has them). The map is a
// perspective one, so a card seen at a slant comes out square.
func CutFace(frame gocv.Mat, corners [4]calibration.Point, pxPerMM float64, dst *gocv.Mat) {
	w, h := cardW*pxPerMM, cardH*pxPerMM
	face := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{
		{X: 0, Y: 0}, {X: float32(w), Y: 0}, {X: float32(w), Y: float32(h)}, {X: 0, Y: float32(h)},
	})
	defer face.Close()
	var q []gocv.Point2f
	for _, p := range corners {
		q = append(q, gocv.Point2f{X: float32(p.X), Y: float32(p.Y)})
	}
	pic := gocv.NewPoint2fVectorFromPoints(q)
	defer pic.Close()
	m := gocv.GetPerspectiveTransform2f(face, pic)
	defer m.Close()
	gocv.WarpPerspectiveWithParams(frame, dst, m, image.Pt(int(math.Round(w)), int(math.Round(h))),
		gocv.InterpolationLinear|gocv.WarpInverseMap, gocv.BorderReplicate, color.RGBA{})
}

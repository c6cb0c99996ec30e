package vision

import (
	"image"
	"math"
	"slices"
	"sort"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// Colour bounds (OpenCV HSV: H 0..180). Card paper is bright and nearly
// grey; felt is saturated; skin is orange and moderately saturated.
var (
	paperLo = gocv.NewScalar(0, 0, 120, 0)
	paperHi = gocv.NewScalar(180, 75, 255, 0)
	// Brightly lit paper may be tinted more, by cream paper under warm
	// light: still well clear of felt, and brighter than skin mostly is.
	litPaperLo = gocv.NewScalar(0, 0, 215, 0)
	litPaperHi = gocv.NewScalar(180, 110, 255, 0)
	skinLo     = gocv.NewScalar(2, 45, 80, 0)
	skinHi     = gocv.NewScalar(25, 170, 255, 0)
)

// paperPixels sets paper to 255 where the HSV picture hsv shows card
// paper, 0 elsewhere; lit is scratch of hsv's size.
func paperPixels(hsv gocv.Mat, paper, lit *gocv.Mat) {
	gocv.InRangeWithScalar(hsv, paperLo, paperHi, paper)
	gocv.InRangeWithScalar(hsv, litPaperLo, litPaperHi, lit)
	gocv.BitwiseOr(*paper, *lit, paper)
}

// PaperBounds returns the HSV bounds (OpenCV: H 0..180) within which a
// pixel counts as card paper, for other finders of cards (enroll) to
// agree with the monitor's.
func PaperBounds() (lo, hi gocv.Scalar) { return paperLo, paperHi }

// read is one corner the model recognised.
type read struct {
	res    classify.Result
	at     corner         // in table mm
	frame  classify.Frame // where its crop was cut in the image
	capped bool           // the dealer's hand was near
	cached bool           // res is an earlier frame's: the crop looked the same
	// confirmed: the corner is guessed, and a second crop read the same
	// card surely (confirmGuessed).
	confirmed bool
}

// setResult sets the reading of the corner's crop, capped at a guessed
// corner no second crop confirmed (guessedConfidence).
func (rd *read) setResult(res classify.Result) {
	if rd.at.Guessed && !rd.confirmed {
		res.Confidence = math.Min(res.Confidence, guessedConfidence)
	}
	rd.res = res
}

// prepareZone finds card corners in a zone of the grid (its tiles worked
// out this frame) and cuts their crops: those that look as they did keep
// their reading, the others wait in z.batch for the model. It writes only
// the zone's own Mats and reads the Detector's, so zones can be prepared
// side by side.
func (d *Detector) prepareZone(frame gocv.Mat, z *zone) {
	r := d.opts.PxPerMM
	z.reads, z.batch, z.pending = z.reads[:0], z.batch[:0], z.pending[:0]
	d.paperMask(z)
	d.skinMask(z)
	contours := gocv.FindContours(z.mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer contours.Close()
	blobs := d.blobs(z, contours)
	d.fillBlobs(z, contours, blobs)
	corners := d.blobCorners(z, blobs)
	skinPx := gocv.CountNonZero(z.skin)
	z.busy = float64(skinPx) > busySkinMM2*r*r
	at, frames, near := d.placeCorners(z, corners)
	d.cutCrops(frame, z, at, frames, near)
	z.shapes = d.cardShapes(z)
	if d.opts.CountPips {
		d.readShapePips(frame, z)
	}
}

// paperMask leaves in z.mask the zone's card paper, specks dropped.
func (d *Detector) paperMask(z *zone) {
	paper := d.grid.paper.Region(z.roi)
	defer paper.Close()
	gocv.MorphologyEx(paper, &z.mask, gocv.MorphOpen, d.kernel)
	// An index printed close to the edge breaks the white margin: close
	// such gaps (a few mm) so the outline keeps the card's straight edge.
	gocv.MorphologyEx(z.mask, &z.mask, gocv.MorphClose, d.bridge)
}

// skinMask leaves in z.skin the dealer's hand: skin-coloured felt-side
// pixels. Skin tones also edge the red pips and fill court figures, so
// only pixels away from the paper (z.mask) count.
func (d *Detector) skinMask(z *zone) {
	skin := d.grid.skin.Region(z.roi)
	defer skin.Close()
	gocv.Dilate(z.mask, &z.grown, d.paperGrow)
	gocv.Subtract(skin, z.grown, &z.skin) // masks are 0 or 255: skin and not grown
	gocv.MorphologyEx(z.skin, &z.skin, gocv.MorphOpen, d.kernel)
	z.dropSkinBackground(d.paperGrow)
}

// dropSkinBackground takes the skin-coloured background out of z.skin.
// The felt has skin-coloured things of its own (the wooden rail, the
// Push 22 spots, chips): what was skin-coloured when the zone was first
// read is background, and a pixel leaves the background once it is not.
// So a hand in the very first frame is forgotten when it goes. The
// background is widened by grow before it is taken out.
func (z *zone) dropSkinBackground(grow gocv.Mat) {
	if z.skinBG.Empty() {
		z.skin.CopyTo(&z.skinBG)
	} else {
		gocv.BitwiseAnd(z.skinBG, z.skin, &z.skinBG)
	}
	gocv.Dilate(z.skinBG, &z.grown, grow)
	gocv.Subtract(z.skin, z.grown, &z.skin)
}

// blobKind is what a blob of the zone's paper mask may be.
type blobKind int

const (
	blobSpeck  blobKind = iota // too small to be a piece of a card
	blobSleeve                 // larger than any heap of cards: a sleeve across the felt
	blobMark                   // a reference mark's quiet zone: paper, but no card
	blobPiece                  // a chip, printing, or a piece of a card's margin
	blobCard                   // one card on its own
	blobCards                  // more than one card
)

// blob is one blob of the zone's paper mask.
type blob struct {
	c     gocv.PointVector // its outline in the zone's picture, the contours'
	cards float64          // its area, in cards'
	kind  blobKind
	// A lone card's rectangle and index corners (singleCard).
	rect    [4]image.Point
	corners []corner
	// sealed: the outline of blobCards once d.seal has closed the cuts
	// in a card's margin, as outlinePolygon gives it (fillBlobs); nil
	// where none.
	sealed []image.Point
}

// blobs sorts the zone's paper blobs (contours, in the zone's picture)
// by what they may be.
func (d *Detector) blobs(z *zone, contours gocv.PointsVector) []blob {
	r := d.opts.PxPerMM
	cardPx := cardW * cardH * r * r
	out := make([]blob, contours.Size())
	for i := range out {
		b := &out[i]
		b.c = contours.At(i)
		a := gocv.ContourArea(b.c)
		b.cards = a / cardPx
		if b.cards < minPieceCards {
			b.kind = blobSpeck
			continue
		}
		if b.cards > maxBlobCards {
			b.kind = blobSleeve
			continue
		}
		rr := gocv.MinAreaRect(b.c)
		switch rect, rc, ok := singleCard(rr, a, cardPx, r); {
		case d.isMark(z, rr):
			b.kind = blobMark
		case b.cards < minBlobCards:
			b.kind = blobPiece
		case ok:
			b.kind, b.rect, b.corners = blobCard, rect, rc
		default:
			b.kind = blobCards
		}
	}
	return out
}

// fillBlobs draws the paper blobs filled in into z.filled: where a card
// lies, court figures and pips included. An index or a court's frame
// printed out to a card's edge cuts its margin, and the felt reaches
// into the card there: round each blob of several cards, the blob is
// filled in as d.seal closes such cuts too, and its outline so closed is
// kept in its sealed (sealedCorners); art that cuts a margin more widely
// is filled in where a wider closing encloses it (fillEnclosed). A lone
// card, and one whose margin is cut into pieces, are filled in whole by
// their rectangles (blobCorners). blobs are contours, sorted.
func (d *Detector) fillBlobs(z *zone, contours gocv.PointsVector, blobs []blob) {
	z.filled.SetTo(gocv.NewScalar(0, 0, 0, 0))
	if z.filled.Rows() != z.mask.Rows() || z.filled.Cols() != z.mask.Cols() {
		z.filled.Close()
		z.filled = gocv.NewMatWithSize(z.mask.Rows(), z.mask.Cols(), gocv.MatTypeCV8U)
	}
	if len(blobs) == 0 {
		return
	}
	gocv.DrawContours(&z.filled, contours, -1, white, -1)
	all := image.Rect(0, 0, z.mask.Cols(), z.mask.Rows())
	for i := range blobs {
		b := &blobs[i]
		if b.kind != blobCards {
			continue
		}
		// The closing joins to the blob the paper within a kernel of it
		// (a corner's tip an index printed across it cut off, which may
		// stand out past the blob), and grows that by half a kernel
		// before it shrinks back: the box leaves room for both.
		box := gocv.BoundingRect(b.c).Inset(-2 * d.seal.Cols()).Intersect(all)
		mask, filled := z.mask.Region(box), z.filled.Region(box)
		gocv.MorphologyEx(mask, &z.grown, gocv.MorphClose, d.seal)
		sealed := gocv.FindContours(z.grown, gocv.RetrievalExternal, gocv.ChainApproxSimple)
		gocv.DrawContours(&filled, sealed, -1, white, -1)
		// The closed outline: the one round a point of the blob's
		// outline, unless it reaches the box's edge (closed onto a
		// neighbour past the box).
		inner := image.Rect(1, 1, box.Dx()-1, box.Dy()-1)
		probe := b.c.At(0).Sub(box.Min)
		for j := range sealed.Size() {
			sc := sealed.At(j)
			if (box == all || gocv.BoundingRect(sc).In(inner)) && gocv.PointPolygonTest(sc, probe, false) >= 0 {
				pts := outlinePolygon(sc, d.opts.PxPerMM)
				for k := range pts {
					pts[k] = pts[k].Add(box.Min)
				}
				b.sealed = pts
				break
			}
		}
		sealed.Close()
		fillEnclosed(mask, &filled, &z.grown, d.enclose)
		mask.Close()
		filled.Close()
	}
}

// enclosedGapMM is the widest gap in a card's margin across which the
// art it encloses is still filled in (fillEnclosed): a court card's
// picture printed out to the card's edge can cut its margin along 10 mm,
// more than seal closes, and a card's width is 63 mm.
const enclosedGapMM = 14.0

// fillEnclosed fills into filled the holes of the paper mask that a
// closing by kernel (enclose) encloses: a card's picture or pips, whose
// margin its art cuts more widely than the blob's seal closes. Only the
// holes are filled, not the gaps the closing bridges along the outline,
// so the felt between two cards lying close stays felt. It works at half
// the mask's resolution (kernel is sized for it): the holes it fills are
// a card's art, tens of millimetres across. half is scratch.
func fillEnclosed(mask gocv.Mat, filled, half *gocv.Mat, kernel gocv.Mat) {
	gocv.Resize(mask, half, image.Pt((mask.Cols()+1)/2, (mask.Rows()+1)/2), 0, 0, gocv.InterpolationArea)
	gocv.MorphologyEx(*half, half, gocv.MorphClose, kernel)
	gocv.Threshold(*half, half, 127, 255, gocv.ThresholdBinary)
	hierarchy := gocv.NewMat()
	defer hierarchy.Close()
	contours := gocv.FindContoursWithParams(*half, &hierarchy, gocv.RetrievalCComp, gocv.ChainApproxSimple)
	defer contours.Close()
	var holes [][]image.Point
	for i := range contours.Size() {
		if hierarchy.GetVeciAt(0, i)[3] < 0 {
			continue // an outline, not a hole
		}
		pts := contours.At(i).ToPoints()
		for k := range pts {
			pts[k] = pts[k].Mul(2)
		}
		holes = append(holes, pts)
	}
	if len(holes) == 0 {
		return
	}
	pv := gocv.NewPointsVectorFromPoints(holes)
	defer pv.Close()
	gocv.DrawContours(filled, pv, -1, white, -1)
}

// blobCorners returns the card corners worth a crop on the outlines of
// the zone's paper blobs. A blob that is one card on its own gives its
// rectangle's index corners, the whole rectangle is filled in in
// z.filled, and the card goes in z.lone; so does a card whose margin is
// cut into pieces (marginCards).
func (d *Detector) blobCorners(z *zone, blobs []blob) []corner {
	r := d.opts.PxPerMM
	z.lone = z.lone[:0]
	grey, greyOK := newGreyPicture(d.grid.grey, z.roi)
	var cloth *greyPicture // the cloth, where the detector knows its colour
	if c, ok := newGreyPicture(d.grid.cloth, z.roi); ok && d.felt.known {
		cloth = &c
	}
	var corners []corner
	var pieces []piece // blobs too small for a card
	lone := func(rect [4]image.Point, rc []corner) {
		// A card on its own: its rectangle is sure even where an index
		// or a pip printed close to the edge notches the outline, and
		// the whole rectangle is paper: a pip reaching the edge would
		// put a test point of bodyOnPaper in the notch, and the card
		// go unseen.
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{rect[:]})
		gocv.FillPoly(&z.filled, pv, white)
		pv.Close()
		corners = append(corners, rc...)
		z.lone = append(z.lone, d.loneShape(z, rect))
	}
	for _, b := range blobs {
		switch b.kind {
		case blobPiece:
			// Worth keeping where it fits inside a card.
			if box := gocv.BoundingRect(b.c); max(box.Dx(), box.Dy()) <= int(maxCardBoxMM*r) {
				pieces = append(pieces, piece{box: box, pts: b.c.ToPoints()})
			}
		case blobCard:
			lone(b.rect, b.corners)
		case blobCards:
			var hidden *greyPicture // look for corners hidden inside it
			if b.cards > severalCards && greyOK {
				hidden = &grey
			}
			found := outlineCorners(b.c, hidden, r, b.sealed, cloth)
			corners = append(corners, found...)
			corners = append(corners, d.sealedCorners(b.sealed, b.c, found)...)
		}
	}
	for _, rc := range d.marginCards(z, pieces) {
		lone(rc.rect, rc.corners)
	}
	return corners
}

// sealedCorners returns the corners of a blob's outline once d.seal has
// closed the cuts an index printed out to a card's edge makes in it
// (sealed, from fillBlobs; c is the outline as it is), those not within
// 3 mm of one in have and whose edges run along c: such a cut takes the
// corner's tip off the outline, and the index's own notch may hide the
// rest.
func (d *Detector) sealedCorners(sealed []image.Point, c gocv.PointVector, have []corner) []corner {
	if len(sealed) == 0 {
		return nil
	}
	r := d.opts.PxPerMM
	var raw []image.Point // c's points, taken once a corner needs them
	var out []corner
	for _, k := range polygonOutlineCorners(sealed, nil, r, nil, nil) {
		if slices.ContainsFunc(have, func(h corner) bool { return h.P.Sub(k.P).Len() < 3*r }) {
			continue
		}
		if raw == nil {
			raw = c.ToPoints()
		}
		if alongOutline(raw, k, r) {
			out = append(out, k)
		}
	}
	return out
}

// alongOutline reports whether both edges of corner k run along the
// outline poly as it is, within a millimetre, at 3 or more of 10 points
// over their first 20 mm: the closing only bridged the cuts in a card's
// edges. A corner the closing made where two cards' edges meet runs off
// them.
func alongOutline(poly []image.Point, k corner, r float64) bool {
	for _, d := range [2]calibration.Point{k.U, k.V} {
		on := 0
		for t := 2.0; t <= 20; t += 2 {
			if distToPoly(poly, k.P.Add(d.Scale(t*r))) <= r {
				on++
			}
		}
		if on < 3 {
			return false
		}
	}
	return true
}

// A card found by its margin alone (marginCards): its rectangle in the
// zone's picture, and its index corners.
type marginCard struct {
	rect    [4]image.Point
	corners []corner
}

// piece is a blob of paper too small for a card: its outline and the
// upright rectangle around it, in the zone's picture.
type piece struct {
	box image.Rectangle
	pts []image.Point
}

// maxCardBoxMM: the upright rectangle around a card, at any angle, is no
// wider or taller than its diagonal (108 mm), with room for blur.
const maxCardBoxMM = 1.12 * 108

// marginCards returns the lone cards whose white margin an index or the
// face art printed close to the edge cuts into pieces, each too small
// for a card (a court card's frame reaching the edge beside its index):
// one piece, or two together, whose smallest enclosing rectangle has a
// card's sides, with paper along most of that rectangle's edge
// (minMarginShare) and over enough of its face (minPaperShare), which a
// line printed on the felt is not.
func (d *Detector) marginCards(z *zone, pieces []piece) []marginCard {
	r := d.opts.PxPerMM
	cardPx := cardW * cardH * r * r
	// The upright rectangle around a card is at least as wide and tall
	// as its short side.
	least, most := int((1-cardSideTol)*cardW*r), int(maxCardBoxMM*r)
	var out []marginCard
	used := make([]bool, len(pieces))
	try := func(box image.Rectangle, pts ...[]image.Point) bool {
		if min(box.Dx(), box.Dy()) < least || max(box.Dx(), box.Dy()) > most {
			return false
		}
		pv := gocv.NewPointVectorFromPoints(slices.Concat(pts...))
		rr := gocv.MinAreaRect(pv)
		pv.Close()
		rect, rc, ok := singleCard(rr, float64(rr.Width*rr.Height), cardPx, r)
		if !ok || d.marginShare(z, rect) < minMarginShare || d.paperShare(z, d.loneShape(z, rect)) < minPaperShare {
			return false
		}
		out = append(out, marginCard{rect: rect, corners: rc})
		return true
	}
	for i, a := range pieces {
		if used[i] {
			continue
		}
		if try(a.box, a.pts) {
			used[i] = true
			continue
		}
		for j := i + 1; j < len(pieces); j++ {
			b := pieces[j]
			if !used[j] && try(a.box.Union(b.box), a.pts, b.pts) {
				used[i], used[j] = true, true
				break
			}
		}
	}
	return out
}

// marginShare is the share of points along rect's edge (in the zone's
// picture), a millimetre inside it, that lie on paper in the zone's
// mask: a card's margin runs all round it, but for an index or a
// court's frame that reaches the edge.
func (d *Detector) marginShare(z *zone, rect [4]image.Point) float64 {
	r := d.opts.PxPerMM
	var c calibration.Point
	for _, q := range rect {
		c = c.Add(fromImage(q).Scale(0.25))
	}
	on, all := 0, 0
	for i, q := range rect {
		a, b := fromImage(q), fromImage(rect[(i+1)%4])
		// A millimetre in towards the centre, and a rounded corner's
		// length clear of each end.
		a, b = a.Add(c.Sub(a).Unit().Scale(r)), b.Add(c.Sub(b).Unit().Scale(r))
		side := b.Sub(a)
		n := int(side.Len() / r) // a point a millimetre
		for k := 0; k <= n; k++ {
			along := float64(k) / float64(max(n, 1))
			if along*side.Len() < 3*r || (1-along)*side.Len() < 3*r {
				continue
			}
			p := a.Add(side.Scale(along))
			x, y := int(p.X), int(p.Y)
			all++
			if x >= 0 && y >= 0 && x < z.mask.Cols() && y < z.mask.Rows() && z.mask.GetUCharAt(y, x) != 0 {
				on++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(on) / float64(all)
}

// outlineCorners returns the corners worth a crop on the outline c of a
// blob that is not one card on its own (r pixels a mm): the outline's
// card-like corners, those an index notch hides, and those a card's size
// completes; with the zone's grey picture, where the blob is more than
// one card, also the corners hidden along its straight stretches, shown
// by their cards' edges or by their indices alone. sealed is the blob's
// outline closed over cuts in a card's margin, or nil; cloth the zone's
// picture of the table's cloth, or nil where its colour is not known
// (both for completedCorners).
func outlineCorners(c gocv.PointVector, grey *greyPicture, r float64, sealed []image.Point, cloth *greyPicture) []corner {
	return polygonOutlineCorners(outlinePolygon(c, r), grey, r, sealed, cloth)
}

// outlinePolygon is outline c (r pixels a mm) as the polygon whose
// corners outlineCorners looks at.
func outlinePolygon(c gocv.PointVector, r float64) []image.Point {
	approx := gocv.ApproxPolyDP(c, outlineTolMM*r, true)
	defer approx.Close()
	return approx.ToPoints()
}

// polygonOutlineCorners is outlineCorners on an outline's polygon pts.
func polygonOutlineCorners(pts []image.Point, grey *greyPicture, r float64, sealed []image.Point, cloth *greyPicture) []corner {
	found := findCorners(pts, cornerEdgeMM*r, cornerGapMM*r, cornerTurnDeg)
	found = append(found, notchedCorners(pts, found, r)...)
	found = append(found, steppedCorners(pts, found, r, cloth)...)
	found = append(found, completedCorners(pts, found, r, sealed, cloth)...)
	if grey != nil {
		onOutline := len(found)
		found = append(found, findJunctions(*grey, pts, r, found)...)
		found = append(found, indexJunctions(*grey, pts, r, found, onOutline)...)
	}
	// A corner the outline shows to be a card's top right or bottom
	// left is not worth a crop: the model would read none there.
	return slices.DeleteFunc(found, func(fc corner) bool { return noIndexAt(pts, fc, r) })
}

// placeCorners places corners found in the zone's picture on the table,
// leaving out those along the zone's border or the picture's edge and
// those with no crop frame in the image, and moving out to the card's
// own corner those the paper shows inside a frame (frameWidth; where the
// cloth's colour is known). For each corner kept it returns
// its place on the table, where its crop is cut in the image, and the
// corner in the zone's picture.
func (d *Detector) placeCorners(z *zone, corners []corner) (at []corner, frames []classify.Frame, near []corner) {
	r := d.opts.PxPerMM
	paper, paperOK := newGreyPicture(d.grid.paper, z.roi)
	cloth, clothOK := newGreyPicture(d.grid.cloth, z.roi)
	framed := paperOK && clothOK && d.felt.known
	for _, c := range corners {
		if alongBorder(c, z.mask.Cols(), z.mask.Rows(), r) {
			continue
		}
		// A card printed with a dark frame along its edges shows its
		// paper's corner inside its own, by the frame's width.
		if framed {
			if w := frameWidth(paper, cloth, c, r); w > 0 {
				c.P = c.P.Sub(c.U.Add(c.V).Scale(w * r))
			}
		}
		tc := corner{
			P: pt(z.x0+c.P.X/r, z.y0+c.P.Y/r),
			U: c.U, V: c.V, // rectification only scales: directions hold
			Guessed: c.Guessed,
		}
		if d.alongPictureEdge(tc) {
			continue
		}
		f := d.frameAt(tc)
		if f.Validate() != nil {
			continue
		}
		at, frames, near = append(at, tc), append(frames, f), append(near, c)
	}
	return at, frames, near
}

// frameWidth is the width, in mm, of the dark frame that runs along both
// edges of corner c outside the paper, as some decks print one; 0 where
// none does. Paper and cloth are the zone's pictures of the paper and
// the cloth (r pixels a mm). Outward from each edge, at three points 4 to
// 8 mm from the corner, past the paper that blurs over the outline (up
// to frameMaxMM), the frame is what lies before the cloth or another
// card's paper: neither, some frameMinMM to frameMaxMM wide at all six.
// A card's drawn edge line, the picture's blur at the paper's edge, and
// a shadow on the cloth (which keeps its hue) are narrower or are cloth.
func frameWidth(paper, cloth greyPicture, c corner, r float64) float64 {
	const step = 0.25 // mm
	var sum float64
	for _, e := range [2][2]calibration.Point{{c.U, c.V.Scale(-1)}, {c.V, c.U.Scale(-1)}} {
		for _, s := range [3]float64{4, 6, 8} {
			base := c.P.Add(e[0].Scale(s * r))
			from, w := -1.0, 0.0
			for t := 0.0; ; t += step {
				if t > 2*frameMaxMM {
					return 0
				}
				q := base.Add(e[1].Scale(t * r))
				pv, ok := paper.pixel(q)
				cv, ok2 := cloth.pixel(q)
				if !ok || !ok2 {
					return 0
				}
				if from < 0 {
					if pv == 0 && cv == 0 {
						from = t
					} else if cv != 0 || t >= frameMaxMM {
						return 0
					}
					continue
				}
				if pv != 0 || cv != 0 {
					w = t - from
					break
				}
			}
			if w < frameMinMM || w > frameMaxMM {
				return 0
			}
			sum += w
		}
	}
	return sum / 6
}

// The widths frameWidth takes for a frame printed along a card's edges.
const (
	frameMinMM = 0.6
	frameMaxMM = 2.5
)

// cutCrops cuts a crop from the full frame at each corner worth reading
// (at on the table, frames in the image, near in the zone's picture) and
// adds its reading to z.reads: a crop that looks as it did when last read
// keeps that reading, the others wait in z.batch for the model. Cached
// readings no corner looks as before are dropped.
func (d *Detector) cutCrops(frame gocv.Mat, z *zone, at []corner, frames []classify.Frame, near []corner) {
	for len(z.crops) < len(at) {
		z.crops = append(z.crops, gocv.NewMat())
	}
	used := make([]bool, len(z.cache))
	onPaper := func(p calibration.Point) bool { return d.onPaper(z, p) }
	onCloth := func(p calibration.Point) bool { return d.onCloth(z, p) }
	for i, tc := range at {
		// A corner is worth reading only if its reading could count
		// (observe): as an index, its card must lie on the paper, and,
		// placed from its index alone, not reach over the felt; as a
		// back, another corner must agree on the card's centre.
		offPaper := !bodyOnPaper(tc, onPaper) || tc.Guessed && bodyOverCloth(tc, onCloth)
		if offPaper && !backPartner(at, i) {
			continue
		}
		c, f := near[i], frames[i]
		crop := z.crops[len(z.batch)]
		if err := z.cropper.Cut(frame, f, &crop); err != nil {
			continue
		}
		z.crops[len(z.batch)] = crop
		rd := read{at: tc, frame: f, capped: z.busy && d.skinNear(z, c)}
		// Most corners in a changed zone are of cards that were there
		// before: a crop that looks as it did keeps its reading.
		if k, ok := z.cached(tc, crop, used); ok {
			rd.confirmed = z.cache[k].confirmed
			rd.setResult(z.cache[k].res)
			rd.cached = true
			used[k] = true
			z.reads = append(z.reads, rd)
			continue
		}
		// However many corners there are, all are read: classify sends
		// them to the model MaxBatch at a time.
		z.batch = append(z.batch, crop)
		z.pending = append(z.pending, len(z.reads))
		z.reads = append(z.reads, rd)
	}
	z.keepCache(used)
}

// keepCache keeps the cached readings still in use (used[k]) and closes
// the others' crops; finishZone adds the new ones.
func (z *zone) keepCache(used []bool) {
	kept := z.cache[:0]
	for k, c := range z.cache {
		if used[k] {
			kept = append(kept, c)
		} else {
			c.crop.Close()
		}
	}
	z.cache = kept
}

// finishZone takes the model's verdicts on the zone's batch, has the sure
// readings at guessed corners confirmed and a card's corners that read as
// two cards read again turned (settleTurned), and turns the zone's
// readings into observations. frame is the frame the crops were cut from.
func (d *Detector) finishZone(frame gocv.Mat, z *zone, res []classify.Result) error {
	for i := range res {
		if res[i].Card.Valid() && faintRank(z.batch[i]) {
			res[i].Confidence = math.Min(res[i].Confidence, faintConfidence)
		}
		z.reads[z.pending[i]].setResult(res[i])
	}
	if err := d.confirmGuessed(frame, z, res); err != nil {
		return err
	}
	if err := d.settleTurned(frame, z); err != nil {
		return err
	}
	// A crop that looks the same later keeps the reading as it stands,
	// confirmed or capped.
	for i := range res {
		if rd := z.reads[z.pending[i]]; res[i].Confidence >= cacheConfidence {
			z.cache = append(z.cache, cachedRead{at: rd.at, crop: z.batch[i].Clone(), res: rd.res, confirmed: rd.confirmed})
		}
	}
	settleContests(z)
	z.obs = d.observe(z.reads, z.shapes, z.pips, func(p calibration.Point) bool { return d.onPaper(z, p) })
	if d.opts.CountPips {
		d.checkPips(z)
	}
	return nil
}

// confirmShiftMM is how far along its top edge from a guessed corner,
// either way, the second crops that confirm its reading are cut: a
// corner guessed from the index's first ink may lie a couple of
// millimetres off the card's, and a crop cut off a corner can lose part
// of the suit and read the suit wrong. Two crops 1.5 mm apart that read
// the same card surely show the index whole.
const confirmShiftMM = 1.5

// confirmGuessed reads two more crops, cut confirmShiftMM along the top
// edge each way, for each guessed corner the model read surely as a card
// (res, the model's verdicts on z.batch). Where one of them reads the
// same card surely too, the reading is confirmed: it is not capped, but
// as sure as the less sure of it and the surer second crop. The corner
// may have been guessed past the card's own or short of it. Readings
// kept from the cache keep what was found when they were read. A
// guessed corner the model reads as a card is rare (most guessed corners
// lie at pips and read as none), so this costs crops only now and then.
func (d *Detector) confirmGuessed(frame gocv.Mat, z *zone, res []classify.Result) error {
	var which []int // the verdict each second crop in z.twins is for
	for i, r := range res {
		rd := &z.reads[z.pending[i]]
		if !rd.at.Guessed || !r.Card.Valid() || r.Confidence < Confident {
			continue
		}
		for _, shift := range [2]float64{confirmShiftMM, -confirmShiftMM} {
			at := rd.at
			at.P = at.P.Add(at.U.Scale(shift))
			f := d.frameAt(at)
			if f.Validate() != nil {
				continue
			}
			if len(z.twins) == len(which) {
				z.twins = append(z.twins, gocv.NewMat())
			}
			crop := z.twins[len(which)]
			if err := z.cropper.Cut(frame, f, &crop); err != nil {
				continue
			}
			z.twins[len(which)] = crop
			which = append(which, i)
		}
	}
	twins, err := d.readAll(z.twins[:len(which)])
	if err != nil {
		return err
	}
	surest := make(map[int]float64) // of the second crops that read the verdict's card surely
	for k, t := range twins {
		if i := which[k]; t.Card == res[i].Card && t.Confidence >= Confident {
			surest[i] = math.Max(surest[i], t.Confidence)
		}
	}
	for i, conf := range surest {
		r := res[i]
		r.Confidence = math.Min(r.Confidence, conf)
		rd := &z.reads[z.pending[i]]
		rd.confirmed = true
		rd.setResult(r)
	}
	return nil
}

// cacheConfidence is the least confidence of a reading that a crop looking
// the same keeps. A doubtful reading is read again whenever its zone is:
// it is often of a card still settling or half covered, and a crop can
// look the same by its mean and still show the index better.
const cacheConfidence = 0.75

// cachedRead is a corner read earlier, with the crop it was read from;
// confirmed as read.confirmed.
type cachedRead struct {
	at        corner
	crop      gocv.Mat
	res       classify.Result
	confirmed bool
}

// cached finds an earlier reading of the same corner whose crop looks the
// same, within the noise of the camera and the encoder.
func (z *zone) cached(c corner, crop gocv.Mat, used []bool) (int, bool) {
	for k, e := range z.cache {
		if used[k] || !sameCorner(e.at, c) {
			continue
		}
		gocv.AbsDiff(crop, e.crop, &z.cropDiff)
		if mean := z.cropDiff.Mean(); (mean.Val1+mean.Val2+mean.Val3)/3 < 4 {
			return k, true
		}
	}
	return -1, false
}

// sameCorner reports whether two corners on the table are one, within a
// millimetre and a few degrees.
func sameCorner(a, b corner) bool {
	return a.P.Sub(b.P).Len() <= 1 && dot(a.U, b.U) >= 0.999 && dot(a.V, b.V) >= 0.999
}

// cardSideTol is how far a card's sides, measured from its outline, may
// be from 63 × 88 mm, as a share of each.
const cardSideTol = 0.12

// singleCard reports whether a blob is one card: its area and the sides
// of its smallest enclosing rectangle rr are a card's. It returns that
// rectangle and the card's index corners.
func singleCard(rr gocv.RotatedRect, area, cardPx, r float64) ([4]image.Point, []corner, bool) {
	var rect [4]image.Point
	if area < 0.75*cardPx || area > 1.15*cardPx {
		return rect, nil, false
	}
	if len(rr.Points) != 4 {
		return rect, nil, false
	}
	p := make([]calibration.Point, 4)
	for i, q := range rr.Points {
		p[i] = pt(float64(q.X), float64(q.Y))
		rect[i] = q
	}
	s1, s2 := p[1].Sub(p[0]).Len(), p[2].Sub(p[1]).Len()
	short, long := math.Min(s1, s2), math.Max(s1, s2)
	if math.Abs(short/r-cardW) > cardSideTol*cardW || math.Abs(long/r-cardH) > cardSideTol*cardH {
		return rect, nil, false
	}
	var out []corner
	for i := range p {
		prev, next := p[(i+3)%4], p[(i+1)%4]
		u, v := next.Sub(p[i]), prev.Sub(p[i])
		if cross(u, v) < 0 {
			u, v = v, u
		}
		if u.Len() > v.Len() {
			// The right-handed frame runs along the long edge here: the
			// top-right or bottom-left corner, which has no index.
			continue
		}
		out = append(out, corner{P: p[i], U: u.Unit(), V: v.Unit()})
	}
	return rect, out, true
}

// isMark reports whether a blob of the zone's paper mask (its smallest
// enclosing rectangle rr) is one of the table's reference marks: the white quiet zone around a
// mark's black square makes a square blob of paper, about 1.35 times the
// square's side. It is taken for the mark when it is centred on the mark
// (within a quarter of its side) and square, each side 1.1 to 1.6 times
// the mark's: a card's long edge is longer than that, alone or lying over
// a mark, so cards are looked at as ever.
func (d *Detector) isMark(z *zone, rr gocv.RotatedRect) bool {
	r := d.opts.PxPerMM
	cx, cy := z.x0+float64(rr.Center.X)/r, z.y0+float64(rr.Center.Y)/r
	w, h := float64(rr.Width)/r, float64(rr.Height)/r
	for _, m := range d.cal.Table.Marks {
		in := func(side float64) bool { return side >= 1.1*m.Size && side <= 1.6*m.Size }
		if math.Hypot(cx-m.Center.X, cy-m.Center.Y) < m.Size/4 && in(w) && in(h) {
			return true
		}
	}
	return false
}

// onPaper reports whether a table point lies on card paper in the zone's
// mask (a card's face or back).
func (d *Detector) onPaper(z *zone, p calibration.Point) bool {
	paper, _ := d.paperAt(z, p)
	return paper
}

// onCloth reports whether table point p lies on the table's cloth, by
// its colour, in the zone's rectified picture: false where the cloth's
// colour is not known, or p lies outside the picture.
func (d *Detector) onCloth(z *zone, p calibration.Point) bool {
	if !d.felt.known {
		return false
	}
	r := d.opts.PxPerMM
	x, y := int((p.X-z.x0)*r), int((p.Y-z.y0)*r)
	if x < 0 || y < 0 || x >= z.roi.Dx() || y >= z.roi.Dy() {
		return false
	}
	return d.grid.cloth.GetUCharAt(y+z.roi.Min.Y, x+z.roi.Min.X) != 0
}

// paperAt reports whether table point p lies on card paper in the zone's
// mask, and whether it lies in the zone's rectified picture at all, where
// the mask can tell paper from felt.
func (d *Detector) paperAt(z *zone, p calibration.Point) (paper, seen bool) {
	r := d.opts.PxPerMM
	x, y := int((p.X-z.x0)*r), int((p.Y-z.y0)*r)
	if x < 0 || y < 0 || x >= z.filled.Cols() || y >= z.filled.Rows() {
		return false, false
	}
	return z.filled.GetUCharAt(y, x) != 0, true
}

// skinNear reports whether skin lies within a card's length of a corner in
// the rectified zone.
func (d *Detector) skinNear(z *zone, c corner) bool {
	r := d.opts.PxPerMM
	reach := cardH * r
	box := image.Rect(int(c.P.X-reach), int(c.P.Y-reach), int(c.P.X+reach), int(c.P.Y+reach)).
		Intersect(image.Rect(0, 0, z.skin.Cols(), z.skin.Rows()))
	if box.Empty() {
		return false
	}
	roi := z.skin.Region(box)
	defer roi.Close()
	return gocv.CountNonZero(roi) > int(300*r*r)
}

// rereadIndex reports whether reads[i] is an index another read found a
// few millimetres away and read surer as the same card: one index, read
// from two corners at different angles (the outline's own corner, and a
// junction beside it). Taken as two, their centres lie apart by the card's
// half-diagonal times the angle between them, and the card counts twice
// (corners 4 mm and 14° apart put the centres some 14 mm apart).
// Two cards alike never lie with their index corners that close: the upper
// would hide the lower's index. Only a reading that counts (its card on
// the paper) stands in for another.
func rereadIndex(reads []read, i int, onPaper func(calibration.Point) bool) bool {
	rd := reads[i]
	for j, o := range reads {
		if j != i && o.res.Card == rd.res.Card && o.at.P.Sub(rd.at.P).Len() < sameIndexMM &&
			(o.res.Confidence > rd.res.Confidence || o.res.Confidence == rd.res.Confidence && j < i) &&
			bodyOnPaper(o.at, onPaper) {
			return true
		}
	}
	return false
}

// sameIndexMM is how close two corners read as the same card must lie to
// be one index.
const sameIndexMM = 6.0

// frameAt maps a corner on the table to a crop frame in image pixels.
func (d *Detector) frameAt(c corner) classify.Frame {
	const step = 5.0 // mm: a finite difference over the lens's gentle curve
	ox, oy := d.cal.ToImage(c.P)
	ux, uy := d.cal.ToImage(c.P.Add(c.U.Scale(step)))
	vx, vy := d.cal.ToImage(c.P.Add(c.V.Scale(step)))
	// The crop's pixel convention puts pixel centres at integers; the
	// corner is a point between pixels.
	return classify.Frame{
		Origin: classify.Vec{X: ox - 0.5, Y: oy - 0.5},
		U:      classify.Vec{X: (ux - ox) / step, Y: (uy - oy) / step},
		V:      classify.Vec{X: (vx - ox) / step, Y: (vy - oy) / step},
	}
}

// observe turns corner readings into cards: the two index corners of a
// card agree on where its centre is, and so do the corners of a back. A
// card the outline shows (shapes) that no reading names is there all
// the same, unread: what the model sees of it below Unreadable says
// nothing of it. counted holds what each shape's pips say (one for each
// of shapes, or none).
func (d *Detector) observe(reads []read, shapes []cardShape, counted []shapePips, onPaper func(calibration.Point) bool) []Observation {
	unread := unreadShapes(reads, shapes)
	bs := backs(reads)
	onCard := func(p calibration.Point) bool { return onPaper(p) || onBack(bs, p) }
	var out []Observation
	for _, g := range faceGroups(reads, onCard, pipsWitness(shapes, counted)) {
		if g.conf < Unreadable && nearShape(g.centre, unread) {
			continue
		}
		conf := g.conf
		if g.capped {
			conf = math.Min(conf, d.opts.CoveredConfidence)
		}
		o := d.observation(g.card, conf, false, g.centre, g.v)
		o.Rivals, o.indices, o.otherSuit = g.rivals, len(g.at), g.otherSuit
		out = append(out, o)
	}
	for _, b := range bs {
		out = append(out, d.observation(cards.Card{}, b.conf, true, b.centre, b.v))
	}
	return append(out, d.unknowns(unread, out)...)
}

// faceGroup is the index corners read as one card whose centres agree
// (at; none once the group is emptied), capped if the dealer's hand was
// near any. conf is the surest reading's. guessed: every corner is a
// guessed one no second crop confirmed, whose crop may have lost part of
// the suit.
type faceGroup struct {
	face
	at      []corner
	capped  bool
	guessed bool
	// like holds how each reading's crop compares with the enrolled
	// deck; empty without a deck.
	like []*classify.Likeness
	// rivals are the other cards read where the group's card lies that
	// put it in doubt, where its own reading is sure (dropSamePlace).
	rivals []cards.Card
	// otherSuit is the least classify.Result.OtherSuit of its readings.
	otherSuit float64
}

// looksLike reports whether the enrolled deck compared the group's
// readings, and each lies deckPairRatio times nearer card a's enrolled
// corners than card b's.
func (g *faceGroup) looksLike(a, b cards.Card) bool {
	for _, l := range g.like {
		if !l.Prefers(a, b, deckPairRatio) {
			return false
		}
	}
	return len(g.like) > 0
}

// kept reports whether g still stands for a card: no rule has emptied it.
func (g *faceGroup) kept() bool { return len(g.at) > 0 }

// faceGroups returns the card faces the index readings show, each once.
// pips is what the pips of the card at a face say of its rank (nil: no
// pips were counted).
func faceGroups(reads []read, onPaper func(calibration.Point) bool, pips func(face) (cards.Rank, bool)) []*faceGroup {
	faces := groupIndices(reads, onPaper)
	dropBorrowed(faces)
	settleByDeck(faces)
	settleByPips(faces, pips)
	dropSamePlace(faces)
	dropTurned(faces)
	return slices.DeleteFunc(faces, func(g *faceGroup) bool { return !g.kept() })
}

// countsAsIndex reports whether reads[i] counts as the reading of a
// card's index: it names a card, that card lies on the paper, and no
// surer reading of the same index stands in for it.
func countsAsIndex(reads []read, i int, onPaper func(calibration.Point) bool) bool {
	rd := reads[i]
	return rd.res.Card.Valid() && bodyOnPaper(rd.at, onPaper) && !rereadIndex(reads, i, onPaper)
}

// groupIndices groups the readings of an index that count by card and
// centre: the centre lies 31.5 mm along U and 44 mm along V from an index
// corner. A reading counts when its card lies on the paper and no surer
// reading of the same index stands in for it.
func groupIndices(reads []read, onPaper func(calibration.Point) bool) []*faceGroup {
	var faces []*faceGroup
	for i, rd := range reads {
		if !countsAsIndex(reads, i, onPaper) {
			continue
		}
		c := indexCentre(rd.at)
		var g *faceGroup
		for _, f := range faces {
			if f.card == rd.res.Card && f.centre.Sub(c).Len() < sameFaceMM {
				g = f
				break
			}
		}
		if g == nil {
			g = &faceGroup{face: face{card: rd.res.Card, centre: c, v: rd.at.V}, guessed: true}
			faces = append(faces, g)
		} else {
			n := float64(len(g.at))
			g.centre = g.centre.Scale(n).Add(c).Scale(1 / (n + 1))
		}
		if len(g.at) == 0 || rd.res.OtherSuit < g.otherSuit {
			g.otherSuit = rd.res.OtherSuit
		}
		g.at = append(g.at, rd.at)
		g.conf = math.Max(g.conf, rd.res.Confidence)
		g.capped = g.capped || rd.capped
		g.guessed = g.guessed && rd.at.Guessed && !rd.confirmed
		if rd.res.Likeness != nil {
			g.like = append(g.like, rd.res.Likeness)
		}
	}
	return faces
}

// dropBorrowed empties each group that is another card's index
// read from a corner that is not that card's. Most decks print the index
// turned half round at the opposite corner, and many at all four; where a
// card lies over another, a corner found a little way along its edge (a
// junction, or the hidden corner of the card beneath) can cut a crop
// turned half round from the card's own frame that sees one of those
// indices upright, and reads it surely. Such a reading puts the card on
// top where the card beneath lies, as surely as the card beneath is read
// there, and the card on top is read again where it lies. So of two groups
// of one card lying apart, read from corners a half turn from each other
// with the index of one inside the other card, the one that shares its
// place with a reading of another card is the borrowed one, unless the
// other shares its place too. Two cards alike overlapping like that
// cannot both show an index. A group read at both of its card's index
// corners, half a turn apart and agreeing on its centre, is that card's
// own: a borrowed reading comes from one corner that is not the card's.
func dropBorrowed(faces []*faceGroup) {
	for _, h := range faces {
		for _, g := range faces {
			if h != g && h.kept() && g.kept() && h.card == g.card && h.centre.Sub(g.centre).Len() >= sameFaceMM &&
				halfTurnTwins(h.at, g.at) && !halfTurnTwins(h.at, h.at) && hasRival(faces, h) && !hasRival(faces, g) {
				h.at = nil
			}
		}
	}
}

// halfTurnTwins reports whether a corner of one group and a corner of
// another point half round from each other, within 25°, with the index
// of one inside the other's card.
func halfTurnTwins(as, bs []corner) bool {
	for _, a := range as {
		for _, b := range bs {
			if dot(a.U, b.U) < -0.9 && (insideCard(b, indexMiddle(a)) || insideCard(a, indexMiddle(b))) {
				return true
			}
		}
	}
	return false
}

// hasRival reports whether another card is read where g lies.
func hasRival(faces []*faceGroup, g *faceGroup) bool {
	for _, k := range faces {
		if k != g && k.kept() && k.card != g.card && k.centre.Sub(g.centre).Len() < SameCardMM {
			return true
		}
	}
	return false
}

// indexMiddle returns the middle of the index at corner at: the common
// decks' indices fill some 12 × 25 mm from the corner.
func indexMiddle(at corner) calibration.Point {
	return at.P.Add(at.U.Scale(6)).Add(at.V.Scale(12))
}

// insideCard reports whether p lies inside the card whose index corner is
// at, 2 mm clear of its edges.
func insideCard(at corner, p calibration.Point) bool {
	const margin = 2.0
	d := p.Sub(at.P)
	u, v := dot(d, at.U), dot(d, at.V)
	return u > margin && u < cardW-margin && v > margin && v < cardH-margin
}

// deckPairRatio is how many times nearer one card's enrolled corners
// than another's (in 1 − cosine of the features) every crop of a place
// must lie for the deck to settle which of the two lies there
// (settleByDeck): as far as DefaultMatchOptions asks of the runner-up.
// In TestEnrolledThresholds' two-card table (gnome and procedural decks,
// never the KDE decks), no visible corner of 1,999 lies 3 times nearer
// another card than its own; 1 lies 2 times nearer.
const deckPairRatio = 3.0

// settleByDeck empties, with an enrolled deck, each group that lies where
// a group of another card does, when the crops of both look more like
// that other card's enrolled corners than like this one's: the deck
// settles which of the two cards lies there, whichever the model read
// surer. A deck may print its second index in its own way (upright
// instead of turned, say), which the model misreads as another card as
// surely as it reads the first; the enrolled deck holds both corners of
// every card as this deck prints them.
func settleByDeck(faces []*faceGroup) {
	for _, g := range faces {
		for _, h := range faces {
			if g != h && g.kept() && h.kept() && g.card != h.card && g.centre.Sub(h.centre).Len() < SameCardMM &&
				g.looksLike(g.card, h.card) && h.looksLike(g.card, h.card) {
				h.at = nil
			}
		}
	}
}

// dropSamePlace empties each group that lies where a surer one does
// (samePlace): two groups at one place are one card read two ways. Where
// the emptied group read another card at disputeFloor or more, at a corner
// not merely guessed, the card's corners disagree and one of them is
// misread: the surer reading stands, in doubt (DisputedConfidence),
// and, where it was sure, with the cards it was disputed by as its
// rivals.
func dropSamePlace(faces []*faceGroup) {
	disputed := make([]bool, len(faces))
	for i, g := range faces {
		for j, h := range faces {
			if i != j && g.kept() && h.kept() && samePlace(g, h) && (h.conf < g.conf || (h.conf == g.conf && j > i)) {
				h.at = nil
				if h.card != g.card && putsInDoubt(h.conf, h.guessed) {
					disputed[i] = true
					for _, c := range append([]cards.Card{h.card}, h.rivals...) {
						if c != g.card && !slices.Contains(g.rivals, c) {
							g.rivals = append(g.rivals, c)
						}
					}
				}
			}
		}
	}
	for i, g := range faces {
		if disputed[i] && g.kept() {
			if g.conf < Confident {
				g.rivals = nil
			}
			g.conf = math.Min(g.conf, DisputedConfidence)
		}
	}
}

// samePlace reports whether groups g and h lie at one place: their
// centres closer than SameCardMM, or, where each is one corner's reading
// and they read two suits of one rank at corners a half turn from each
// other, the index of one inside the other's card (halfTurnTwins),
// closer than twinCardMM. A corner whose edges show only a few
// millimetres of the outline, as in a tight fan, can be placed some 10°
// askew, which moves the centre it gives by 10 mm and more; its card's
// other index corner, misread as another suit of the same rank, would
// otherwise count as a second card. A group read at two corners already
// has its card's other corner. Two groups of one card apart both stand:
// the tracker takes them for one card, and the better placed of the two
// may be the less sure.
func samePlace(g, h *faceGroup) bool {
	d := g.centre.Sub(h.centre).Len()
	return d < SameCardMM || d < twinCardMM && len(g.at) == 1 && len(h.at) == 1 &&
		g.card != h.card && g.card.Rank == h.card.Rank && halfTurnTwins(g.at, h.at)
}

// twinCardMM is how far apart the centres of one card, read at its two
// index corners, may lie (samePlace): less than cards dealt into one
// hand lie apart, some 20 mm and more, whose indices also lie outside
// each other's cards.
const twinCardMM = 18.0

// putsInDoubt reports whether a reading of another card where a card
// lies, at confidence conf, puts that card in doubt: at disputeFloor or
// more, at a corner not merely guessed.
func putsInDoubt(conf float64, guessed bool) bool {
	return conf >= disputeFloor && !guessed
}

// disputeFloor is the least confidence at which a reading of another
// card, at a card's other corner, puts the card in doubt: one more likely
// right than not.
const disputeFloor = 0.5

// dropTurned empties each group that is another's turned reading.
// A deck with an index in every corner is read at a corner of the other
// kind too, a quarter turned: its card's centre comes out (cardH-cardW)/2
// off along both of the card's axes, and turned a quarter. Where the same
// card is read surer as the card that corner is of, the turned reading is
// that card's. So is a doubtful reading of another card there: the turned
// index misread (a 6♦ read as a 9♦ at 0.42 would put a 9♦ in the
// hand).
func dropTurned(faces []*faceGroup) {
	for _, g := range faces {
		for _, h := range faces {
			if g.kept() && h.kept() && h != g && turnedReading(g.face, h.face) {
				h.at = nil
			}
		}
	}
}

// backHyp is where a back could lie: its centre and long axis, the
// corners read as a back that agree on it, each one of its corners, and
// the surest reading among them.
type backHyp struct {
	centre, v calibration.Point
	conf      float64
	corners   []calibration.Point
}

// onBack reports whether table point p lies on one of the backs bs. A
// back is card, but the paper mask sees only its white margin, and
// fills in the printed back it rings only where the ring is whole: a
// back the picture's edge cuts, or one printed to its edges, leaves its
// body felt, and with it the body of a card it covers.
func onBack(bs []*backHyp, p calibration.Point) bool {
	for _, b := range bs {
		if across, along := (cardShape{b.centre, b.v}).local(p); math.Abs(across) <= cardW/2 && math.Abs(along) <= cardH/2 {
			return true
		}
	}
	return false
}

// backCornerApartMM: two readings of a back count as two of its corners
// only this far apart. A card's corners lie a short edge (63 mm) or more
// apart; two places found a few millimetres apart along one edge (where
// the edge of a card beneath meets it) are one corner, or none, and
// would put a second back, turned a quarter, beside the first.
const backCornerApartMM = cardW / 2

// vote counts corner p for h if it lies apart from the corners h has.
func (h *backHyp) vote(p calibration.Point) {
	for _, q := range h.corners {
		if q.Sub(p).Len() < backCornerApartMM {
			return
		}
	}
	h.corners = append(h.corners, p)
}

// backs returns the card backs the readings show. A corner cannot tell
// which edge is the short one, so each offers two centres; the corners of
// one back agree on one of them. The places most corners agree on stand,
// each clear of the others.
func backs(reads []read) []*backHyp {
	hyps := backHyps(reads)
	sort.SliceStable(hyps, func(i, j int) bool { return len(hyps[i].corners) > len(hyps[j].corners) })
	var out []*backHyp
	for _, h := range hyps {
		if len(h.corners) < backVotes {
			break
		}
		clash := false
		for _, b := range out {
			if b.centre.Sub(h.centre).Len() < backClashMM {
				clash = true
			}
		}
		if !clash {
			out = append(out, h)
		}
	}
	return out
}

// backHyps collects the places the readings of a back offer for its
// centre, each with the corners that agree on it.
func backHyps(reads []read) []*backHyp {
	var hyps []*backHyp
	for _, rd := range reads {
		if !rd.res.Back {
			continue
		}
		centres := backCentres(rd.at)
		for _, h := range [2]struct{ c, v calibration.Point }{{centres[0], rd.at.V}, {centres[1], rd.at.U}} {
			matched := false
			for _, x := range hyps {
				if x.centre.Sub(h.c).Len() < sameBackMM {
					x.vote(rd.at.P)
					x.conf = math.Max(x.conf, rd.res.Confidence)
					matched = true
				}
			}
			if !matched {
				hyps = append(hyps, &backHyp{centre: h.c, v: h.v, conf: rd.res.Confidence, corners: []calibration.Point{rd.at.P}})
			}
		}
	}
	return hyps
}

// face is a card face read somewhere: the card, how surely, and where it
// lies (its centre and long axis, in table mm).
type face struct {
	card      cards.Card
	conf      float64
	centre, v calibration.Point
}

// turnedReading reports whether h is g's card seen at a corner of the
// other kind, a quarter turned (dropTurned): its centre (cardH-cardW)/2 off
// along both of g's axes, its axis square to g's, and read less surely,
// either as the same card or doubtfully as another.
func turnedReading(g, h face) bool {
	const turnedOff = (cardH - cardW) / 2
	if h.conf >= g.conf || (h.card != g.card && h.conf >= Confident) {
		return false
	}
	v := g.v.Unit()
	u := pt(-v.Y, v.X)
	d := h.centre.Sub(g.centre)
	return math.Abs(math.Abs(dot(d, u))-turnedOff) < 5 && math.Abs(math.Abs(dot(d, v))-turnedOff) < 5 && math.Abs(dot(v, h.v.Unit())) < 0.5
}

// bodyOnPaper reports whether the body of the card whose index corner is
// at lies on the paper. A reading at a corner whose card would lie off the
// paper is the model seeing an index where there is none (a corner of
// another kind, or one read turned a quarter). The body is tested at its
// centre and at four points towards its corners, inside its pip area: the
// index columns along the long edges are left out, as their ink reaches
// the edge in some decks, where the outline of the paper has notches.
// A test point in a pip is on the card too: the blob's outline fills a
// pip in, but not one that a notch joins to the felt (a pip printed close
// to a frame line near the edge), so a point off the paper counts where
// there is paper round it, pipReachMM away along the card's axes, on
// three sides of four (the fourth may be the notch).
func bodyOnPaper(at corner, onPaper func(calibration.Point) bool) bool {
	c := indexCentre(at)
	for _, k := range [5][2]float64{{0, 0}, {-0.25, -0.35}, {0.25, -0.35}, {0.25, 0.35}, {-0.25, 0.35}} {
		p := c.Add(at.U.Scale(k[0] * cardW)).Add(at.V.Scale(k[1] * cardH))
		if !onPaper(p) && !inHole(p, at, onPaper) {
			return false
		}
	}
	return true
}

// bodyOverCloth reports whether the card whose index corner is at would
// reach over the table's cloth: at half its length, 8 mm and 3 mm in
// from either long edge, the cloth shows. A corner placed from an index
// alone stands on nothing else: a four-index deck's index beside the
// corner it is placed from offers a card reaching past the end of a
// row, some 15 mm over felt, where the tests of bodyOnPaper, nearer the
// centre, still find paper; a corner placed 5 mm off its card's (an
// index inset more than most) still finds paper 3 mm in.
func bodyOverCloth(at corner, onCloth func(calibration.Point) bool) bool {
	c := indexCentre(at)
	for _, side := range [2]float64{-1, 1} {
		out := at.U.Scale(side)
		if onCloth(c.Add(out.Scale(cardW/2-8))) && onCloth(c.Add(out.Scale(cardW/2-3))) {
			return true
		}
	}
	return false
}

// inHole reports whether paper lies round p: pipReachMM away along the
// card's axes (those of corner at), on at least three sides.
func inHole(p calibration.Point, at corner, onPaper func(calibration.Point) bool) bool {
	u, v := at.U.Scale(pipReachMM), at.V.Scale(pipReachMM)
	n := 0
	for _, q := range [4]calibration.Point{p.Add(u), p.Sub(u), p.Add(v), p.Sub(v)} {
		if onPaper(q) {
			n++
		}
	}
	return n >= 3
}

// pipReachMM is how far from a point in a pip paper lies each way: a
// number card's pip is 8 to 13 mm tall (cardface draws them so). It is
// less than bodyOnPaper's points keep from the card's edges (13 to 16 mm),
// so a body that reaches past its paper is still refused.
const pipReachMM = 10.0

// backCentres returns the centres of the card back that corner c could
// be a corner of: with its short edge along U, and along V.
func backCentres(c corner) [2]calibration.Point {
	return [2]calibration.Point{
		indexCentre(c),
		c.P.Add(c.U.Scale(cardH / 2)).Add(c.V.Scale(cardW / 2)),
	}
}

// sameBackMM is how close the centres two corners give a back must be
// for the corners to be of one back.
const sameBackMM = 8.0

// backPartner reports whether another of the corners agrees with corner i
// on where a back's centre could be: a back is seen only where two of
// its corners are read as a back.
func backPartner(cs []corner, i int) bool {
	mine := backCentres(cs[i])
	for j, c := range cs {
		if j == i {
			continue
		}
		for _, p := range backCentres(c) {
			if p.Sub(mine[0]).Len() < sameBackMM || p.Sub(mine[1]).Len() < sameBackMM {
				return true
			}
		}
	}
	return false
}

// observation builds a card seen at centre with its long edge along v.
func (d *Detector) observation(c cards.Card, conf float64, down bool, centre, v calibration.Point) Observation {
	v = v.Unit()
	u := pt(-v.Y, v.X) // along the short edge
	o := Observation{
		Card: c, Confidence: conf, FaceDown: down,
		Center: centre,
		Angle:  math.Atan2(v.Y, v.X) * 180 / math.Pi,
	}
	for i, k := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		p := centre.Add(u.Scale(k[0] * cardW / 2)).Add(v.Scale(k[1] * cardH / 2))
		o.Quad[i] = p
		x, y := d.cal.ToImage(o.Quad[i])
		o.ImageQuad[i] = pt(x, y)
		o.Clipped = o.Clipped || !d.inPicture(x, y)
	}
	return o
}

// clipMargin is how near the picture's edge, in pixels, a card's outline
// counts as reaching past it: the outline is placed from the card's
// centre and direction, to a pixel or two.
const clipMargin = 2.0

// inPicture reports whether image point (x, y) lies inside the picture,
// clipMargin from its edges.
func (d *Detector) inPicture(x, y float64) bool {
	return x >= clipMargin && y >= clipMargin && x <= float64(d.width)-1-clipMargin && y <= float64(d.height)-1-clipMargin
}

// alongPictureEdge reports whether one of table corner c's edges is the
// picture's edge: a card the picture cuts off has no corner there, and a
// reading there would place it askew. On the table the picture's edge
// runs aslant a zone's picture (the view is rectified), so alongBorder
// misses it; the paper there ends a few pixels short of it, where the
// picture is blended into the black beyond it.
func (d *Detector) alongPictureEdge(c corner) bool {
	x, y := d.cal.ToImage(c.P)
	w, h := float64(d.width-1), float64(d.height-1)
	// Each edge the corner lies near, as a point on it and its direction
	// in the picture.
	var near [][2]calibration.Point
	if x < pictureEdgePx || x > w-pictureEdgePx {
		near = append(near, [2]calibration.Point{pt(math.Round(x/w)*w, y), pt(0, 1)})
	}
	if y < pictureEdgePx || y > h-pictureEdgePx {
		near = append(near, [2]calibration.Point{pt(x, math.Round(y/h)*h), pt(1, 0)})
	}
	for _, e := range near {
		a := d.cal.ToTable(e[0].X, e[0].Y)
		b := d.cal.ToTable(e[0].X+10*e[1].X, e[0].Y+10*e[1].Y)
		along := b.Sub(a).Unit()
		for _, dir := range [2]calibration.Point{c.U, c.V} {
			if math.Abs(dot(dir, along)) > pictureEdgeParallel {
				return true
			}
		}
	}
	return false
}

// What alongPictureEdge takes for a corner on the picture's edge: within
// pictureEdgePx of it, an edge parallel to it within some 6°. A card's
// own corner so near the edge, and square to it, has its index at the
// edge too.
const (
	pictureEdgePx       = 8.0
	pictureEdgeParallel = 0.995
)

// markSideways flags the cards that lie across the others: a double-down
// card is turned a quarter from the cards around it (its hand, and the
// seat's other hands). Seats face different ways round the table's arc, so
// each card is compared with its own neighbourhood, its own hand counting
// most: the next seat's cards, a sideways double among them, may come
// almost as near as the seat's other hands.
func markSideways(obs []Observation) {
	const (
		hand = 60.0  // mm: the cards of a card's own hand count whole
		near = 150.0 // mm: farther cards, a seat's other hands, count less and less up to here
	)
	type vote struct{ angle, weight float64 }
	var votes []vote
	for i := range obs {
		votes = votes[:0]
		for _, o := range obs {
			if d := Dist(o.Center, obs[i].Center); d < near {
				votes = append(votes, vote{math.Mod(o.Angle+360, 180), math.Min(1, (near-d)/(near-hand))})
			}
		}
		obs[i].Sideways = false
		if len(votes) < 3 {
			continue // a double is a hand's third card
		}
		// The circular median, modulo half a turn: the angle with the
		// least weight of others more than 45° away.
		best, bestOff := 0.0, math.Inf(1)
		for _, a := range votes {
			off := 0.0
			for _, b := range votes {
				d := math.Abs(a.angle - b.angle)
				if math.Min(d, 180-d) > 45 {
					off += b.weight
				}
			}
			if off < bestOff {
				best, bestOff = a.angle, off
			}
		}
		a := math.Mod(obs[i].Angle+360, 180)
		d := math.Abs(a - best)
		obs[i].Sideways = math.Min(d, 180-d) > 45
	}
}

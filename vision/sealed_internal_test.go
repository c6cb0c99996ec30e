package vision

import (
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
)

// sealedTestR is the scale the tests of this file draw zones at, pixels
// a mm.
const sealedTestR = 2.0

// mmPt and mmBox map a point and a box in mm to the pixels of a zone
// drawn at sealedTestR.
func mmPt(x, y float64) image.Point {
	return image.Pt(int(x*sealedTestR), int(y*sealedTestR))
}

func mmBox(x0, y0, x1, y1 float64) image.Rectangle {
	return image.Rectangle{Min: mmPt(x0, y0), Max: mmPt(x1, y1)}
}

// pairScene draws a zone's paper mask (sealedTestR px a mm) of a card
// whose top left corner lies at (38, 22) mm over another whose top left
// lies at under (mm), where a glyph's stroke 3 mm wide printed out to
// the edge crosses each of the top card's index corners from 12 mm along
// the short edge to 14 mm along the long one, cutting its tip off. It
// returns the detector and zone of sealingZone, the mask's outlines and
// the index of the pair's (the cut-off tips are blobs of their own).
func pairScene(t *testing.T, under calibration.Point) (*Detector, *zone, gocv.PointsVector, int) {
	t.Helper()
	const r = sealedTestR
	d, z := sealingZone(t, 260, 300)
	const bx, by = 38, 22
	gocv.Rectangle(&z.mask, mmBox(under.X, under.Y, under.X+cardW, under.Y+cardH), white, -1)
	gocv.Rectangle(&z.mask, mmBox(bx, by, bx+cardW, by+cardH), white, -1)
	gocv.Line(&z.mask, mmPt(bx+12, by-1), mmPt(bx-1, by+14), black, int(3*r))
	gocv.Line(&z.mask, mmPt(bx+cardW-12, by+cardH+1), mmPt(bx+cardW+1, by+cardH-14), black, int(3*r))
	contours := gocv.FindContours(z.mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	t.Cleanup(func() { contours.Close() })
	pair, most := largestBlob(contours)
	if most < 1.3*cardW*cardH*r*r {
		t.Fatalf("the largest blob is %.2f cards, want the pair", most/(cardW*cardH*r*r))
	}
	return d, z, contours, pair
}

// largestBlob returns the index and area (px) of the largest of
// contours.
func largestBlob(contours gocv.PointsVector) (int, float64) {
	k, most := 0, 0.0
	for i := range contours.Size() {
		if a := gocv.ContourArea(contours.At(i)); a > most {
			k, most = i, a
		}
	}
	return k, most
}

// fillPair classifies the zone's blobs, checks that contours' pair is
// a blob of several cards, and fills the blobs in as prepareZone does.
func fillPair(t *testing.T, d *Detector, z *zone, contours gocv.PointsVector, pair int) []blob {
	t.Helper()
	blobs := d.blobs(z, contours)
	if blobs[pair].kind != blobCards {
		t.Fatalf("the pair's blob is of kind %d, want blobCards", blobs[pair].kind)
	}
	d.fillBlobs(z, contours, blobs)
	return blobs
}

// sealingZone returns a detector on a table with no marks, at
// sealedTestR px a mm, with the kernels fillBlobs seals and encloses
// with, and a zone whose paper mask, w × h pixels, is blank felt.
func sealingZone(t *testing.T, w, h int) (*Detector, *zone) {
	t.Helper()
	const r = sealedTestR
	d := &Detector{cal: &calibration.Calibration{Table: &calibration.Table{}}, opts: Options{PxPerMM: r}}
	d.seal = gocv.GetStructuringElement(gocv.MorphRect, image.Pt(int(6*r)|1, int(6*r)|1))
	d.enclose = gocv.GetStructuringElement(gocv.MorphRect, image.Pt(int(enclosedGapMM*r/2)|1, int(enclosedGapMM*r/2)|1))
	z := &zone{mask: gocv.NewMatWithSize(h, w, gocv.MatTypeCV8U), filled: gocv.NewMat(), grown: gocv.NewMat()}
	// At cleanup, not now: fillBlobs may replace filled.
	t.Cleanup(func() { d.seal.Close(); d.enclose.Close(); z.mask.Close(); z.filled.Close(); z.grown.Close() })
	return d, z
}

// nearCorner reports whether a corner of cs lies within 2 mm of p (mm).
func nearCorner(cs []corner, p calibration.Point) bool {
	for _, c := range cs {
		if c.P.Sub(p.Scale(sealedTestR)).Len() < 2*sealedTestR {
			return true
		}
	}
	return false
}

// TestSealedCorners draws a card lying over another as the next card of
// a hand, up 28 mm and right 18 mm, with both its index corners cut off
// (pairScene): the pair's outline shows neither index corner, and the
// outline closed over the cuts shows both.
func TestSealedCorners(t *testing.T) {
	d, z, contours, pair := pairScene(t, calibration.Point{X: 20, Y: 50})
	want := []calibration.Point{{X: 38, Y: 22}, {X: 38 + cardW, Y: 22 + cardH}}
	raw := outlineCorners(contours.At(pair), nil, sealedTestR, nil, nil)
	for _, p := range want {
		if nearCorner(raw, p) {
			t.Fatalf("the outline as it is shows the corner at %v: the drawing no longer tests the sealed outline", p)
		}
	}
	blobs := fillPair(t, d, z, contours, pair)
	sealed := d.sealedCorners(blobs[pair].sealed, contours.At(pair), raw)
	for _, p := range want {
		if !nearCorner(sealed, p) {
			t.Errorf("no corner found at %v on the sealed outline (%d found)", p, len(sealed))
		}
	}
}

// TestSealedTipAboveBlob draws a double turned a quarter from its hand,
// 28° off the zone's axes, over the hand's card (as a dealer lays a
// double-down card across the hand), with a glyph's stroke printed out
// to the edge across its topmost corner, its index corner, cutting the
// tip off. The tip is a blob of its own that stands above the pair's:
// the closing that seals the cut joins it to the pair, and the outline
// so closed, tip and all, is the pair's sealed outline, on which the
// corner is found. KDE penguins (acceptance seed 3801, round 1003, frame
// 1722): a 6♠ doubled across seat 1's 2♦ and 8♣, its "6" printed across
// the corner, never seen.
func TestSealedTipAboveBlob(t *testing.T) {
	const r = sealedTestR
	d, z := sealingZone(t, 320, 340)
	// card returns the corners, in the zone's pixels, of a card centred
	// at c (mm) whose long axis runs at deg from the x axis; the first
	// corner is the topmost.
	card := func(c calibration.Point, deg float64) []image.Point {
		a := deg * math.Pi / 180
		long, short := pt(math.Cos(a), math.Sin(a)).Scale(cardH/2), pt(-math.Sin(a), math.Cos(a)).Scale(cardW/2)
		var out []image.Point
		for _, k := range [4][2]float64{{1, -1}, {1, 1}, {-1, 1}, {-1, -1}} {
			p := c.Add(long.Scale(k[0])).Add(short.Scale(k[1])).Scale(r)
			out = append(out, image.Pt(int(math.Round(p.X)), int(math.Round(p.Y))))
		}
		return out
	}
	fill := func(pts []image.Point, col color.RGBA) {
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
		defer pv.Close()
		gocv.FillPoly(&z.mask, pv, col)
	}
	fill(card(calibration.Point{X: 75, Y: 100}, 62), white) // the hand's card, upright in its hand
	double := card(calibration.Point{X: 75, Y: 70}, -28)
	fill(double, white)
	tip := fromImage(double[0])
	along := func(to image.Point, mm float64) image.Point {
		q := tip.Add(fromImage(to).Sub(tip).Unit().Scale(mm * r))
		return image.Pt(int(q.X), int(q.Y))
	}
	// Corners 0 and 1 share a short edge, corners 0 and 3 a long one.
	gocv.Line(&z.mask, along(double[1], 12), along(double[3], 14), black, int(3*r))
	contours := gocv.FindContours(z.mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	t.Cleanup(func() { contours.Close() })
	pair, _ := largestBlob(contours)
	if top := gocv.BoundingRect(contours.At(pair)).Min.Y; tip.Y >= float64(top) {
		t.Fatalf("the tip (y %v px) does not stand above the pair's blob (top %d px): the drawing no longer tests the box round the blob", tip.Y, top)
	}
	want := tip.Scale(1 / r)
	raw := outlineCorners(contours.At(pair), nil, r, nil, nil)
	if nearCorner(raw, want) {
		t.Fatalf("the outline as it is shows the corner at %v: the drawing no longer tests the sealed outline", want)
	}
	blobs := fillPair(t, d, z, contours, pair)
	if blobs[pair].sealed == nil {
		t.Fatal("the pair has no sealed outline")
	}
	got := append(outlineCorners(contours.At(pair), nil, r, blobs[pair].sealed, nil), d.sealedCorners(blobs[pair].sealed, contours.At(pair), raw)...)
	if !nearCorner(got, want) {
		t.Errorf("no corner found at %v with the sealed outline (%d found)", want, len(got))
	}
}

// TestCompletedOnSealed draws a card over another that lies under its
// left edge (pairScene, the card beneath at (20, 40) mm): the top card's
// long edge from its top left index corner runs over the card beneath,
// inside the pair's blob, so the sealed outline's corner there does not
// run along the outline as it is (sealedCorners leaves it), and the
// corner a card's width along the top edge from the top right corner
// completes lies some 7 mm from that outline, past the cut. On the
// outline closed over the cut it lies: completedCorners finds it given
// the sealed outline, and not without.
func TestCompletedOnSealed(t *testing.T) {
	d, z, contours, pair := pairScene(t, calibration.Point{X: 20, Y: 40})
	blobs := d.blobs(z, contours)
	d.fillBlobs(z, contours, blobs)
	want := calibration.Point{X: 38, Y: 22}
	raw := outlineCorners(contours.At(pair), nil, sealedTestR, nil, nil)
	if nearCorner(raw, want) {
		t.Fatalf("the outline as it is shows the corner at %v: the drawing no longer tests the sealed outline", want)
	}
	if nearCorner(d.sealedCorners(blobs[pair].sealed, contours.At(pair), raw), want) {
		t.Fatalf("sealedCorners takes the corner at %v: the drawing no longer tests completion", want)
	}
	got := outlineCorners(contours.At(pair), nil, sealedTestR, blobs[pair].sealed, nil)
	if !nearCorner(got, want) {
		t.Errorf("no corner completed at %v with the sealed outline (%d found)", want, len(got))
	}
	for _, c := range got {
		if c.P.Sub(want.Scale(sealedTestR)).Len() < 2*sealedTestR && c.NoIndex {
			t.Errorf("the completed corner at %v is taken for one with no index", want)
		}
	}
}

// TestFillEnclosed draws a card over another, the top card's picture
// (a hole in the paper mask, 8 mm in from its long edges and 12 mm from
// its short ones) printed out to its top edge over gap mm, and checks
// that the picture's middle is filled in (a card's body lies on paper
// there) where the gap is narrow enough, and that the felt between the
// pair and a card lying 8 mm apart from it is not. KDE ancient-egyptians
// (acceptance seed 3301, round 1007, frame 3014): a K♣ dealt over a 9♣,
// its pharaoh's frame cutting its top margin along some 10 mm, so that
// neither card's body lay on paper and both went unseen.
func TestFillEnclosed(t *testing.T) {
	tests := []struct {
		name string
		gap  float64 // mm of the top margin the picture cuts
		want bool    // the picture's middle filled in
	}{
		{"margin whole", 0, true},
		{"cut along 4 mm", 4, true},
		{"cut along 10 mm", 10, true},
		{"cut along 20 mm: open to the felt", 20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, z := sealingZone(t, 330, 300)
			const bx, by = 38, 22
			gocv.Rectangle(&z.mask, mmBox(20, 45, 20+cardW, 45+cardH), white, -1)
			gocv.Rectangle(&z.mask, mmBox(bx, by, bx+cardW, by+cardH), white, -1)
			gocv.Rectangle(&z.mask, mmBox(bx+cardW+8, 45, bx+2*cardW+8, 45+cardH), white, -1) // a card apart
			gocv.Rectangle(&z.mask, mmBox(bx+8, by+12, bx+cardW-8, by+cardH-12), black, -1)
			if tt.gap > 0 {
				gocv.Rectangle(&z.mask, mmBox(bx+20, by-1, bx+20+tt.gap, by+13), black, -1)
			}
			contours := gocv.FindContours(z.mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
			t.Cleanup(func() { contours.Close() })
			d.fillBlobs(z, contours, d.blobs(z, contours))
			if got := d.onPaper(z, calibration.Point{X: bx + cardW/2, Y: by + cardH/2}); got != tt.want {
				t.Errorf("the picture's middle on paper: %v, want %v", got, tt.want)
			}
			if d.onPaper(z, calibration.Point{X: bx + cardW + 4, Y: 45 + cardH/2}) {
				t.Error("the felt between the pair and the card apart is taken for paper")
			}
		})
	}
}

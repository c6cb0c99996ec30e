package vision

import (
	"image"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
)

// r is the scale the tests of this file draw zones at, pixels a mm.
const sealedTestR = 2.0

// pairScene draws a zone's paper mask (sealedTestR px a mm) of a card
// whose top left corner lies at (38, 22) mm over another whose top left
// lies at under (mm), where a glyph's stroke 3 mm wide printed out to
// the edge crosses each of the top card's index corners from 12 mm along
// the short edge to 14 mm along the long one, cutting its tip off. It
// returns a detector with d.seal, the zone, the mask's outlines and the
// index of the pair's (the cut-off tips are blobs of their own).
func pairScene(t *testing.T, under calibration.Point) (*Detector, *zone, gocv.PointsVector, int) {
	t.Helper()
	const r = sealedTestR
	d := &Detector{cal: &calibration.Calibration{Table: &calibration.Table{}}, opts: Options{PxPerMM: r}} // a table with no marks
	d.seal = gocv.GetStructuringElement(gocv.MorphRect, image.Pt(int(6*r)|1, int(6*r)|1))
	z := &zone{mask: gocv.NewMatWithSize(300, 260, gocv.MatTypeCV8U), filled: gocv.NewMat(), grown: gocv.NewMat()}
	mm := func(x, y float64) image.Point { return image.Pt(int(x*r), int(y*r)) }
	box := func(x0, y0, x1, y1 float64) image.Rectangle { return image.Rectangle{Min: mm(x0, y0), Max: mm(x1, y1)} }
	const bx, by = 38, 22
	gocv.Rectangle(&z.mask, box(under.X, under.Y, under.X+cardW, under.Y+cardH), white, -1)
	gocv.Rectangle(&z.mask, box(bx, by, bx+cardW, by+cardH), white, -1)
	gocv.Line(&z.mask, mm(bx+12, by-1), mm(bx-1, by+14), black, int(3*r))
	gocv.Line(&z.mask, mm(bx+cardW-12, by+cardH+1), mm(bx+cardW+1, by+cardH-14), black, int(3*r))
	contours := gocv.FindContours(z.mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	t.Cleanup(func() { d.seal.Close(); z.mask.Close(); z.filled.Close(); z.grown.Close(); contours.Close() }) // fillBlobs may replace filled
	pair, most := 0, 0.0
	for i := 0; i < contours.Size(); i++ {
		if a := gocv.ContourArea(contours.At(i)); a > most {
			pair, most = i, a
		}
	}
	if most < 1.3*cardW*cardH*r*r {
		t.Fatalf("the largest blob is %.2f cards, want the pair", most/(cardW*cardH*r*r))
	}
	return d, z, contours, pair
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
	raw := outlineCorners(contours.At(pair), nil, sealedTestR, nil)
	for _, p := range want {
		if nearCorner(raw, p) {
			t.Fatalf("the outline as it is shows the corner at %v: the drawing no longer tests the sealed outline", p)
		}
	}
	blobs := d.blobs(z, contours)
	if blobs[pair].kind != blobCards {
		t.Fatalf("the pair's blob is of kind %d, want blobCards", blobs[pair].kind)
	}
	d.fillBlobs(z, contours, blobs)
	sealed := d.sealedCorners(blobs[pair].sealed, contours.At(pair), raw)
	for _, p := range want {
		if !nearCorner(sealed, p) {
			t.Errorf("no corner found at %v on the sealed outline (%d found)", p, len(sealed))
		}
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
	raw := outlineCorners(contours.At(pair), nil, sealedTestR, nil)
	if nearCorner(raw, want) {
		t.Fatalf("the outline as it is shows the corner at %v: the drawing no longer tests the sealed outline", want)
	}
	if nearCorner(d.sealedCorners(blobs[pair].sealed, contours.At(pair), raw), want) {
		t.Fatalf("sealedCorners takes the corner at %v: the drawing no longer tests completion", want)
	}
	got := outlineCorners(contours.At(pair), nil, sealedTestR, blobs[pair].sealed)
	if !nearCorner(got, want) {
		t.Errorf("no corner completed at %v with the sealed outline (%d found)", want, len(got))
	}
	for _, c := range got {
		if c.P.Sub(want.Scale(sealedTestR)).Len() < 2*sealedTestR && c.NoIndex {
			t.Errorf("the completed corner at %v is taken for one with no index", want)
		}
	}
}

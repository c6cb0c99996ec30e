package vision

import (
	"image"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
)

// TestSealedCorners draws a zone's paper mask (2 px a mm) of a card lying
// over another as the next card of a hand, up 28 mm and right 18 mm,
// where a glyph's stroke printed out to the edge cuts the tip off each of
// its index corners: the pair's outline shows neither index corner, and
// the outline closed over the cuts shows both.
func TestSealedCorners(t *testing.T) {
	const r = 2.0
	d := &Detector{cal: &calibration.Calibration{Table: &calibration.Table{}}, opts: Options{PxPerMM: r}} // a table with no marks
	d.seal = gocv.GetStructuringElement(gocv.MorphRect, image.Pt(int(6*r)|1, int(6*r)|1))
	defer d.seal.Close()
	z := &zone{mask: gocv.NewMatWithSize(300, 260, gocv.MatTypeCV8U), filled: gocv.NewMat(), grown: gocv.NewMat()}
	defer func() { z.mask.Close(); z.filled.Close(); z.grown.Close() }() // fillBlobs may replace filled
	mm := func(x, y float64) image.Point { return image.Pt(int(x*r), int(y*r)) }
	box := func(x0, y0, x1, y1 float64) image.Rectangle { return image.Rectangle{Min: mm(x0, y0), Max: mm(x1, y1)} }
	const bx, by = 38, 22 // the card on top's top left corner; the card beneath's is at (20, 50)
	gocv.Rectangle(&z.mask, box(20, 50, 20+cardW, 50+cardH), white, -1)
	gocv.Rectangle(&z.mask, box(bx, by, bx+cardW, by+cardH), white, -1)
	// A glyph's stroke 3 mm wide crosses each index corner from 12 mm
	// along the short edge to 14 mm along the long one, cutting its tip off.
	gocv.Line(&z.mask, mm(bx+12, by-1), mm(bx-1, by+14), black, int(3*r))
	gocv.Line(&z.mask, mm(bx+cardW-12, by+cardH+1), mm(bx+cardW+1, by+cardH-14), black, int(3*r))
	want := []image.Point{mm(bx, by), mm(bx+cardW, by+cardH)}
	contours := gocv.FindContours(z.mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer contours.Close()
	pair, most := 0, 0.0 // the pair's blob; the cut-off tips are blobs of their own
	for i := 0; i < contours.Size(); i++ {
		if a := gocv.ContourArea(contours.At(i)); a > most {
			pair, most = i, a
		}
	}
	if most < 1.3*cardW*cardH*r*r {
		t.Fatalf("the largest blob is %.2f cards, want the pair", most/(cardW*cardH*r*r))
	}
	near := func(cs []corner, p image.Point) bool {
		for _, c := range cs {
			if c.P.Sub(fromImage(p)).Len() < 2*r {
				return true
			}
		}
		return false
	}
	raw := outlineCorners(contours.At(pair), nil, r)
	for _, p := range want {
		if near(raw, p) {
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
		if !near(sealed, p) {
			t.Errorf("no corner found at %v on the sealed outline (%d found)", p, len(sealed))
		}
	}
}

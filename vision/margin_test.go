package vision_test

import (
	"image"
	"image/color"
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/testvideos/scene"
	"bjmonitor/vision"

	"gocv.io/x/gocv"
)

// TestMarginCutInPieces lays on the felt a card drawn here: a court
// card's dark frame fills its face but for a white margin, wide on the
// long sides where the indices stand, and a band of the frame runs out to
// the card's edge. Cut at two places, the margin falls in two pieces,
// neither a card's size alone (a court card of KDE's standard deck, cut so
// by its frame, went unseen until a second card covered it); cut at one,
// it is one blob whose outline no longer closes round the card's face, so
// that the face does not count as paper and no index read there stands.
// The card is found at every angle, read or not. The same outline printed
// on the felt as a thin line, cut at two places, is no card.
func TestMarginCutInPieces(t *testing.T) {
	st := loneCardStage(t, "")
	clf := openReader(t)
	const pxMM = 8 // the drawn faces' pixels a mm
	mm := func(x, y float64) image.Point { return image.Pt(int(x*pxMM), int(y*pxMM)) }
	paper := color.RGBA{R: 235, G: 240, B: 240, A: 255}
	court := func(margin float64, cuts int) gocv.Mat {
		face := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(235, 240, 240, 0), 88*pxMM, 63*pxMM, gocv.MatTypeCV8UC3)
		ink := color.RGBA{R: 70, G: 20, B: 30, A: 255}
		gocv.Rectangle(&face, image.Rectangle{Min: mm(margin+1.5, margin-3.5), Max: mm(61.5-margin, 91.5-margin)}, ink, 3*pxMM)
		for _, y := range []float64{28, 60} { // the figure, mirrored
			gocv.Ellipse(&face, mm(31.5, y), mm(9, 7), 0, 0, 360, ink, -1)
		}
		gocv.Line(&face, mm(12, 78), mm(51, 10), ink, 3*pxMM)
		gocv.Line(&face, mm(9, 44), mm(54, 44), ink, 3*pxMM)
		gocv.Rectangle(&face, image.Rectangle{Min: mm(0, 30), Max: mm(margin+1, 34)}, ink, -1)
		if cuts == 2 {
			gocv.Rectangle(&face, image.Rectangle{Min: mm(62-margin, 54), Max: mm(63, 58)}, ink, -1)
		}
		gocv.PutTextWithParams(&face, "J", mm(2, 12), gocv.FontHersheySimplex, 2.2, ink, 12, gocv.LineAA, false)
		return face
	}
	twoCuts, oneCut := court(8, 2), court(9.5, 1)
	defer twoCuts.Close()
	defer oneCut.Close()
	// The printed line: a card's outline 2 mm wide on the felt, cut at two
	// places; pure green leaves the felt showing.
	line := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(0, 255, 0, 0), 88*pxMM, 63*pxMM, gocv.MatTypeCV8UC3)
	defer line.Close()
	green := color.RGBA{G: 255}
	gocv.Rectangle(&line, image.Rectangle{Min: mm(1, 1), Max: mm(62, 87)}, paper, 2*pxMM)
	gocv.Rectangle(&line, image.Rectangle{Min: mm(0, 30), Max: mm(4, 34)}, green, -1)
	gocv.Rectangle(&line, image.Rectangle{Min: mm(59, 54), Max: mm(63, 58)}, green, -1)

	centre := scene.Point{X: 505, Y: 276}
	for _, deg := range []float64{0, 29, 64, 90, 118, 151} {
		pc := scene.PlacedCard{Pose: scene.Pose{Center: centre, RotDeg: deg}}
		for _, tc := range []struct {
			name string
			art  gocv.Mat
			card bool
		}{
			{"margin in two pieces", twoCuts, true},
			{"margin cut once", oneCut, true},
			{"printed line", line, false},
		} {
			st.sc.SetCards(nil)
			st.sc.SetOccluders(nil)
			if err := st.sc.Render(&st.frame, 0); err != nil {
				t.Fatal(err)
			}
			lay(&st.frame, tc.art, st.sc.ImageQuad(pc))
			det, err := vision.NewDetector(st.cal, clf, vision.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			got, err := det.Detect(st.frame, 0, 0)
			det.Close()
			if err != nil {
				t.Fatal(err)
			}
			found := 0
			for _, o := range got.Cards {
				if vision.Dist(o.Center, calibration.Point{X: centre.X, Y: centre.Y}) < 8 && !o.FaceDown {
					found++
				}
			}
			switch {
			case tc.card && found != 1:
				t.Errorf("%s at %v°: %d cards found there, want 1 (%v)", tc.name, deg, found, got.Cards)
			case !tc.card && found != 0:
				t.Errorf("%s at %v°: %d cards found there, want none (%v)", tc.name, deg, found, got.Cards)
			}
		}
	}
}

// lay warps art onto frame over the image quad q (top left, top right,
// bottom right, bottom left of the card); art's pure green pixels, and
// the frame outside the quad, stay as they were.
func lay(frame *gocv.Mat, art gocv.Mat, q [4]gocv.Point2f) {
	w, h := float32(art.Cols()), float32(art.Rows())
	src := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: 0, Y: h}})
	defer src.Close()
	dst := gocv.NewPoint2fVectorFromPoints(q[:])
	defer dst.Close()
	m := gocv.GetPerspectiveTransform2f(src, dst)
	defer m.Close()
	warped := gocv.NewMat()
	defer warped.Close()
	gocv.WarpPerspectiveWithParams(art, &warped, m, image.Pt(frame.Cols(), frame.Rows()), gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{G: 255})
	mask := gocv.NewMat()
	defer mask.Close()
	gocv.InRangeWithScalar(warped, gocv.NewScalar(0, 250, 0, 0), gocv.NewScalar(5, 255, 5, 0), &mask)
	gocv.BitwiseNot(mask, &mask)
	warped.CopyToWithMask(frame, mask)
}

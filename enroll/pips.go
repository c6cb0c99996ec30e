package enroll

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/pips"
)

// facePxPerMM is the scale a laid card's face is cut at for counting
// its pips: finer than any camera sees a card, so the cut adds no loss.
const facePxPerMM = 4.0

// pipsOutOfPlace returns why the card laid at c, whose place is for
// want, is not want by its pips: the face shows a number card's layout
// whose count is not want's rank. It returns "" where the pips agree,
// or say nothing (a court card, an ace, a face the counter cannot
// read). The count owes nothing to the index's font, so it catches two
// number cards swapped in a design the model cannot read.
func pipsOutOfPlace(frame gocv.Mat, cal *calibration.Calibration, c laid, want cards.Card) (string, error) {
	face := gocv.NewMat()
	defer face.Close()
	if err := cutFace(frame, cal, c, &face); err != nil {
		return "", err
	}
	f, ok := pips.Read(face, facePxPerMM)
	if !ok || f.Pips == int(want.Rank) {
		return "", nil
	}
	return fmt.Sprintf("out of place: its face shows %d pips", f.Pips), nil
}

// cutFace cuts the face of the card laid at c out of frame into dst,
// upright as its top-left corner (cornerFrame's corner 0) has it, at
// facePxPerMM: cardW × cardH mm.
func cutFace(frame gocv.Mat, cal *calibration.Calibration, c laid, dst *gocv.Mat) error {
	f := cornerFrame(cal, c, 0)
	if err := f.Validate(); err != nil {
		return err
	}
	m := gocv.NewMatWithSize(2, 3, gocv.MatTypeCV64F)
	defer m.Close()
	// With WarpInverseMap the matrix maps a face pixel, centre
	// convention, to the frame: face pixel x covers x/r to (x+1)/r mm.
	s := 1 / facePxPerMM
	m.SetDoubleAt(0, 0, f.U.X*s)
	m.SetDoubleAt(0, 1, f.V.X*s)
	m.SetDoubleAt(0, 2, f.Origin.X+0.5*s*(f.U.X+f.V.X))
	m.SetDoubleAt(1, 0, f.U.Y*s)
	m.SetDoubleAt(1, 1, f.V.Y*s)
	m.SetDoubleAt(1, 2, f.Origin.Y+0.5*s*(f.U.Y+f.V.Y))
	size := image.Pt(int(math.Round(cardW*facePxPerMM)), int(math.Round(cardH*facePxPerMM)))
	gocv.WarpAffineWithParams(frame, dst, m, size, gocv.InterpolationLinear|gocv.WarpInverseMap, gocv.BorderReplicate, color.RGBA{})
	return nil
}

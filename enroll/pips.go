package enroll

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/vision/pips"
)

// facePxPerMM is the scale a laid card's face is cut at for reading its
// pips: finer than any camera sees a card, so the cut adds no loss.
const facePxPerMM = 4.0

// What the pips of a row say of the cards in it.
const (
	// minRowPips: a row's colour is the median of the pips of at
	// least this many of its cards.
	minRowPips = 3
	// offColour is how far (in Face.Ink's shares of the paper's colour)
	// a card's pips lie from its row's colour when they are another
	// suit's colour: 0.12 at most within a row on the development
	// decks, 0.49 at least between rows of two colours.
	offColour = 0.25
)

// laidPips is what the pips of the laid cards say, by place in the
// order of SlotCard: each number card's count and colour, and each row's
// colour. Cards whose faces show no pip layout (aces, court cards, some
// designs) say nothing.
type laidPips struct {
	faces    [52]pips.Face
	read     [52]bool
	rowInk   [4][3]float64
	rowKnown [4]bool
}

// readPips reads the pips of every laid card.
func readPips(frame gocv.Mat, cal *calibration.Calibration, slots [][13]*laid) (*laidPips, error) {
	lp := &laidPips{}
	face := gocv.NewMat()
	defer face.Close()
	for r := range slots {
		for k, c := range slots[r] {
			if err := cutFace(frame, cal, *c, &face); err != nil {
				return nil, fmt.Errorf("enroll: %v: %w", SlotCard(r, k), err)
			}
			i := r*13 + k
			lp.faces[i], lp.read[i] = pips.Read(face, facePxPerMM)
		}
	}
	for r := range 4 {
		var inks [3][]float64
		for k := range 13 {
			if i := r*13 + k; lp.read[i] {
				for ch := range 3 {
					inks[ch] = append(inks[ch], lp.faces[i].Ink[ch])
				}
			}
		}
		if len(inks[0]) < minRowPips {
			continue
		}
		for ch := range 3 {
			slices.Sort(inks[ch])
			lp.rowInk[r][ch] = inks[ch][len(inks[ch])/2]
		}
		lp.rowKnown[r] = true
	}
	return lp, nil
}

// outOfPlace returns why the card laid in place i is not the place's
// card by its pips, or "" where they agree or say nothing: a count that
// is not the place's rank (two number cards swapped), or pips of another
// colour than the rest of its row's (two cards of different suits
// swapped). Neither owes anything to the index's font, so they catch
// swaps in a design the model cannot read.
func (lp *laidPips) outOfPlace(i int) string {
	if !lp.read[i] {
		return ""
	}
	f, r := lp.faces[i], i/13
	if want := int(SlotCard(r, i%13).Rank); f.Pips != want {
		return fmt.Sprintf("out of place: its face shows %d pips", f.Pips)
	}
	if !lp.rowKnown[r] || inkDistance(f.Ink, lp.rowInk[r]) <= offColour {
		return ""
	}
	why := "out of place: its pips are not the colour of its row's"
	best := math.Inf(1)
	for o := range 4 {
		if d := inkDistance(f.Ink, lp.rowInk[o]); o != r && lp.rowKnown[o] && d <= offColour && d < best {
			best = d
			why = fmt.Sprintf("out of place: its pips are the colour of row %d's (%s)", o+1, rowNames[o])
		}
	}
	return why
}

// inkDistance is the Euclidean distance between two pip colours.
func inkDistance(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
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

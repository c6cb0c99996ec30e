package enroll

import (
	"fmt"
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
func readPips(frame gocv.Mat, cal *calibration.Calibration, slots [][13]*laid) *laidPips {
	lp := &laidPips{}
	face := gocv.NewMat()
	defer face.Close()
	for r := range slots {
		for k, c := range slots[r] {
			pips.CutFace(frame, faceCorners(cal, *c), facePxPerMM, &face)
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
	return lp
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

// faceCorners returns the corners of the card laid at c in frame's
// pixels, clockwise from the top-left one as cornerFrame's corner 0 has
// it (pips.CutFace).
func faceCorners(cal *calibration.Calibration, c laid) [4]calibration.Point {
	var out [4]calibration.Point
	for i, k := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		x, y := cal.ToImage(c.centre.Add(c.u.Scale(k[0] * cardW / 2)).Add(c.v.Scale(k[1] * cardH / 2)))
		out[i] = calibration.Point{X: x, Y: y}
	}
	return out
}

package vision

import "gocv.io/x/gocv"

// felt is the colour of the table's cloth: the hues within feltHueTol of
// its most common hue, saturated. A shadow on the cloth keeps its hue and
// darkens it, so any brightness counts.
type felt struct {
	known bool
	hue   int // OpenCV's hue, 0..179
}

const (
	// feltHueTol is how far a pixel's hue may be from the cloth's and
	// still be cloth: some 30° of the colour wheel.
	feltHueTol = 15
	// feltMinSat is the least saturation of cloth: card paper, black and
	// grey ink are below it.
	feltMinSat = 60
	// feltMinShare is the least share of a picture's pixels of the
	// cloth's hue, saturated, for the picture to tell it: a table seen
	// from above is mostly cloth.
	feltMinShare = 0.2
)

// feltOf returns the cloth's colour in a picture in HSV (a small one
// will do): the most common hue of its saturated, not dark pixels, where
// those within feltHueTol of it are common enough to be the cloth
// (feltMinShare).
func feltOf(hsv gocv.Mat) felt {
	data, err := hsv.DataPtrUint8()
	if err != nil || hsv.Channels() != 3 || len(data) < 3 {
		return felt{}
	}
	var hist [180]int
	for i := 0; i+2 < len(data); i += 3 {
		if h, s, v := data[i], data[i+1], data[i+2]; s >= 80 && v >= 40 && int(h) < len(hist) {
			hist[h]++
		}
	}
	// The peak: the hue with most pixels within a couple of values of it.
	best, bestN := 0, 0
	for h := range hist {
		n := 0
		for dh := -2; dh <= 2; dh++ {
			n += hist[(h+dh+180)%180]
		}
		if n > bestN {
			best, bestN = h, n
		}
	}
	n := 0 // pixels of the cloth's hues
	for dh := -feltHueTol; dh <= feltHueTol; dh++ {
		n += hist[(best+dh+180)%180]
	}
	if float64(n) < feltMinShare*float64(len(data)/3) {
		return felt{}
	}
	return felt{known: true, hue: best}
}

// clothPixels sets cloth to 255 where the HSV picture hsv shows the
// table's cloth, 0 elsewhere. With the cloth not known, every pixel
// counts as cloth: nothing is taken to lie on the table by its colour.
// scratch is of hsv's size.
func (f felt) clothPixels(hsv gocv.Mat, cloth, scratch *gocv.Mat) {
	if !f.known {
		gocv.InRangeWithScalar(hsv, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(255, 255, 255, 0), cloth)
		return
	}
	inRange := func(lo, hi int, dst *gocv.Mat) {
		gocv.InRangeWithScalar(hsv, gocv.NewScalar(float64(lo), feltMinSat, 0, 0), gocv.NewScalar(float64(hi), 255, 255, 0), dst)
	}
	lo, hi := f.hue-feltHueTol, f.hue+feltHueTol
	switch {
	case lo < 0: // the hues wrap round past red
		inRange(0, hi, cloth)
		inRange(lo+180, 179, scratch)
		gocv.BitwiseOr(*cloth, *scratch, cloth)
	case hi > 179:
		inRange(lo, 179, cloth)
		inRange(0, hi-180, scratch)
		gocv.BitwiseOr(*cloth, *scratch, cloth)
	default:
		inRange(lo, hi, cloth)
	}
}

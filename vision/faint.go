package vision

import (
	"gocv.io/x/gocv"

	"bjmonitor/vision/classify"
)

// faintContrast is the least contrast, in grey levels, between the
// paper and the darkest ink of a rank that a sure reading needs. A rank
// printed in hairlines, shrunk by the camera to a pixel's width, keeps
// some 30 levels of its contrast; a rank in ordinary strokes, even under
// a glare band, keeps 45 or more. Below that the model cannot tell the
// figure's shape, however sure its answer.
const faintContrast = 40

// faintConfidence caps the reading of a rank that barely shows, below
// Confident: the card is there, and its round goes out for review.
const faintConfidence = 0.7

// faintRank reports whether the rank in an index crop (BGR, cut by
// classify.Cropper: the card's corner at the top left, CropWidthMM across
// and CropHeightMM down) barely shows: the 2nd percentile of the area
// where ranks are printed, 1 to 12 mm down and 1 to 11 mm in, lies less
// than faintContrast below its upper quartile, the paper. Each pixel
// counts by its darkest channel, so that red ink is as dark as black.
func faintRank(crop gocv.Mat) bool {
	const fromMM, downMM, acrossMM = 1.0, 12.0, 11.0
	if crop.Empty() || crop.Type() != gocv.MatTypeCV8UC3 {
		return false
	}
	b, err := crop.DataPtrUint8()
	if err != nil {
		return false
	}
	rows, cols := crop.Rows(), crop.Cols()
	perRow := float64(rows) / classify.CropHeightMM
	perCol := float64(cols) / classify.CropWidthMM
	var hist [256]int
	n := 0
	step := int(crop.Step())
	for y := int(fromMM * perRow); y < min(rows, int(downMM*perRow)); y++ {
		for x := int(fromMM * perCol); x < min(cols, int(acrossMM*perCol)); x++ {
			p := b[y*step+3*x:]
			hist[min(p[0], p[1], p[2])]++
			n++
		}
	}
	if n == 0 {
		return false
	}
	level := func(share float64) int {
		seen, want := 0, int(share*float64(n))
		for v := range hist {
			if seen += hist[v]; seen > want {
				return v
			}
		}
		return 255
	}
	return level(0.75)-level(0.02) < faintContrast
}

package vision

import (
	"image"
	"image/color"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/vision/classify"
)

// TestFaintRank checks which index crops show their rank too faintly for
// a sure reading: synthetic crops with a rank of each kind of ink, and
// two crops cut by the detector from the proc:3 clip (seed 2403, round
// 1001, frame 578): seat 4's 3♥, whose hairline 3 the fast model read as
// A♥ at 0.98, and the 6♠ beside it.
func TestFaintRank(t *testing.T) {
	synthetic := []struct {
		name  string
		ink   color.RGBA
		faint bool
	}{
		{"a black rank", color.RGBA{R: 30, G: 30, B: 30, A: 255}, false},
		{"a red rank", color.RGBA{R: 200, G: 40, B: 40, A: 255}, false},
		{"a rank under a glare band, 50 levels below the paper", color.RGBA{R: 200, G: 200, B: 200, A: 255}, false},
		{"a hairline rank, 25 levels below the paper", color.RGBA{R: 225, G: 225, B: 225, A: 255}, true},
		{"no rank at all", color.RGBA{R: 250, G: 250, B: 250, A: 255}, true},
	}
	for _, tc := range synthetic {
		t.Run(tc.name, func(t *testing.T) {
			crop := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(250, 250, 250, 0), classify.CropRows, classify.CropCols, gocv.MatTypeCV8UC3)
			defer crop.Close()
			// A rank 3 to 9 mm down and 2 to 6 mm in, at 2 px a mm.
			gocv.Rectangle(&crop, image.Rect(4, 6, 12, 18), tc.ink, -1)
			if got := faintRank(crop); got != tc.faint {
				t.Errorf("faintRank = %v, want %v", got, tc.faint)
			}
		})
	}
	cut := []struct {
		file  string
		faint bool
	}{
		{"proc3-2403-f578-3h.png", true},
		{"proc3-2403-f578-6s.png", false},
	}
	for _, tc := range cut {
		t.Run(tc.file, func(t *testing.T) {
			crop := gocv.IMRead(filepath.Join("testdata", tc.file), gocv.IMReadColor)
			defer crop.Close()
			if crop.Empty() {
				t.Fatalf("cannot read testdata/%s", tc.file)
			}
			if got := faintRank(crop); got != tc.faint {
				t.Errorf("faintRank = %v, want %v", got, tc.faint)
			}
		})
	}
	if faintConfidence >= Confident {
		t.Errorf("faintConfidence %v is not below Confident %v", faintConfidence, Confident)
	}
}

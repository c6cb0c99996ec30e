package vision

import (
	"image"
	"testing"

	"gocv.io/x/gocv"
)

// TestFelt: the cloth's hue is the most common among a picture's
// saturated pixels, where they are most of it; clothPixels marks the
// cloth, shaded or not, and neither paper nor ink, also where the cloth's
// hues wrap round past red. A picture with too little colour tells no
// cloth, and then every pixel counts as cloth.
func TestFelt(t *testing.T) {
	// HSV colours, OpenCV's scale (H 0..179).
	var (
		paper = gocv.NewScalar(20, 20, 245, 0)
		black = gocv.NewScalar(0, 10, 30, 0)
		red   = gocv.NewScalar(178, 190, 240, 0)
		grey  = gocv.NewScalar(0, 0, 128, 0)
	)
	tests := []struct {
		name      string
		cloth     gocv.Scalar // the left three quarters
		shade     gocv.Scalar // a shadow on it
		known     bool
		wantCloth bool // the cloth and its shadow are marked
		inkCloth  bool // the red ink counts as cloth: a red cloth's hue
	}{
		{"green cloth", gocv.NewScalar(73, 190, 100, 0), gocv.NewScalar(72, 196, 45, 0), true, true, false},
		{"blue cloth", gocv.NewScalar(105, 160, 120, 0), gocv.NewScalar(106, 170, 50, 0), true, true, false},
		{"red cloth, its hues round 0", gocv.NewScalar(2, 200, 120, 0), gocv.NewScalar(176, 200, 60, 0), true, true, true},
		{"grey cloth", grey, grey, false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hsv := gocv.NewMatWithSizeFromScalar(tt.cloth, 40, 80, gocv.MatTypeCV8UC3)
			defer hsv.Close()
			fill := func(r image.Rectangle, c gocv.Scalar) {
				m := hsv.Region(r)
				m.SetTo(c)
				m.Close()
			}
			fill(image.Rect(0, 30, 60, 40), tt.shade)
			fill(image.Rect(60, 0, 80, 40), paper)
			fill(image.Rect(62, 2, 66, 10), black)
			fill(image.Rect(70, 2, 74, 10), red)
			f := feltOf(hsv)
			if f.known != tt.known {
				t.Fatalf("cloth known: %v, want %v (hue %d)", f.known, tt.known, f.hue)
			}
			if d := (f.hue - int(tt.cloth.Val1) + 180) % 180; f.known && min(d, 180-d) > 2 {
				t.Errorf("cloth hue %d, want about %v", f.hue, tt.cloth.Val1)
			}
			cloth, scratch := gocv.NewMat(), gocv.NewMat()
			defer cloth.Close()
			defer scratch.Close()
			f.clothPixels(hsv, &cloth, &scratch)
			for _, c := range []struct {
				what string
				x, y int
				want bool
			}{
				{"the cloth", 10, 10, tt.wantCloth},
				{"its shadow", 10, 35, tt.wantCloth},
				{"paper", 68, 20, !tt.known},
				{"black ink", 63, 5, !tt.known},
				{"red ink", 71, 5, tt.inkCloth},
			} {
				if got := cloth.GetUCharAt(c.y, c.x) != 0; got != c.want {
					t.Errorf("%s marked cloth: %v, want %v", c.what, got, c.want)
				}
			}
		})
	}
}

package vision

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"gocv.io/x/gocv"
)

// TestFixedMap checks the fixed-point maps against OpenCV's own reading of
// float maps: remapping a noisy picture both ways gives the same pixels.
func TestFixedMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := gocv.NewMatWithSize(40, 50, gocv.MatTypeCV8UC3)
	defer src.Close()
	px, err := src.DataPtrUint8()
	if err != nil {
		t.Fatal(err)
	}
	for i := range px {
		px[i] = uint8(rng.IntN(256))
	}
	tests := []struct {
		name string
		x, y float32
	}{
		{"whole pixel", 10, 20},
		{"fractions", 10.3, 20.71},
		{"half of a 32nd", 7 + 0.5/32, 3 + 1.5/32},
		{"negative", -0.4, -3.2},
		{"just inside the last pixel", 48.9, 38.99},
		{"outside", 60.25, 45.5},
		{"far outside", 1e6, -1e6},
	}
	n := len(tests)
	fx := gocv.NewMatWithSize(1, n, gocv.MatTypeCV32FC1)
	defer fx.Close()
	fy := gocv.NewMatWithSize(1, n, gocv.MatTypeCV32FC1)
	defer fy.Close()
	xy := gocv.NewMatWithSize(1, n, gocv.MatTypeCV16SC2)
	defer xy.Close()
	a := gocv.NewMatWithSize(1, n, gocv.MatTypeCV16UC1)
	defer a.Close()
	fxs, _ := fx.DataPtrFloat32()
	fys, _ := fy.DataPtrFloat32()
	xys, _ := xy.DataPtrInt16()
	as, _ := a.DataPtrUint16()
	for i, tc := range tests {
		fxs[i], fys[i] = tc.x, tc.y
		xys[2*i], xys[2*i+1], as[i] = fixedMap(tc.x, tc.y)
	}
	want, got := gocv.NewMat(), gocv.NewMat()
	defer want.Close()
	defer got.Close()
	grey := color.RGBA{R: 7, G: 8, B: 9}
	gocv.Remap(src, &want, &fx, &fy, gocv.InterpolationLinear, gocv.BorderConstant, grey)
	gocv.Remap(src, &got, &xy, &a, gocv.InterpolationLinear, gocv.BorderConstant, grey)
	for i, tc := range tests {
		g, w := got.GetVecbAt(0, i), want.GetVecbAt(0, i)
		if g[0] != w[0] || g[1] != w[1] || g[2] != w[2] {
			t.Errorf("%s: remap at (%v, %v) = %v, want %v", tc.name, tc.x, tc.y, g, w)
		}
	}
}

// TestGridUnchanged checks when a grid tile counts as worked out from a
// picture that still holds: only a change of the level or more inside its
// footprint makes it be worked out again.
func TestGridUnchanged(t *testing.T) {
	const stride, level = 6, 8
	base := make([]uint8, 4*stride)
	for i := range base {
		base[i] = uint8(100 + i)
	}
	with := func(i int, v uint8) []uint8 {
		img := append([]uint8(nil), base...)
		img[i] = v
		return img
	}
	foot := image.Rect(1, 1, 4, 3) // pixels 7..9 and 13..15
	tests := []struct {
		name    string
		foot    image.Rectangle
		stamped bool
		img     []uint8
		want    bool
	}{
		{"never worked out", foot, false, base, false},
		{"the same picture", foot, true, base, true},
		{"a change under the level", foot, true, with(8, base[8]+level-1), true},
		{"a change of the level inside", foot, true, with(14, base[14]-level), false},
		{"a change outside", foot, true, with(0, 0), true},
		{"the last pixel inside", foot, true, with(15, 255), false},
		{"wholly outside the picture", image.Rectangle{}, true, with(8, 0), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &grid{foot: []image.Rectangle{tc.foot}, stamp: make([][]uint8, 1)}
			if tc.stamped {
				g.stampTile(0, base, stride)
			}
			if got := g.unchanged(0, tc.img, stride, level); got != tc.want {
				t.Errorf("unchanged = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestOpeningKeepsThinMargins opens a paper mask with the detector's
// kernel where ink (an index, a pip) comes within 1.5 mm of a card's edge,
// at 2 px/mm and at every slant: the white margin left between them
// survives, so the card's outline keeps its straight edge. A square
// kernel lost dondorf's K♥ that bust seat 1's hand in seed 2210 round
// 1018, and dondorf's T♥ on a grid of 1.5 px/mm.
func TestOpeningKeepsThinMargins(t *testing.T) {
	const r = 2.0 // px a mm
	kernel := openingKernel()
	defer kernel.Close()
	for deg := 0.0; deg < 90; deg += 5 {
		mask := gocv.NewMatWithSize(200, 200, gocv.MatTypeCV8U)
		out := gocv.NewMat()
		s, c := math.Sincos(deg * math.Pi / 180)
		along, in := pt(c, s), pt(-s, c)
		o := pt(60, 40)
		quad := func(a0, a1, i0, i1 float64) gocv.PointsVector {
			var pts []image.Point
			for _, q := range [4][2]float64{{a0, i0}, {a1, i0}, {a1, i1}, {a0, i1}} {
				p := o.Add(along.Scale(q[0] * r)).Add(in.Scale(q[1] * r))
				pts = append(pts, image.Pt(int(math.Round(p.X)), int(math.Round(p.Y))))
			}
			return gocv.NewPointsVectorFromPoints([][]image.Point{pts})
		}
		card, ink := quad(0, 63, 0, 60), quad(10, 40, 1.5, 20)
		gocv.FillPoly(&mask, card, color.RGBA{R: 255, G: 255, B: 255, A: 255})
		gocv.FillPoly(&mask, ink, color.RGBA{})
		card.Close()
		ink.Close()
		gocv.MorphologyEx(mask, &out, gocv.MorphOpen, kernel)
		// The margin's middle line, beside the ink.
		kept, all := 0, 0
		for a := 12.0; a <= 38; a += 0.5 {
			p := o.Add(along.Scale(a * r)).Add(in.Scale(0.75 * r))
			all++
			if out.GetUCharAt(int(math.Round(p.Y)), int(math.Round(p.X))) != 0 {
				kept++
			}
		}
		mask.Close()
		out.Close()
		if kept < all*9/10 {
			t.Errorf("at %.0f°: %d of %d points of the 1.5 mm margin left after opening", deg, kept, all)
		}
	}
}

// TestPaperPixels checks which colours (BGR, as the camera gives them)
// count as card paper: white and cream paper, dimmed or under a warm
// cast, but not the felts, the layout's gold print or the scenes' skin.
func TestPaperPixels(t *testing.T) {
	tests := []struct {
		name  string
		bgr   [3]uint8
		paper bool
	}{
		{"white paper", [3]uint8{245, 246, 247}, true},
		{"grey paper in shade", [3]uint8{140, 142, 145}, true},
		{"cream paper", [3]uint8{215, 240, 252}, true},
		{"cream paper under warm light", [3]uint8{165, 224, 255}, true},
		{"white paper under cool light", [3]uint8{255, 226, 205}, true},
		{"blue felt", [3]uint8{98, 60, 25}, false},
		{"green felt", [3]uint8{40, 110, 30}, false},
		{"gold print", [3]uint8{90, 200, 235}, false},
		{"skin", [3]uint8{100, 122, 166}, false},
		{"skin in the light", [3]uint8{120, 150, 205}, false},
	}
	bgr := gocv.NewMatWithSize(1, len(tests), gocv.MatTypeCV8UC3)
	defer bgr.Close()
	for i, tc := range tests {
		for c := range 3 {
			bgr.SetUCharAt(0, 3*i+c, tc.bgr[c])
		}
	}
	hsv, paper, lit := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer hsv.Close()
	defer paper.Close()
	defer lit.Close()
	gocv.CvtColor(bgr, &hsv, gocv.ColorBGRToHSV)
	paperPixels(hsv, &paper, &lit)
	for i, tc := range tests {
		if got := paper.GetUCharAt(0, i) == 255; got != tc.paper {
			t.Errorf("%s %v: paper %v, want %v", tc.name, tc.bgr, got, tc.paper)
		}
	}
}

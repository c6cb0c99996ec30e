package classify

import (
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// gradient returns a 256×256 BGR image whose blue channel is the pixel's
// column and green its row, so that a crop's pixels tell where in the
// source they were sampled.
func gradient(tb testing.TB) gocv.Mat {
	tb.Helper()
	m := gocv.NewMatWithSize(256, 256, gocv.MatTypeCV8UC3)
	d, err := m.DataPtrUint8()
	if err != nil {
		tb.Fatal(err)
	}
	for y := range 256 {
		for x := range 256 {
			i := (y*256 + x) * 3
			d[i], d[i+1], d[i+2] = uint8(x), uint8(y), 0
		}
	}
	return m
}

func rotated(deg, pxPerMM float64) (Vec, Vec) {
	a := deg * math.Pi / 180
	c, s := math.Cos(a), math.Sin(a)
	return Vec{c * pxPerMM, s * pxPerMM}, Vec{-s * pxPerMM, c * pxPerMM}
}

// TestCutGeometry checks the documented geometry: crop pixel (col, row)
// shows card point ((col+0.5)·0.5, (row+0.5)·0.5) mm, at every scale
// (k = 1 plain warp, k > 1 supersampled) and angle.
func TestCutGeometry(t *testing.T) {
	src := gradient(t)
	defer src.Close()
	cr := NewCropper()
	defer cr.Close()
	dst := gocv.NewMat()
	defer dst.Close()
	for _, tc := range []struct {
		name         string
		deg, pxPerMM float64
	}{
		{"upright 1080p", 0, 1.5},
		{"upright 2px/mm", 0, 2},
		{"tilted 30° 2.5px/mm", 30, 2.5},
		{"card sideways 4K", 90, 3.2},
		{"upside down 5px/mm", 180, 5},
		{"tilted -17° 1.7px/mm", -17, 1.7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, v := rotated(tc.deg, tc.pxPerMM)
			f := Frame{Origin: Vec{128.3, 100.6}, U: u, V: v}
			if err := cr.Cut(src, f, &dst); err != nil {
				t.Fatal(err)
			}
			if dst.Cols() != CropCols || dst.Rows() != CropRows || dst.Type() != gocv.MatTypeCV8UC3 {
				t.Fatalf("crop %dx%d type %v, want %dx%d BGR", dst.Cols(), dst.Rows(), dst.Type(), CropCols, CropRows)
			}
			bad := 0
			for row := 0; row < CropRows; row++ {
				for col := 0; col < CropCols; col++ {
					p := f.Map(Vec{(float64(col) + 0.5) * CropWidthMM / CropCols, (float64(row) + 0.5) * CropHeightMM / CropRows})
					if p.X < 2 || p.Y < 2 || p.X > 253 || p.Y > 253 {
						continue // clamped at the border
					}
					v := dst.GetVecbAt(row, col)
					if math.Abs(float64(v[0])-p.X) > 1 || math.Abs(float64(v[1])-p.Y) > 1 {
						if bad++; bad <= 3 {
							t.Errorf("crop (%d,%d) sampled source (%d,%d), want (%.1f,%.1f)", col, row, v[0], v[1], p.X, p.Y)
						}
					}
				}
			}
		})
	}
}

func TestCutRejects(t *testing.T) {
	src := gradient(t)
	defer src.Close()
	gray := gocv.NewMatWithSize(10, 10, gocv.MatTypeCV8UC1)
	defer gray.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	cr := NewCropper()
	defer cr.Close()
	dst := gocv.NewMat()
	defer dst.Close()
	ok := Frame{Origin: Vec{10, 10}, U: Vec{2, 0}, V: Vec{0, 2}}
	for _, tc := range []struct {
		name string
		src  gocv.Mat
		f    Frame
	}{
		{"empty source", empty, ok},
		{"grey source", gray, ok},
		{"zero frame", src, Frame{}},
		{"too coarse", src, Frame{U: Vec{0.1, 0}, V: Vec{0, 0.1}}},
		{"too fine", src, Frame{U: Vec{100, 0}, V: Vec{0, 100}}},
		{"parallel axes", src, Frame{U: Vec{2, 0}, V: Vec{2, 0.1}}},
		{"NaN origin", src, Frame{Origin: Vec{math.NaN(), 0}, U: Vec{2, 0}, V: Vec{0, 2}}},
		{"infinite axis", src, Frame{U: Vec{math.Inf(1), 0}, V: Vec{0, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := cr.Cut(tc.src, tc.f, &dst); err == nil {
				t.Errorf("Cut(%s) = nil, want an error", tc.name)
			}
		})
	}
	closed := NewCropper()
	closed.Close()
	if err := closed.Cut(src, ok, &dst); err == nil {
		t.Error("Cut on a closed Cropper = nil, want an error")
	}
}

func TestNewFrame(t *testing.T) {
	f := NewFrame(Vec{5, 7}, Vec{0, 3}, Vec{-10, 0}, 2)
	for _, tc := range []struct {
		mm, want Vec
	}{
		{Vec{0, 0}, Vec{5, 7}},
		{Vec{1, 0}, Vec{5, 9}},
		{Vec{0, 1}, Vec{3, 7}},
		{Vec{10, 20}, Vec{-35, 27}},
	} {
		if got := f.Map(tc.mm); math.Abs(got.X-tc.want.X) > 1e-9 || math.Abs(got.Y-tc.want.Y) > 1e-9 {
			t.Errorf("Map(%v) = %v, want %v", tc.mm, got, tc.want)
		}
	}
}

func BenchmarkCut(b *testing.B) {
	src := gocv.NewMatWithSize(1080, 1920, gocv.MatTypeCV8UC3)
	defer src.Close()
	cr := NewCropper()
	defer cr.Close()
	dst := gocv.NewMat()
	defer dst.Close()
	for _, px := range []float64{1.5, 3.2} {
		b.Run(map[float64]string{1.5: "1080p", 3.2: "4K"}[px], func(b *testing.B) {
			u, v := rotated(12, px)
			f := Frame{Origin: Vec{900, 500}, U: u, V: v}
			b.ResetTimer()
			for range b.N {
				if err := cr.Cut(src, f, &dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

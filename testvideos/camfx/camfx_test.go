package camfx

import (
	"bytes"
	"image"
	"image/color"
	"math/rand/v2"
	"os"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/internal/matleak"
)

// TestMain fails the run when a test leaked a Mat (with -tags matprofile).
func TestMain(m *testing.M) { os.Exit(matleak.Run(m)) }

// card returns a 200×200 grey felt with a white card at (60..140, 40..160)
// and its quad. The caller closes the Mat.
func card() (gocv.Mat, Quad) {
	m := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(60, 100, 40, 0), 200, 200, gocv.MatTypeCV8UC3)
	gocv.Rectangle(&m, image.Rect(60, 40, 140, 160), color.RGBA{R: 240, G: 240, B: 240, A: 255}, -1)
	return m, Quad{{60, 40}, {140, 40}, {140, 160}, {60, 160}}
}

func grey(m gocv.Mat, x, y int) float64 {
	v := m.GetVecbAt(y, x)
	return (float64(v[0]) + float64(v[1]) + float64(v[2])) / 3
}

// TestEffects: each effect changes the picture where it should and
// leaves the rest.
func TestEffects(t *testing.T) {
	tests := []struct {
		name  string
		apply func(*gocv.Mat, Quad) error
		check func(before, after gocv.Mat) string
	}{
		{"shadow darkens the felt beside the card, not the card", func(m *gocv.Mat, q Quad) error {
			return SoftShadow(m, []Quad{q}, [2]float64{6, 6}, 2, 0.5)
		}, func(b, a gocv.Mat) string {
			if grey(a, 143, 100) >= grey(b, 143, 100)-5 {
				return "the felt beside the card is not darker"
			}
			if grey(a, 100, 100) != grey(b, 100, 100) || grey(a, 20, 20) != grey(b, 20, 20) {
				return "the card's face or far felt changed"
			}
			return ""
		}},
		{"glare brightens the card on the band only", func(m *gocv.Mat, q Quad) error {
			return GlareBand(m, q, 0.5, 0, 10, 0.8)
		}, func(b, a gocv.Mat) string {
			// The band runs along x through the card's centre (y 100).
			if grey(a, 100, 100) <= grey(b, 100, 100) {
				return "the card's centre is not brighter"
			}
			if grey(a, 100, 50) != grey(b, 100, 50) || grey(a, 20, 100) != grey(b, 20, 100) {
				return "the glare reaches off its band or off the card"
			}
			return ""
		}},
		{"sharpening overshoots at the card's edge", func(m *gocv.Mat, _ Quad) error { return Sharpen(m, 1, 1.5) },
			func(b, a gocv.Mat) string {
				if grey(a, 57, 100) >= grey(b, 57, 100) || grey(a, 62, 100) < grey(b, 62, 100) {
					return "no dark halo outside the edge and bright one inside"
				}
				return ""
			}},
		{"motion blur spreads the edge along x", func(m *gocv.Mat, _ Quad) error { return MotionBlur(m, 9, 0) },
			func(b, a gocv.Mat) string {
				if grey(a, 58, 100) <= grey(b, 58, 100) || grey(a, 100, 38) != grey(b, 100, 38) {
					return "not smeared along x only"
				}
				return ""
			}},
		{"a warm cast raises red and lowers blue", func(m *gocv.Mat, _ Quad) error { return ColourCast(m, 0.8, 1, 1.1) },
			func(b, a gocv.Mat) string {
				vb, va := b.GetVecbAt(10, 10), a.GetVecbAt(10, 10)
				if va[0] != 48 || va[1] != vb[1] || va[2] != 44 {
					return "the felt's channels are not scaled"
				}
				return ""
			}},
		{"a bend moves the card's middle, not its ends", func(m *gocv.Mat, q Quad) error { return Bend(m, q, 4, [2]float64{0, 1}) },
			func(b, a gocv.Mat) string {
				// Across the bend is x: the middle (x 100) moves down, so the
				// top edge there shows felt; at x 62 it stays.
				if grey(a, 100, 41) >= grey(b, 100, 41) || grey(a, 62, 42) != grey(b, 62, 42) {
					return "the top edge did not move in the middle only"
				}
				return ""
			}},
		{"JPEG changes the bytes", func(m *gocv.Mat, _ Quad) error { return JPEG(m, 30) },
			func(b, a gocv.Mat) string {
				d := gocv.NewMat()
				defer d.Close()
				gocv.AbsDiff(a, b, &d)
				if d.Sum().Val1 == 0 {
					return "nothing changed"
				}
				return ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, q := card()
			defer m.Close()
			before := m.Clone()
			defer before.Close()
			if err := tt.apply(&m, q); err != nil {
				t.Fatal(err)
			}
			if m.Type() != gocv.MatTypeCV8UC3 || m.Cols() != 200 || m.Rows() != 200 {
				t.Fatalf("the picture became %v %dx%d", m.Type(), m.Cols(), m.Rows())
			}
			if msg := tt.check(before, m); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestBadArguments: out-of-range strengths and wrong Mats are errors,
// never an OpenCV abort.
func TestBadArguments(t *testing.T) {
	m, q := card()
	defer m.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	bgra := gocv.NewMatWithSize(88, 63, gocv.MatTypeCV8UC4)
	defer bgra.Close()
	tests := []struct {
		name string
		err  error
	}{
		{"JPEG quality 0", JPEG(&m, 0)},
		{"JPEG of an empty Mat", JPEG(&empty, 80)},
		{"negative sharpening", Sharpen(&m, -1, 1)},
		{"motion blur of 100 px", MotionBlur(&m, 100, 0)},
		{"a cast of 3", ColourCast(&m, 3, 1, 1)},
		{"a shadow of strength 2", SoftShadow(&m, []Quad{q}, [2]float64{1, 1}, 2, 2)},
		{"glare of width 0", GlareBand(&m, q, 0.5, 0, 0, 0.5)},
		{"a bend of 50 px", Bend(&m, q, 50, [2]float64{0, 1})},
		{"a BGR face", faceErr(m, 2)},
		{"a face at 0 px/mm", faceErr(bgra, 0)},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// faceErr returns Face's error for face at r px/mm.
func faceErr(face gocv.Mat, r float64) error {
	out, err := Face(face, 63, 88, r, rand.New(rand.NewPCG(1, 1)))
	if err == nil {
		out.Close()
	}
	return err
}

// TestFace: a face comes out at the scale asked for, BGR, and the same
// for the same draws.
func TestFace(t *testing.T) {
	face := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(250, 250, 250, 255), 176, 126, gocv.MatTypeCV8UC4)
	defer face.Close()
	shot := func(seed uint64) []byte {
		out, err := Face(face, 63, 88, 1.5, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if out.Cols() != 95 || out.Rows() != 132 || out.Type() != gocv.MatTypeCV8UC3 {
			t.Fatalf("%dx%d type %v, want 95x132 BGR", out.Cols(), out.Rows(), out.Type())
		}
		return out.ToBytes()
	}
	a, b, c := shot(1), shot(1), shot(2)
	if !bytes.Equal(a, b) {
		t.Error("the same draws gave two pictures")
	}
	if bytes.Equal(a, c) {
		t.Error("other draws gave the same picture")
	}
}

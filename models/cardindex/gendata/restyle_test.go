package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"gocv.io/x/gocv"
)

func TestHSVRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		b, g, rr := 255*r.Float64(), 255*r.Float64(), 255*r.Float64()
		b2, g2, r2 := fromHSV(toHSV(b, g, rr))
		if math.Abs(b-b2)+math.Abs(g-g2)+math.Abs(rr-r2) > 1e-6 {
			t.Fatalf("(%v %v %v) → (%v %v %v)", b, g, rr, b2, g2, r2)
		}
	}
}

// TestRestyle checks that no restyle draws nothing (so -restyle 0 keeps
// the first recipe's draws) and that a restyle keeps the card's outline.
func TestRestyle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	before := r.Uint64()
	r = rand.New(rand.NewPCG(3, 4))
	if st := drawStyle(r, 0, false, false); !st.none() {
		t.Errorf("drawStyle(p=0) = %+v, want no restyle", st)
	}
	if r.Uint64() != before {
		t.Error("drawStyle(p=0) consumed random numbers")
	}
	face := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(250, 250, 250, 255), 84, 60, gocv.MatTypeCV8UC4)
	defer face.Close()
	d, _ := face.DataPtrUint8()
	for i := 0; i < 60*4; i += 4 { // a transparent first row
		d[i+3] = 0
	}
	dst, tmp := gocv.NewMat(), gocv.NewMat()
	defer dst.Close()
	defer tmp.Close()
	st := style{stroke: 3, sx: 1.1, sy: 0.9, warp: true, recolor: true, redSat: 1, redVal: 1,
		paper: [3]float64{0.8, 0.9, 1}}
	if err := restyle(face, st, Vec{}, &dst, &tmp); err != nil {
		t.Fatal(err)
	}
	o, _ := dst.DataPtrUint8()
	for i := 3; i < len(o); i += 4 {
		if o[i] != d[i] {
			t.Fatalf("alpha %d at byte %d, want %d", o[i], i, d[i])
		}
	}
	if p := o[60*4*40 : 60*4*40+3]; p[0] != 200 || p[1] != 225 || p[2] != 250 {
		t.Errorf("paper tinted to %v, want [200 225 250]", p)
	}
}

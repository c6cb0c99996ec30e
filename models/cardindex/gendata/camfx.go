package main

import (
	"math"
	"math/rand/v2"

	"gocv.io/x/gocv"

	"bjmonitor/testvideos/camfx"
)

// stillFaults applies, each with probability p, the faults of phone and
// CCTV stills that the rest of the recipe lacks, with the functions the
// still renderer uses (package camfx): the main card bent a little, the
// soft shadow it throws on the felt, and motion blur. The card lies at
// q-space [0, 63]×[0, 88] mm; the perspective drawn before moves it by a
// few per cent, which these faults do not need to follow.
func stillFaults(r *rand.Rand, canvas *gocv.Mat, qToCanvas affine, px, p float64) {
	var q camfx.Quad
	for i, c := range []Vec{{0, 0}, {cardW, 0}, {cardW, cardH}, {0, cardH}} {
		v := qToCanvas.apply(c)
		q[i] = [2]float64{v.X, v.Y}
	}
	if r.Float64() < p {
		a := r.Float64() * 2 * math.Pi
		_ = camfx.Bend(canvas, q, uni(r, 0.3, 1.2)*px, [2]float64{math.Cos(a), math.Sin(a)})
	}
	if r.Float64() < p {
		a, d := r.Float64()*2*math.Pi, uni(r, 1, 3)*px
		_ = camfx.SoftShadow(canvas, []camfx.Quad{q}, [2]float64{d * math.Cos(a), d * math.Sin(a)}, uni(r, 1, 3)*px, uni(r, 0.15, 0.45))
	}
	if r.Float64() < p {
		_ = camfx.MotionBlur(canvas, uni(r, 1.5, 4), uni(r, 0, 180))
	}
}

package camfx

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"gocv.io/x/gocv"
)

// Face shows a card's face (8-bit BGRA, transparent beyond its rounded
// corners, as cardart draws it; wMM × hMM) as an overhead camera does
// once the face is cut out of the frame at pxPerMM: over felt, placed up
// to 1.5 mm and 2° off (a card's outline is found to about that),
// blurred, with sensor noise and JPEG blocking at quality 60 to 90. rng
// draws the faults, so that a run repeats exactly. The caller closes the
// picture, BGR.
func Face(face gocv.Mat, wMM, hMM, pxPerMM float64, rng *rand.Rand) (gocv.Mat, error) {
	if face.Empty() || face.Type() != gocv.MatTypeCV8UC4 {
		return gocv.Mat{}, fmt.Errorf("camfx: want a non-empty 8-bit BGRA face")
	}
	if wMM <= 0 || hMM <= 0 || pxPerMM <= 0 {
		return gocv.Mat{}, fmt.Errorf("camfx: a %v × %v mm face at %v px/mm", wMM, hMM, pxPerMM)
	}
	sx := float64(face.Cols()) / wMM // face px per mm
	w, h := int(math.Round(wMM*pxPerMM)), int(math.Round(hMM*pxPerMM))
	ang := (rng.Float64()*4 - 2) * math.Pi / 180
	dx, dy := rng.Float64()*3-1.5, rng.Float64()*3-1.5
	// Output pixel (u, v) shows face point A·(u, v) + b, in face px.
	k := sx / pxPerMM
	cos, sin := math.Cos(ang)*k, math.Sin(ang)*k
	cx, cy := float64(w)/2, float64(h)/2
	bx := float64(face.Cols())/2 + dx*sx - (cos*cx - sin*cy)
	by := float64(face.Rows())/2 + dy*sx - (sin*cx + cos*cy)
	m := gocv.NewMatWithSize(2, 3, gocv.MatTypeCV64F)
	defer m.Close()
	for i, v := range []float64{cos, -sin, bx, sin, cos, by} {
		m.SetDoubleAt(i/3, i%3, v)
	}
	felt := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(40, 110, 30, 255), face.Rows(), face.Cols(), gocv.MatTypeCV8UC4)
	defer felt.Close()
	// Paint the felt where the face is transparent.
	alpha := gocv.NewMat()
	defer alpha.Close()
	gocv.ExtractChannel(face, &alpha, 3)
	face.CopyToWithMask(&felt, alpha)
	bgr := gocv.NewMat()
	defer bgr.Close()
	gocv.CvtColor(felt, &bgr, gocv.ColorBGRAToBGR)
	out := gocv.NewMat()
	gocv.WarpAffineWithParams(bgr, &out, m, image.Pt(w, h), gocv.InterpolationArea|gocv.WarpInverseMap, gocv.BorderConstant, color.RGBA{R: 30, G: 110, B: 40})
	sigma := 0.4 + rng.Float64()*0.6
	gocv.GaussianBlur(out, &out, image.Point{}, sigma, sigma, gocv.BorderReplicate)
	px, err := out.DataPtrUint8()
	if err != nil {
		out.Close()
		return gocv.Mat{}, err
	}
	for i, v := range px {
		px[i] = uint8(min(max(float64(v)+rng.NormFloat64()*4, 0), 255))
	}
	if err := JPEG(&out, 60+rng.IntN(31)); err != nil {
		out.Close()
		return gocv.Mat{}, err
	}
	return out, nil
}

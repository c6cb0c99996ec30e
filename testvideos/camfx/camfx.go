// Package camfx applies what real cameras and real cards do to a
// rendered picture: JPEG compression, the halos of in-camera sharpening,
// motion blur, specular glare on glossy cards, soft shadows, slightly bent
// cards and the colour cast of casino lighting.
//
// Each effect is one small function on an 8-bit BGR Mat, changed in
// place, with its strength as arguments, so that the still renderer
// (package still) and the model's training data (models/cardindex/gendata)
// use the same ones. Random draws are the caller's: an effect itself is
// deterministic. Face, which shows a whole card face as the camera does,
// draws its faults from the caller's generator.
//
//	camfx.ColourCast(&img, 1.08, 1.0, 0.9)  // warm tungsten light
//	camfx.Sharpen(&img, 0.8, 1.2)           // CCTV sharpening halos
//	err := camfx.JPEG(&img, 70)             // compression at quality 70
package camfx

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"
)

// check rejects what OpenCV would abort on.
func check(m *gocv.Mat) error {
	if m == nil || m.Empty() || m.Type() != gocv.MatTypeCV8UC3 {
		return fmt.Errorf("camfx: want a non-empty 8-bit BGR Mat")
	}
	return nil
}

// JPEG compresses m at quality q (1..100) and decodes it again, with the
// blocks and ringing that brings.
func JPEG(m *gocv.Mat, q int) error {
	if err := check(m); err != nil {
		return err
	}
	if q < 1 || q > 100 {
		return fmt.Errorf("camfx: JPEG quality %d, want 1..100", q)
	}
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, *m, []int{gocv.IMWriteJpegQuality, q})
	if err != nil {
		return err
	}
	defer buf.Close()
	dec, err := gocv.IMDecode(buf.GetBytes(), gocv.IMReadColor)
	if err != nil {
		return err
	}
	defer dec.Close()
	dec.CopyTo(m)
	return nil
}

// Sharpen applies an unsharp mask: m + amount·(m − blur(m, sigma)). The
// overshoot at every edge is the bright and dark halo of CCTV cameras.
func Sharpen(m *gocv.Mat, amount, sigma float64) error {
	if err := check(m); err != nil {
		return err
	}
	if amount < 0 || sigma <= 0 {
		return fmt.Errorf("camfx: sharpen amount %g, sigma %g: want amount ≥ 0, sigma > 0", amount, sigma)
	}
	blur := gocv.NewMat()
	defer blur.Close()
	gocv.GaussianBlur(*m, &blur, image.Pt(0, 0), sigma, sigma, gocv.BorderReflect101)
	gocv.AddWeighted(*m, 1+amount, blur, -amount, 0, m)
	return nil
}

// MotionBlur smears m along a straight line of length px pixels at angle
// deg (0 is along x), as a camera shaken or a card moving during the
// exposure does.
func MotionBlur(m *gocv.Mat, length, deg float64) error {
	if err := check(m); err != nil {
		return err
	}
	if length < 1 || length > 64 {
		return fmt.Errorf("camfx: motion blur of %g px, want 1..64", length)
	}
	n := int(math.Ceil(length)) | 1
	k := gocv.NewMatWithSize(n, n, gocv.MatTypeCV32F)
	defer k.Close()
	c := float64(n-1) / 2
	dx, dy := math.Cos(deg*math.Pi/180), math.Sin(deg*math.Pi/180)
	gocv.Line(&k, image.Pt(int(math.Round(c-dx*(length-1)/2)), int(math.Round(c-dy*(length-1)/2))),
		image.Pt(int(math.Round(c+dx*(length-1)/2)), int(math.Round(c+dy*(length-1)/2))), color.RGBA{R: 1, G: 1, B: 1, A: 1}, 1)
	sum := k.Sum().Val1
	if sum == 0 {
		return nil
	}
	k.DivideFloat(float32(sum))
	gocv.Filter2D(*m, m, -1, k, image.Pt(-1, -1), 0, gocv.BorderReflect101)
	return nil
}

// ColourCast multiplies the blue, green and red channels by b, g and r
// (each 0.5..1.5): warm tungsten lamps, cool LED strips.
func ColourCast(m *gocv.Mat, b, g, r float64) error {
	if err := check(m); err != nil {
		return err
	}
	for _, k := range []float64{b, g, r} {
		if k < 0.5 || k > 1.5 {
			return fmt.Errorf("camfx: colour cast %g, %g, %g: want each 0.5..1.5", b, g, r)
		}
	}
	ch := gocv.Split(*m)
	defer func() {
		for _, c := range ch {
			c.Close()
		}
	}()
	for i, k := range []float64{b, g, r} {
		ch[i].ConvertToWithParams(&ch[i], gocv.MatTypeCV8U, float32(k), 0)
	}
	gocv.Merge(ch, m)
	return nil
}

// Quad is a card's outline in image pixels, corners in order around it.
type Quad [4][2]float64

func (q Quad) points() []image.Point {
	out := make([]image.Point, 4)
	for i, p := range q {
		out[i] = image.Pt(int(math.Round(p[0])), int(math.Round(p[1])))
	}
	return out
}

// bounds is q's bounding box, grown by pad pixels and cut to size.
func (q Quad) bounds(pad int, size image.Point) image.Rectangle {
	r := image.Rectangle{}
	for i, p := range q.points() {
		pr := image.Rectangle{Min: p, Max: p.Add(image.Pt(1, 1))}
		if i == 0 {
			r = pr
		} else {
			r = r.Union(pr)
		}
	}
	return r.Inset(-pad).Intersect(image.Rectangle{Max: size})
}

// fillMask returns a float mask (0..1) of size×size with the quads filled,
// blurred by sigma pixels (none when sigma is 0). The caller closes it.
func fillMask(size image.Point, quads []Quad, sigma float64) gocv.Mat {
	mask := gocv.NewMatWithSize(size.Y, size.X, gocv.MatTypeCV32F)
	mask.SetTo(gocv.NewScalar(0, 0, 0, 0))
	for _, q := range quads {
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{q.points()})
		gocv.FillPoly(&mask, pv, color.RGBA{R: 1, G: 1, B: 1, A: 1})
		pv.Close()
	}
	if sigma > 0 {
		gocv.GaussianBlur(mask, &mask, image.Pt(0, 0), sigma, sigma, gocv.BorderConstant)
	}
	return mask
}

// blend sets m to m·(1 − a·mask) + a·mask·colour, channel by channel:
// a < 0 with a black colour darkens (a shadow), a > 0 with white
// brightens (glare). mask is float, m's size.
func blend(m *gocv.Mat, mask gocv.Mat, a float64, col [3]float64) {
	f := gocv.NewMat()
	defer f.Close()
	m.ConvertTo(&f, gocv.MatTypeCV32FC3)
	ch := gocv.Split(f)
	defer func() {
		for _, c := range ch {
			c.Close()
		}
	}()
	w := gocv.NewMat()
	defer w.Close()
	mask.MultiplyFloat(float32(a))
	for i := range ch {
		// ch += mask·a·(col − ch)
		gocv.Subtract(ch[i], ch[i], &w) // zero, of the right type
		w.AddFloat(float32(col[i]))
		gocv.Subtract(w, ch[i], &w)
		gocv.Multiply(w, mask, &w)
		gocv.Add(ch[i], w, &ch[i])
	}
	gocv.Merge(ch, &f)
	f.ConvertTo(m, gocv.MatTypeCV8UC3)
}

// SoftShadow darkens, by up to strength (0..1), the felt beside each quad
// where a card raised off the felt (bent, or lying on another) throws a
// shadow: the quad moved by offset pixels, blurred by sigma. A card's own
// face is not darkened by its own shadow.
func SoftShadow(m *gocv.Mat, quads []Quad, offset [2]float64, sigma, strength float64) error {
	if err := check(m); err != nil {
		return err
	}
	if strength < 0 || strength > 1 || sigma < 0 {
		return fmt.Errorf("camfx: shadow strength %g, sigma %g: want 0..1 and ≥ 0", strength, sigma)
	}
	size := image.Pt(m.Cols(), m.Rows())
	moved := make([]Quad, len(quads))
	for i, q := range quads {
		for j := range q {
			moved[i][j] = [2]float64{q[j][0] + offset[0], q[j][1] + offset[1]}
		}
	}
	shadow := fillMask(size, moved, sigma)
	defer shadow.Close()
	own := fillMask(size, quads, 0)
	defer own.Close()
	// Off the cards that cast it: the shadow falls on the felt.
	gocv.Subtract(shadow, own, &shadow)
	gocv.Threshold(shadow, &shadow, 0, 0, gocv.ThresholdToZero)
	blend(m, shadow, strength, [3]float64{0, 0, 0})
	return nil
}

// GlareBand lays a band of specular glare across quad q: a soft-edged
// stripe of the light's reflection, width w and direction deg, through
// the point at fraction at (0..1) along the quad's diagonal, washing the
// face towards white by up to strength (0..1). Ink under it loses
// contrast, as on a glossy card under a lamp.
func GlareBand(m *gocv.Mat, q Quad, at, deg, w, strength float64) error {
	if err := check(m); err != nil {
		return err
	}
	if strength < 0 || strength > 1 || w <= 0 {
		return fmt.Errorf("camfx: glare strength %g, width %g: want 0..1 and > 0", strength, w)
	}
	size := image.Pt(m.Cols(), m.Rows())
	card := fillMask(size, []Quad{q}, 0.7)
	defer card.Close()
	cx := q[0][0] + at*(q[2][0]-q[0][0])
	cy := q[0][1] + at*(q[2][1]-q[0][1])
	nx, ny := -math.Sin(deg*math.Pi/180), math.Cos(deg*math.Pi/180)
	band := gocv.NewMatWithSize(size.Y, size.X, gocv.MatTypeCV32F)
	defer band.Close()
	r := q.bounds(2, size)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			d := (float64(x)-cx)*nx + (float64(y)-cy)*ny
			band.SetFloatAt(y, x, float32(math.Exp(-d*d/(2*w*w/4))))
		}
	}
	gocv.Multiply(band, card, &band)
	blend(m, band, strength, [3]float64{255, 255, 255})
	return nil
}

// Bend makes the card in quad q look bent: its middle bulges towards the
// camera by up to amount pixels along dir (a unit vector), falling to
// nothing at the card's two ends across it, as a card curled along its
// long axis looks from above. Only pixels near the quad move.
func Bend(m *gocv.Mat, q Quad, amount float64, dir [2]float64) error {
	if err := check(m); err != nil {
		return err
	}
	if math.Abs(amount) > 20 {
		return fmt.Errorf("camfx: bend of %g px, want at most 20", amount)
	}
	size := image.Pt(m.Cols(), m.Rows())
	r := q.bounds(int(math.Ceil(math.Abs(amount)))+3, size)
	if r.Empty() {
		return nil
	}
	// Across the bend: the quad's short side, from corner 0 to corner 1.
	ax, ay := q[1][0]-q[0][0], q[1][1]-q[0][1]
	al := math.Hypot(ax, ay)
	if al == 0 {
		return nil
	}
	ax, ay = ax/al, ay/al
	cx := (q[0][0] + q[1][0] + q[2][0] + q[3][0]) / 4
	cy := (q[0][1] + q[1][1] + q[2][1] + q[3][1]) / 4
	mask := fillMask(size, []Quad{q}, 2)
	defer mask.Close()
	mapX := gocv.NewMatWithSize(r.Dy(), r.Dx(), gocv.MatTypeCV32F)
	defer mapX.Close()
	mapY := gocv.NewMatWithSize(r.Dy(), r.Dx(), gocv.MatTypeCV32F)
	defer mapY.Close()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			t := ((float64(x)-cx)*ax + (float64(y)-cy)*ay) / (al / 2) // -1..1 across the card
			s := amount * math.Max(0, 1-t*t) * float64(mask.GetFloatAt(y, x))
			mapX.SetFloatAt(y-r.Min.Y, x-r.Min.X, float32(float64(x)-s*dir[0]))
			mapY.SetFloatAt(y-r.Min.Y, x-r.Min.X, float32(float64(y)-s*dir[1]))
		}
	}
	out := gocv.NewMat()
	defer out.Close()
	gocv.Remap(*m, &out, &mapX, &mapY, gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	dst := m.Region(r)
	defer dst.Close()
	out.CopyTo(&dst)
	return nil
}

package scene

import (
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"
)

var (
	defaultSleeve = color.RGBA{R: 236, G: 236, B: 232, A: 255}
	defaultSkin   = color.RGBA{R: 166, G: 122, B: 100, A: 255}
)

// occluderShapes returns the arm's parts as table-mm polygons: the sleeve,
// the bare forearm and the hand (palm, fingers, thumb), in drawing order,
// each with whether it is skin.
func occluderShapes(o Occluder) (polys [][]Point, skin []bool) {
	back := Point{0, -1}.rotate(o.FromDeg) // from the hand towards the elbow
	across := Point{-back.Y, back.X}
	at := func(along, side float64) Point {
		return o.Hand.Add(back.Scale(along)).Add(across.Scale(side))
	}
	// Forearm: wrist 58 mm wide, 60 mm behind the palm's centre, widening
	// to the elbow; the sleeve starts 150 mm behind the palm and runs off
	// the table towards the dealer.
	polys = append(polys, []Point{at(150, -52), at(150, 52), at(700, 64), at(700, -64)})
	skin = append(skin, false)
	polys = append(polys, []Point{at(45, -29), at(45, 29), at(165, 40), at(165, -40)})
	skin = append(skin, true)
	polys = append(polys, ellipse(o.Hand, back, across, 48, 38, 0))
	skin = append(skin, true)
	for i, side := range []float64{-25, -8.5, 8.5, 25} {
		length := []float64{40, 50, 52, 44}[i]
		c := at(-38-length/2, side)
		polys = append(polys, ellipse(c, back, across, length/2+3, 8, []float64{-6, -2, 2, 6}[i]))
		skin = append(skin, true)
	}
	polys = append(polys, ellipse(at(-12, 44), back, across, 30, 10, 40))
	skin = append(skin, true)
	return polys, skin
}

// ellipse returns a polygon around c with semi-axes a (along `along`) and
// b (along `across`), turned by tilt degrees.
func ellipse(c, along, across Point, a, b, tilt float64) []Point {
	const n = 20
	out := make([]Point, n)
	st, ct := math.Sincos(tilt * math.Pi / 180)
	for i := 0; i < n; i++ {
		sn, cs := math.Sincos(2 * math.Pi * float64(i) / n)
		u, v := a*cs, b*sn
		u, v = u*ct-v*st, u*st+v*ct
		out[i] = c.Add(along.Scale(u)).Add(across.Scale(v))
	}
	return out
}

// drawOccluder draws one arm on frame f (a continuous BGR Mat): its soft
// shadow on the table, then the arm itself with a rounded shading, smeared
// by its motion. All temporaries live and die in this call.
func (s *Scene) drawOccluder(f *gocv.Mat, o Occluder) {
	if o.Sleeve == (color.RGBA{}) {
		o.Sleeve = defaultSleeve
	}
	if o.Skin == (color.RGBA{}) {
		o.Skin = defaultSkin
	}
	polys, skin := occluderShapes(o)
	scale := s.cam.PxPerMM(o.Hand)
	// Project every vertex; the bounding box (plus room for the shadow
	// and the blurs) is the only region touched.
	// The arm is some 150 mm above the felt, so its shadow falls well
	// clear of it, away from the lamps.
	shadowOff := image.Pt(int(16*scale), int(24*scale))
	mx, my := s.cam.Project(o.Hand.Add(o.Motion))
	hx, hy := s.cam.Project(o.Hand)
	mot := Point{mx - hx, my - hy}
	margin := int(20*scale+math.Abs(mot.X)+math.Abs(mot.Y)) + 4
	var img [][]image.Point
	bounds := image.Rectangle{}
	for i, p := range polys {
		pts := make([]image.Point, len(p))
		for j, q := range p {
			x, y := s.cam.Project(q)
			// Keep far-off vertices sane: the sleeve runs off the image.
			x = math.Max(-4000, math.Min(x, 12000))
			y = math.Max(-4000, math.Min(y, 12000))
			pts[j] = image.Pt(int(math.Round(x)), int(math.Round(y)))
		}
		img = append(img, pts)
		r := image.Rectangle{Min: pts[0], Max: pts[0].Add(image.Pt(1, 1))}
		for _, q := range pts[1:] {
			r = r.Union(image.Rectangle{Min: q, Max: q.Add(image.Pt(1, 1))})
		}
		if i == 0 {
			bounds = r
		} else {
			bounds = bounds.Union(r)
		}
	}
	frame := image.Rect(0, 0, f.Cols(), f.Rows())
	roi := image.Rect(bounds.Min.X-margin, bounds.Min.Y-margin, bounds.Max.X+margin+shadowOff.X, bounds.Max.Y+margin+shadowOff.Y).Intersect(frame)
	if roi.Empty() || roi.Dx() < 4 || roi.Dy() < 4 {
		return
	}
	w, h := roi.Dx(), roi.Dy()
	// The arm is soft: draw it at no more than ~1.7 px/mm and enlarge the
	// result, which keeps a 4K frame's arm as cheap as a 1080p one's.
	fct := max(1, int(math.Ceil(scale/1.7)))
	ws := scale / float64(fct)
	sw, sh := (w+fct-1)/fct, (h+fct-1)/fct
	toLocal := func(p image.Point) image.Point { return p.Sub(roi.Min).Div(fct) }
	colour := gocv.NewMatWithSize(sh, sw, gocv.MatTypeCV8UC3)
	defer colour.Close()
	mask := gocv.NewMatWithSize(sh, sw, gocv.MatTypeCV8UC1)
	defer mask.Close()
	colour.SetTo(gocv.NewScalar(float64(o.Sleeve.B), float64(o.Sleeve.G), float64(o.Sleeve.R), 0))
	mask.SetTo(gocv.NewScalar(0, 0, 0, 0))
	for i, pts := range img {
		local := make([]image.Point, len(pts))
		for j, p := range pts {
			local[j] = toLocal(p)
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{local})
		c := o.Sleeve
		if skin[i] {
			c = o.Skin
		}
		gocv.FillPolyWithParams(&colour, pv, c, gocv.LineAA, 0, image.Point{})
		gocv.FillPolyWithParams(&mask, pv, color.RGBA{R: 255, G: 255, B: 255, A: 255}, gocv.LineAA, 0, image.Point{})
		pv.Close()
	}
	// Folds across the sleeve: darker creases, softened by the blur below.
	back := Point{0, -1}.rotate(o.FromDeg)
	across := Point{-back.Y, back.X}
	crease := color.RGBA{R: uint8(int(o.Sleeve.R) * 4 / 5), G: uint8(int(o.Sleeve.G) * 4 / 5), B: uint8(int(o.Sleeve.B) * 4 / 5), A: 255}
	for i, along := range []float64{190, 235, 300, 390} {
		skew := []float64{12, -10, 8, -14}[i]
		a := o.Hand.Add(back.Scale(along - skew)).Add(across.Scale(-50))
		b := o.Hand.Add(back.Scale(along + skew)).Add(across.Scale(50))
		ax, ay := s.cam.Project(a)
		bx, by := s.cam.Project(b)
		pa := toLocal(image.Pt(int(ax), int(ay)))
		pb := toLocal(image.Pt(int(bx), int(by)))
		gocv.Line(&colour, pa, pb, crease, max(1, int(6*ws)))
	}
	// Rounded look: darken towards the silhouette's edges by blurring the
	// mask and using it as a shading term; then soften the colour.
	shade := gocv.NewMat()
	defer shade.Close()
	softBlur(mask, &shade, 11*ws)
	softBlur(colour, &colour, 1.2*ws)
	// The shadow: the silhouette shifted away from the lamps, very soft.
	shadow := gocv.NewMat()
	defer shadow.Close()
	softBlur(mask, &shadow, 7*ws)
	if mot.X != 0 || mot.Y != 0 {
		m := mot.Scale(1 / float64(fct))
		for _, mat := range []*gocv.Mat{&colour, &mask, &shade} {
			smear(mat, m)
		}
	}
	if fct > 1 {
		for _, m := range []*gocv.Mat{&colour, &mask, &shade, &shadow} {
			gocv.Resize(*m, m, image.Pt(sw*fct, sh*fct), 0, 0, gocv.InterpolationLinear)
		}
	}
	// Rows of the (possibly enlarged) work Mats, which may be a few
	// pixels wider than the ROI.
	w2 := sw * fct
	if fct == 1 {
		w2 = w
	}

	fb, _ := f.DataPtrUint8()
	cb, _ := colour.DataPtrUint8()
	mb, _ := mask.DataPtrUint8()
	sb, _ := shade.DataPtrUint8()
	hb, _ := shadow.DataPtrUint8()
	light := s.gainAt(roi)
	fw := f.Cols()
	// Light from above the dealer's left: surfaces facing it are lit, the
	// far side falls off (an emboss of the blurred silhouette).
	ld := image.Pt(int(9*scale), int(6*scale))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			fi := ((roi.Min.Y+y)*fw + roi.Min.X + x) * 3
			// Shadow from the pixel up-left of here (the arm casts down-right).
			if sx, sy := x-shadowOff.X, y-shadowOff.Y; sx >= 0 && sy >= 0 {
				if sd := hb[sy*w2+sx]; sd > 0 {
					k := 1 - 0.5*float64(sd)/255
					for c := 0; c < 3; c++ {
						fb[fi+c] = uint8(float64(fb[fi+c]) * k)
					}
				}
			}
			a := int(mb[y*w2+x])
			if a == 0 {
				continue
			}
			// Shading from about 0.65 at the rim to 0.95 along the middle,
			// lighter on the side facing the lamps, times the room's light.
			k := 0.35 + 0.6*float64(sb[y*w2+x])/255
			if x >= ld.X && y >= ld.Y && x+ld.X < w && y+ld.Y < h {
				k += 0.5 * (float64(sb[(y+ld.Y)*w2+x+ld.X]) - float64(sb[(y-ld.Y)*w2+x-ld.X])) / 255
			}
			k *= light
			for c := 0; c < 3; c++ {
				v := float64(cb[(y*w2+x)*3+c]) * k
				fb[fi+c] = uint8((int(clamp8(v))*a + int(fb[fi+c])*(255-a) + 127) / 255)
			}
		}
	}
}

// softBlur is a Gaussian blur of sigma pixels. Wide blurs (an arm's
// shading at 4K needs sigma ≈ 16) run on a shrunken copy: the result is
// smooth anyway, and a full-size kernel that wide would cost more than
// the rest of the frame. src and dst may be the same Mat.
func softBlur(src gocv.Mat, dst *gocv.Mat, sigma float64) {
	k := func(sg float64) image.Point { n := 2*int(math.Ceil(3*sg)) + 1; return image.Pt(n, n) }
	f := int(sigma / 2)
	if f < 2 || src.Cols() < 4*f || src.Rows() < 4*f {
		gocv.GaussianBlur(src, dst, k(sigma), sigma, sigma, gocv.BorderReflect101)
		return
	}
	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(src, &small, image.Pt(src.Cols()/f, src.Rows()/f), 0, 0, gocv.InterpolationArea)
	sg := sigma / float64(f)
	gocv.GaussianBlur(small, &small, k(sg), sg, sg, gocv.BorderReflect101)
	gocv.Resize(small, dst, image.Pt(src.Cols(), src.Rows()), 0, 0, gocv.InterpolationLinear)
}

// gainAt is the mean light gain over an image region, as a factor.
func (s *Scene) gainAt(r image.Rectangle) float64 {
	g := s.gain.Region(r)
	defer g.Close()
	m := g.Mean()
	return (m.Val1 + m.Val2 + m.Val3) / 3 / 128
}

// smear blurs m along the motion vector (pixels) with a line kernel, as a
// hand moving during the exposure leaves. OpenCV runs the kernel densely
// (n² taps), so callers keep n small by working at a reduced scale.
func smear(m *gocv.Mat, mot Point) {
	l := math.Hypot(mot.X, mot.Y)
	if l < 1 {
		return
	}
	n := min(31, 2*int(l/2)+1)
	k := gocv.NewMatWithSize(n, n, gocv.MatTypeCV32F)
	defer k.Close()
	k.SetTo(gocv.NewScalar(0, 0, 0, 0))
	c := n / 2
	steps := n * 2
	wgt := float32(1) / float32(steps+1)
	for i := 0; i <= steps; i++ {
		t := float64(i)/float64(steps) - 0.5
		x := c + int(math.Round(t*mot.X*float64(n-1)/l))
		y := c + int(math.Round(t*mot.Y*float64(n-1)/l))
		k.SetFloatAt(y, x, k.GetFloatAt(y, x)+wgt)
	}
	gocv.Filter2D(*m, m, -1, k, image.Pt(-1, -1), 0, gocv.BorderReflect101)
}

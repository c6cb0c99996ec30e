package main

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"gocv.io/x/gocv"
)

// The restyle augmentation: the training decks repainted as designs that
// are not in them, so that the model reads the index's shape and not one
// printer's paper, inks and type. Applied to the face at its rendered
// resolution (about 4.8 px/mm), before it is shrunk to the camera's:
//
//   - index stroke weight: ink grown (bold) or shrunk (thin) by a min or
//     max filter of 2 or 3 px (about ±0.1–0.2 mm a side);
//   - index size and aspect: the face scaled about the corner that is
//     cut, ×0.87–1.13 overall and up to ±15% in width against height, so
//     the card's edges through that corner stay where they are; the wide
//     recipe (-wide) scales ×0.82–1.18, up to ±25% in aspect, and slants
//     the print by up to ±0.15 (x moves by that much of y), as italic
//     and condensed type do;
//   - red ink: hue from crimson to orange-red, saturation and brightness;
//   - black ink: lifted to dark grey or blue-black;
//   - paper: white, cream, grey, bluish or slightly dark.
//
// Each part is drawn on its own, so many faces get only some of them.

// style is one face's repaint.
type style struct {
	stroke        int     // <0: thinner ink by a max filter of -stroke px; >0: bolder by a min filter
	sx, sy        float64 // scale along the face's x and y about the cut corner
	shear         float64 // x moves by shear·y about the cut corner (wide recipe)
	redHue        float64 // hue shift of red ink, degrees (+ towards orange)
	redSat        float64 // saturation factor of red ink
	redVal        float64 // brightness factor of red ink
	ink           [3]float64
	paper         [3]float64 // BGR factors of the paper
	recolor, warp bool
}

// partP is the probability of each part of a style (stroke and ink a
// little less), once a face is restyled at all.
const partP = 0.5

// drawStyle draws a style: with probability p the face is restyled, and
// then each part is drawn with probability partP.
// big is true for decks whose index already fills most of the crop, which
// are not scaled up. wide draws the wide recipe's size, aspect and slant;
// without it the draws are the v2 recipe's, number for number.
func drawStyle(r *rand.Rand, p float64, big, wide bool) style {
	st := style{sx: 1, sy: 1, redSat: 1, redVal: 1, paper: [3]float64{1, 1, 1}}
	if p <= 0 || r.Float64() >= p {
		return st
	}
	p = partP
	if r.Float64() < p*0.7 {
		if r.Float64() < 0.5 {
			st.stroke = 2 + r.IntN(2)
		} else {
			st.stroke = -(2 + r.IntN(2))
		}
	}
	if r.Float64() < p {
		lo, hi, alo, ahi := 0.87, 1.13, 0.85, 1.15
		if wide {
			lo, hi, alo, ahi = 0.82, 1.18, 0.75, 1.25
		}
		s := math.Exp(uni(r, math.Log(lo), math.Log(hi)))
		a := math.Exp(uni(r, math.Log(alo), math.Log(ahi))) // width : height
		st.sx, st.sy = s*math.Sqrt(a), s/math.Sqrt(a)
		if wide && r.Float64() < 0.5 {
			st.shear = uni(r, -0.15, 0.15)
		}
		if big {
			st.sx, st.sy = math.Min(st.sx, 1), math.Min(st.sy, 1)
		}
		st.warp = true
	}
	if r.Float64() < p {
		st.recolor = true
		st.redHue = uni(r, -12, 18)
		st.redSat = uni(r, 0.55, 1.15)
		st.redVal = uni(r, 0.6, 1.1)
	}
	if r.Float64() < p*0.6 {
		st.recolor = true
		switch r.IntN(3) {
		case 0: // dark grey
			g := uni(r, 25, 80)
			st.ink = [3]float64{g, g, g}
		case 1: // blue-black
			st.ink = [3]float64{uni(r, 40, 110), uni(r, 15, 50), uni(r, 0, 30)}
		default: // brownish grey
			st.ink = [3]float64{uni(r, 15, 40), uni(r, 25, 55), uni(r, 35, 70)}
		}
	}
	if r.Float64() < p {
		st.recolor = true
		switch r.IntN(5) {
		case 0: // cream
			st.paper = [3]float64{uni(r, 0.78, 0.92), uni(r, 0.92, 0.98), 1}
		case 1: // grey
			g := uni(r, 0.78, 0.93)
			st.paper = [3]float64{g, g, g}
		case 2: // bluish
			st.paper = [3]float64{1, uni(r, 0.93, 0.99), uni(r, 0.85, 0.95)}
		case 3: // slightly dark, a little warm or cool
			g := uni(r, 0.65, 0.82)
			st.paper = [3]float64{g * uni(r, 0.95, 1.05), g, g * uni(r, 0.95, 1.05)}
		default: // off-white
			st.paper = [3]float64{uni(r, 0.9, 1), uni(r, 0.93, 1), uni(r, 0.93, 1)}
		}
	}
	return st
}

func (st style) none() bool { return st.stroke == 0 && !st.warp && !st.recolor }

// restyle writes face (BGRA, not modified) repainted by st into dst, with
// the scaling about face point origin (pixels). dst and tmp are scratch
// Mats.
func restyle(face gocv.Mat, st style, origin Vec, dst, tmp *gocv.Mat) error {
	// Transparent pixels turn white first, so that neither filter nor warp
	// pulls a dark fringe into the card's outline.
	face.CopyTo(tmp)
	d, err := tmp.DataPtrUint8()
	if err != nil {
		return err
	}
	for i := 0; i+3 < len(d); i += 4 {
		if d[i+3] == 0 {
			d[i], d[i+1], d[i+2] = 255, 255, 255
		}
	}
	if st.stroke != 0 {
		k := abs(st.stroke)
		kern := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(k, k))
		defer kern.Close()
		if st.stroke > 0 {
			gocv.Erode(*tmp, tmp, kern) // min filter: dark ink grows
		} else {
			gocv.Dilate(*tmp, tmp, kern) // max filter: dark ink shrinks
		}
	}
	if st.warp {
		m := gocv.NewMatWithSize(2, 3, gocv.MatTypeCV64F)
		defer m.Close()
		// x' = o + s(x − o) + shear·(y − o), centre convention.
		m.SetDoubleAt(0, 0, st.sx)
		m.SetDoubleAt(0, 1, st.shear)
		m.SetDoubleAt(0, 2, (origin.X-0.5)*(1-st.sx)-st.shear*(origin.Y-0.5))
		m.SetDoubleAt(1, 1, st.sy)
		m.SetDoubleAt(1, 2, (origin.Y-0.5)*(1-st.sy))
		gocv.WarpAffineWithParams(*tmp, dst, m, image.Pt(face.Cols(), face.Rows()),
			gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	} else {
		tmp.CopyTo(dst)
	}
	// The outline stays the card's: only the print changes.
	if err := copyAlpha(face, dst); err != nil {
		return err
	}
	if st.recolor {
		return recolor(dst, st)
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// copyAlpha sets the alpha of dst (BGRA) to that of src (BGRA, same size).
func copyAlpha(src gocv.Mat, dst *gocv.Mat) error {
	s, err := src.DataPtrUint8()
	if err != nil {
		return err
	}
	d, err := dst.DataPtrUint8()
	if err != nil {
		return err
	}
	for i := 3; i < len(d) && i < len(s); i += 4 {
		d[i] = s[i]
	}
	return nil
}

// recolor repaints the BGRA face in place: red ink in HSV, black ink
// lifted towards st.ink, then the paper tint multiplied in (paper is
// the face's reflectance, so dark ink hardly changes with it).
func recolor(m *gocv.Mat, st style) error {
	d, err := m.DataPtrUint8()
	if err != nil {
		return err
	}
	redOn := st.redHue != 0 || st.redSat != 1 || st.redVal != 1
	inkOn := st.ink != [3]float64{}
	for i := 0; i+3 < len(d); i += 4 {
		if d[i+3] == 0 {
			continue
		}
		b, g, rr := float64(d[i]), float64(d[i+1]), float64(d[i+2])
		if redOn && rr > g+12 && rr > b+12 {
			h, s, v := toHSV(b, g, rr)
			if h > 180 {
				h -= 360
			}
			if h > -50 && h < 50 {
				w := s // anti-aliased edges and pinkish pixels change less
				h += w * st.redHue
				s = math.Min(1, s*(1+w*(st.redSat-1)))
				v = math.Min(255, v*(1+w*(st.redVal-1)))
				b, g, rr = fromHSV(h, s, v)
			}
		}
		if inkOn {
			mx := math.Max(rr, math.Max(g, b))
			if w := 1 - mx/140; w > 0 {
				b += w * st.ink[0]
				g += w * st.ink[1]
				rr += w * st.ink[2]
			}
		}
		d[i] = clamp8(b * st.paper[0])
		d[i+1] = clamp8(g * st.paper[1])
		d[i+2] = clamp8(rr * st.paper[2])
	}
	return nil
}

// toHSV returns hue in degrees [0, 360), saturation 0..1 and value 0..255.
func toHSV(b, g, r float64) (h, s, v float64) {
	mx := math.Max(r, math.Max(g, b))
	mn := math.Min(r, math.Min(g, b))
	v = mx
	if mx <= 0 {
		return 0, 0, 0
	}
	c := mx - mn
	s = c / mx
	if c == 0 {
		return 0, s, v
	}
	switch mx {
	case r:
		h = 60 * math.Mod((g-b)/c, 6)
	case g:
		h = 60 * ((b-r)/c + 2)
	default:
		h = 60 * ((r-g)/c + 4)
	}
	if h < 0 {
		h += 360
	}
	return h, s, v
}

// fromHSV is the inverse of toHSV, returning b, g, r.
func fromHSV(h, s, v float64) (b, g, r float64) {
	h = math.Mod(h, 360)
	if h < 0 {
		h += 360
	}
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := v - c
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	return b + m, g + m, r + m
}

package cardface

import (
	"image"
	"math"
	"math/rand/v2"

	"golang.org/x/image/vector"
)

// pipSet is one design of the four suit symbols, drawn as outlines in a
// unit box (x and y in 0..1, y down) and rasterised at any size.
type pipSet struct {
	heartDip   float64 // how deep the notch between a heart's lobes is, 0..0.35
	heartTip   float64 // how far the lobes bulge out sideways, 0.9..1.15
	diamondIn  float64 // inward curve of a diamond's sides, 0..0.18
	stemWidth  float64 // spade and club stem at its foot, 0.25..0.55 of the width
	stemHeight float64 // stem height, 0.18..0.32 of the height
	clubLobe   float64 // radius of a club's three lobes, 0.24..0.3 of the width
	// clubPoint is how far a club's lobes run out to a point, leaf-shaped,
	// in lobe radii beyond the round (0: round lobes, as newPipSet draws).
	clubPoint float64
}

func newPipSet(r *rand.Rand) pipSet {
	return pipSet{
		heartDip:   uni(r, 0.05, 0.3),
		heartTip:   uni(r, 0.92, 1.12),
		diamondIn:  uni(r, 0, 0.16),
		stemWidth:  uni(r, 0.25, 0.55),
		stemHeight: uni(r, 0.18, 0.3),
		clubLobe:   uni(r, 0.24, 0.29),
	}
}

// pen draws an outline scaled from the unit box to w×h pixels.
type pen struct {
	z    *vector.Rasterizer
	w, h float32
}

// asp is the box's width over its height: a length along x, as a share
// of the height.
func (p pen) asp() float64 { return float64(p.w) / float64(p.h) }

func (p pen) move(x, y float64) { p.z.MoveTo(float32(x)*p.w, float32(y)*p.h) }
func (p pen) line(x, y float64) { p.z.LineTo(float32(x)*p.w, float32(y)*p.h) }
func (p pen) cube(ax, ay, bx, by, x, y float64) {
	p.z.CubeTo(float32(ax)*p.w, float32(ay)*p.h, float32(bx)*p.w, float32(by)*p.h, float32(x)*p.w, float32(y)*p.h)
}

// circle draws a circle clockwise (as every outline here runs, so that
// overlapping parts add up instead of cancelling).
func (p pen) circle(cx, cy, rad float64) {
	const k = 0.5523 // cubic Bézier handle length for a quarter circle
	ry := rad * float64(p.w) / float64(p.h)
	p.move(cx+rad, cy)
	p.cube(cx+rad, cy+k*ry, cx+k*rad, cy+ry, cx, cy+ry)
	p.cube(cx-k*rad, cy+ry, cx-rad, cy+k*ry, cx-rad, cy)
	p.cube(cx-rad, cy-k*ry, cx-k*rad, cy-ry, cx, cy-ry)
	p.cube(cx+k*rad, cy-ry, cx+rad, cy-k*ry, cx+rad, cy)
	p.z.ClosePath()
}

// draw rasterises the pip of suit s (an index into cards.Suits) at w×h
// pixels.
func (ps pipSet) draw(s, w, h int) *image.Alpha {
	z := vector.NewRasterizer(w, h)
	p := pen{z, float32(w), float32(h)}
	switch s {
	case 0: // spade: an upside-down heart on a stem
		body := 1 - ps.stemHeight*0.6
		ps.heart(p, 0, body, true)
		ps.stem(p, body*0.78)
	case 1:
		ps.heart(p, 0, 1, false)
	case 2:
		k := ps.diamondIn
		p.move(0.5, 0)
		p.cube(0.5+0.2, 0.5*0.4+k*0.1, 1-k*0.4, 0.5-0.2+k*0.1, 1, 0.5)
		p.cube(1-k*0.4, 0.5+0.2-k*0.1, 0.5+0.2, 1-0.5*0.4-k*0.1, 0.5, 1)
		p.cube(0.5-0.2, 1-0.5*0.4-k*0.1, k*0.4, 0.5+0.2-k*0.1, 0, 0.5)
		p.cube(k*0.4, 0.5-0.2+k*0.1, 0.5-0.2, 0.5*0.4+k*0.1, 0.5, 0)
		z.ClosePath()
	case 3: // club: three lobes on a stem
		if ps.clubPoint > 0 {
			ps.leafClub(p)
			break
		}
		rad := ps.clubLobe
		body := 1 - ps.stemHeight*0.7
		top := rad * float64(w) / float64(h)
		p.circle(0.5, top, rad)
		low := body - rad*float64(w)/float64(h)
		p.circle(rad, low, rad)
		p.circle(1-rad, low, rad)
		p.circle(0.5, (top+low)/2+0.04, rad*0.7)
		ps.stem(p, low)
	}
	m := image.NewAlpha(image.Rect(0, 0, w, h))
	z.Draw(m, m.Bounds(), image.Opaque, image.Point{})
	return m
}

// leafClub draws a club whose three lobes run out to a point, as leaves
// do, from the club's centre: the top one upwards, the side ones outwards
// and a little down, each tip on the box's edge, on a stem from the
// centre down.
func (ps pipSet) leafClub(p pen) {
	asp := p.asp()
	const down = 0.35 // the side lobes' tilt below level, radians
	side := pt{math.Cos(down), math.Sin(down)}
	// From the centre to a tip, in widths: the side tips reach the box's
	// sides, and a lobe's back lies on the centre.
	reach := 0.5 / side.x
	rad := reach / (2 + ps.clubPoint)
	c := pt{0.5, reach * asp}
	lobe := func(u pt) pt { return pt{c.x + u.x*rad, c.y + u.y*rad*asp} }
	for _, u := range []pt{{0, -1}, {-side.x, side.y}, side} {
		leaf(p, lobe(u), u, rad, ps.clubPoint)
	}
	p.circle(c.x, c.y, rad*0.6)
	ps.stem(p, c.y)
}

// pt is a point or direction in the unit box (x as a share of the width,
// y of the height).
type pt struct{ x, y float64 }

// leaf draws a lobe round at its back around c (radius rad of the width)
// and pointed k radii beyond the round in direction u, clockwise.
func leaf(p pen, c, u pt, rad, k float64) {
	const h = 0.5523 // cubic Bézier handle for a quarter circle
	asp := p.asp()
	at := func(a, b float64) (float64, float64) { // c + a·u + b·v, v = u turned clockwise
		return c.x + (a*u.x-b*u.y)*rad, c.y + (a*u.y+b*u.x)*rad*asp
	}
	tx, ty := at(1+k, 0)
	p.move(tx, ty)
	ax, ay := at(1+k*0.55, 0.35)
	bx, by := at(h, 1)
	x, y := at(0, 1)
	p.cube(ax, ay, bx, by, x, y)
	ax, ay = at(-h, 1)
	bx, by = at(-1, h)
	x, y = at(-1, 0)
	p.cube(ax, ay, bx, by, x, y)
	ax, ay = at(-1, -h)
	bx, by = at(-h, -1)
	x, y = at(0, -1)
	p.cube(ax, ay, bx, by, x, y)
	ax, ay = at(h, -1)
	bx, by = at(1+k*0.55, -0.35)
	p.cube(ax, ay, bx, by, tx, ty)
	p.z.ClosePath()
}

// heart draws a heart filling x 0..1 and y top..bottom; upside down, its
// point is at the top (a spade's body).
func (ps pipSet) heart(p pen, top, bottom float64, upsideDown bool) {
	y := func(v float64) float64 {
		if upsideDown {
			v = 1 - v
		}
		return top + v*(bottom-top)
	}
	d, t := ps.heartDip, ps.heartTip
	pts := [][6]float64{
		// from the notch, clockwise over the right lobe to the point,
		// then back up over the left lobe
		{0.5 + 0.1, d - 0.25, 1 * t, -0.05, 1 * t, 0.3},
		{1 * t, 0.55, 0.65, 0.75, 0.5, 1},
		{0.35, 0.75, 1 - t, 0.55, 1 - t, 0.3},
		{1 - t, -0.05, 0.5 - 0.1, d - 0.25, 0.5, d},
	}
	clamp := func(v float64) float64 { return math.Max(0, math.Min(1, v)) }
	if upsideDown {
		// Mirrored in y, the outline runs the other way round: walk it
		// backwards so that it stays clockwise.
		p.move(0.5, y(d))
		for i := len(pts) - 1; i >= 0; i-- {
			prev := [2]float64{0.5, d}
			if i > 0 {
				prev = [2]float64{pts[i-1][4], pts[i-1][5]}
			}
			c := pts[i]
			p.cube(clamp(c[2]), y(c[3]), clamp(c[0]), y(c[1]), prev[0], y(prev[1]))
		}
	} else {
		p.move(0.5, y(d))
		for _, c := range pts {
			p.cube(clamp(c[0]), y(c[1]), clamp(c[2]), y(c[3]), c[4], y(c[5]))
		}
	}
	p.z.ClosePath()
}

// stem draws a flared stem from y0 down to the bottom of the box.
func (ps pipSet) stem(p pen, y0 float64) {
	half := ps.stemWidth / 2
	p.move(0.5-0.04, y0)
	p.line(0.5+0.04, y0)
	p.cube(0.5+0.05, 0.8+0.1*(1-y0), 0.5+half*0.6, 0.97, 0.5+half, 1)
	p.line(0.5-half, 1)
	p.cube(0.5-half*0.6, 0.97, 0.5-0.05, 0.8+0.1*(1-y0), 0.5-0.04, y0)
	p.z.ClosePath()
}

func uni(r *rand.Rand, a, b float64) float64 { return a + (b-a)*r.Float64() }

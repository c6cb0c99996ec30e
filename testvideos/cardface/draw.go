package cardface

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"

	"bjmonitor/cards"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/vector"
)

// Draw renders card c in the style as a w×h image, transparent outside
// the card's rounded outline. w×h should keep the card's 63:88
// proportions; faces of 300×420 (about 4.8 px/mm) match the gnome decks'.
func Draw(st Style, c cards.Card, w, h int) (*image.NRGBA, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("cardface: invalid card %v", c)
	}
	if st.font == nil {
		return nil, fmt.Errorf("cardface: a Style must come from NewStyle")
	}
	if w < 16 || h < 16 || w > 4000 || h > 4000 {
		return nil, fmt.Errorf("cardface: face size %dx%d out of range 16..4000", w, h)
	}
	cv := &canvas{img: image.NewNRGBA(image.Rect(0, 0, w, h)), sx: float64(w) / cardW, sy: float64(h) / cardH}
	cv.paper(st)
	suit := slices.Index(cards.Suits[:], c.Suit)
	ink := st.ink[suit]
	if err := st.drawIndices(cv, c.Rank, suit, ink); err != nil {
		return nil, err
	}
	switch {
	case c.Rank == cards.Ace:
		b := centred(cardW/2, cardH/2, st.acePipH*st.pipW/st.pipH, st.acePipH)
		cv.stamp(st.pipMask(suit, cv.px(b)), b, ink, false)
	case c.Rank >= cards.Jack:
		if err := st.drawCourt(cv, c, suit, ink); err != nil {
			return nil, err
		}
	default:
		st.drawPips(cv, c.Rank, suit, ink)
	}
	return cv.img, nil
}

// canvas is a face being drawn, with its scale in px per mm.
type canvas struct {
	img    *image.NRGBA
	sx, sy float64
}

// px is the pixel rectangle of a box on the face.
func (cv *canvas) px(b box) image.Rectangle {
	x0, y0 := int(math.Round(b.x0*cv.sx)), int(math.Round(b.y0*cv.sy))
	x1, y1 := int(math.Round(b.x1*cv.sx)), int(math.Round(b.y1*cv.sy))
	return image.Rect(x0, y0, max(x1, x0+1), max(y1, y0+1))
}

// paper fills the card's rounded outline with the paper colour and draws
// its edge line, if the style has one.
func (cv *canvas) paper(st Style) {
	b := cv.img.Bounds()
	outline := image.NewAlpha(b)
	z := vector.NewRasterizer(b.Dx(), b.Dy())
	card := box{0, 0, cardW, cardH}
	roundedRect(z, card, st.radius, cv.sx, cv.sy, false)
	z.Draw(outline, b, image.Opaque, image.Point{})
	p := st.paper
	for i, a := range outline.Pix {
		cv.img.Pix[4*i], cv.img.Pix[4*i+1], cv.img.Pix[4*i+2], cv.img.Pix[4*i+3] = p.R, p.G, p.B, a
	}
	if st.edge.A == 0 {
		return
	}
	line := image.NewAlpha(b)
	z.Reset(b.Dx(), b.Dy())
	roundedRect(z, card, st.radius, cv.sx, cv.sy, false)
	t := 0.3 // mm
	if st.edgeW > 0 {
		t = st.edgeW
	}
	roundedRect(z, box{t, t, cardW - t, cardH - t}, max(st.radius-t, 0.1), cv.sx, cv.sy, true)
	z.Draw(line, b, image.Opaque, image.Point{})
	cv.blend(line, b.Min, st.edge, false)
}

// roundedRect adds a rounded rectangle to z, clockwise, or anticlockwise
// when reverse is set, so that it cuts a hole in one drawn clockwise.
func roundedRect(z *vector.Rasterizer, b box, rad, sx, sy float64, reverse bool) {
	const k = 0.5523
	type pt struct{ x, y float64 }
	c := []pt{{b.x0 + rad, b.y0}, {b.x1 - rad, b.y0}, {b.x1, b.y0 + rad}, {b.x1, b.y1 - rad},
		{b.x1 - rad, b.y1}, {b.x0 + rad, b.y1}, {b.x0, b.y1 - rad}, {b.x0, b.y0 + rad}}
	corner := []pt{{b.x1, b.y0}, {b.x1, b.y1}, {b.x0, b.y1}, {b.x0, b.y0}}
	if reverse {
		// Walked backwards, the sides meet at the corners in the order
		// bottom left, bottom right, top right, top left.
		slices.Reverse(c)
		corner = append(corner[2:3:3], corner[1], corner[0], corner[3])
	}
	f := func(p pt) (float32, float32) { return float32(p.x * sx), float32(p.y * sy) }
	z.MoveTo(f(c[0]))
	for i := 0; i < 4; i++ {
		e, q := c[2*i+1], c[(2*i+2)%8]
		z.LineTo(f(e))
		cn := corner[i]
		h1 := pt{e.x + k*(cn.x-e.x), e.y + k*(cn.y-e.y)}
		h2 := pt{q.x + k*(cn.x-q.x), q.y + k*(cn.y-q.y)}
		x1, y1 := f(h1)
		x2, y2 := f(h2)
		x3, y3 := f(q)
		z.CubeTo(x1, y1, x2, y2, x3, y3)
	}
	z.ClosePath()
}

// stamp scales mask m into box b of the face and blends colour col
// through it; with flip, into b turned 180° about the card's centre.
func (cv *canvas) stamp(m *image.Alpha, b box, col color.NRGBA, flip bool) {
	if flip {
		b = turned(b)
	}
	r := cv.px(b)
	scaled := m
	if r.Dx() != m.Rect.Dx() || r.Dy() != m.Rect.Dy() {
		scaled = image.NewAlpha(image.Rect(0, 0, r.Dx(), r.Dy()))
		xdraw.CatmullRom.Scale(scaled, scaled.Rect, m, m.Rect, xdraw.Src, nil)
	}
	cv.blend(scaled, r.Min, col, flip)
}

// blend lays colour col over the face through mask m, whose top-left
// pixel lands on at; with flip, m is read turned 180°. The face's alpha
// is kept: ink never reaches past the card's outline.
func (cv *canvas) blend(m *image.Alpha, at image.Point, col color.NRGBA, flip bool) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	bounds := cv.img.Bounds()
	for y := range h {
		for x := range w {
			p := image.Pt(at.X+x, at.Y+y)
			if !p.In(bounds) {
				continue
			}
			sx, sy := x, y
			if flip {
				sx, sy = w-1-x, h-1-y
			}
			a := int(m.Pix[sy*m.Stride+sx])
			if a == 0 {
				continue
			}
			i := cv.img.PixOffset(p.X, p.Y)
			d := cv.img.Pix[i : i+3 : i+3]
			d[0] = uint8((int(col.R)*a + int(d[0])*(255-a) + 127) / 255)
			d[1] = uint8((int(col.G)*a + int(d[1])*(255-a) + 127) / 255)
			d[2] = uint8((int(col.B)*a + int(d[2])*(255-a) + 127) / 255)
		}
	}
}

// pipMask is the suit's pip at the size of r.
func (st Style) pipMask(suit int, r image.Rectangle) *image.Alpha {
	if st.fontPips {
		if m, err := st.font.mask(string(suitRunes[suit]), 0); err == nil {
			return m
		}
	}
	return st.pips.draw(suit, r.Dx(), r.Dy())
}

// drawIndices prints the rank and pip in two corners, or in four.
func (st Style) drawIndices(cv *canvas, rk cards.Rank, suit int, ink color.NRGBA) error {
	m, err := st.font.mask(rankText(rk), st.grow)
	if err != nil {
		return err
	}
	rb, pb, err := st.indexBoxes(rk)
	if err != nil {
		return err
	}
	mirror := func(b box) box { return box{cardW - b.x1, b.y0, cardW - b.x0, b.y1} }
	pip := st.pipMask(suit, cv.px(pb))
	for _, second := range []bool{false, true} {
		boxes := [][2]box{{rb, pb}}
		if st.FourCorners {
			boxes = append(boxes, [2]box{mirror(rb), mirror(pb)})
		}
		for _, b := range boxes {
			if second && st.UprightSecond {
				// Where the turned index lies, its glyphs upright.
				cv.stamp(m, turned(b[0]), ink, false)
				cv.stamp(pip, turned(b[1]), ink, false)
				continue
			}
			cv.stamp(m, b[0], ink, second)
			cv.stamp(pip, b[1], ink, second)
		}
	}
	return nil
}

// turned is where box b lies on the card turned half round.
func turned(b box) box { return box{cardW - b.x1, cardH - b.y1, cardW - b.x0, cardH - b.y0} }

// pipLayouts are the usual places of a number card's pips in its body,
// as (column, row) in 0..1; the pips below the middle print upside down.
var pipLayouts = map[cards.Rank][][2]float64{
	cards.Two:   {{0.5, 0}, {0.5, 1}},
	cards.Three: {{0.5, 0}, {0.5, 0.5}, {0.5, 1}},
	cards.Four:  {{0, 0}, {1, 0}, {0, 1}, {1, 1}},
	cards.Five:  {{0, 0}, {1, 0}, {0.5, 0.5}, {0, 1}, {1, 1}},
	cards.Six:   {{0, 0}, {1, 0}, {0, 0.5}, {1, 0.5}, {0, 1}, {1, 1}},
	cards.Seven: {{0, 0}, {1, 0}, {0.5, 0.25}, {0, 0.5}, {1, 0.5}, {0, 1}, {1, 1}},
	cards.Eight: {{0, 0}, {1, 0}, {0.5, 0.25}, {0, 0.5}, {1, 0.5}, {0.5, 0.75}, {0, 1}, {1, 1}},
	cards.Nine: {{0, 0}, {1, 0}, {0, 1.0 / 3}, {1, 1.0 / 3}, {0.5, 0.5},
		{0, 2.0 / 3}, {1, 2.0 / 3}, {0, 1}, {1, 1}},
	cards.Ten: {{0, 0}, {1, 0}, {0.5, 1.0 / 6}, {0, 1.0 / 3}, {1, 1.0 / 3},
		{0, 2.0 / 3}, {1, 2.0 / 3}, {0.5, 5.0 / 6}, {0, 1}, {1, 1}},
}

// drawPips lays out a number card's pips in the body.
func (st Style) drawPips(cv *canvas, rk cards.Rank, suit int, ink color.NRGBA) {
	ph := st.bodyPipH
	pw := ph * st.pipW / st.pipH
	at := func(col, row float64) box {
		cx := st.body.x0 + pw/2 + col*(st.body.w()-pw)
		cy := st.body.y0 + ph/2 + row*(st.body.h()-ph)
		return centred(cx, cy, pw, ph)
	}
	var mask *image.Alpha
	for _, p := range pipLayouts[rk] {
		flip := p[1] > 0.5
		b := at(p[0], p[1])
		if flip {
			b = at(1-p[0], 1-p[1]) // stamp turns it back to (col, row), upside down
		}
		if mask == nil {
			mask = st.pipMask(suit, cv.px(b))
		}
		cv.stamp(mask, b, ink, flip)
	}
}

// drawCourt draws a court card's frame and abstract figure, its upper
// half turned about the centre as double-headed courts are, and the rank
// letter and pip by the figure's head.
func (st Style) drawCourt(cv *canvas, c cards.Card, suit int, ink color.NRGBA) error {
	r := rand.New(rand.NewPCG(st.courtSeed, uint64(c.Rank)*8+uint64(suit)))
	f := st.body
	palette := []color.NRGBA{ink, st.ink[0], {30, 60, 160, 255}, {220, 170, 40, 255}, {235, 195, 160, 255}, {190, 30, 40, 255}}
	half := box{f.x0, f.y0, f.x1, (f.y0 + f.y1) / 2}
	for range 6 + r.IntN(8) {
		w, h := uni(r, 0.15, 0.7)*half.w(), uni(r, 0.1, 0.6)*half.h()
		x, y := uni(r, half.x0, half.x1-w), uni(r, half.y0, half.y1-h)
		b := box{x, y, x + w, y + h}
		col := palette[r.IntN(len(palette))]
		pr := cv.px(b)
		m := shape(r.IntN(3), pr.Dx(), pr.Dy())
		cv.stamp(m, b, col, false)
		cv.stamp(m, b, col, true)
	}
	if r.Float64() < 0.6 {
		m, err := st.font.mask(rankText(c.Rank), st.grow)
		if err != nil {
			return err
		}
		h := uni(r, 0.35, 0.8) * st.capH
		w := h * float64(m.Rect.Dx()) / float64(m.Rect.Dy())
		b := box{f.x0 + 1.5, f.y0 + 1.5, f.x0 + 1.5 + w, f.y0 + 1.5 + h}
		cv.stamp(m, b, ink, false)
		cv.stamp(m, b, ink, true)
		pb := box{b.x0, b.y1 + 1, b.x0 + h*0.8, b.y1 + 1 + h*0.8}
		pip := st.pipMask(suit, cv.px(pb))
		cv.stamp(pip, pb, ink, false)
		cv.stamp(pip, pb, ink, true)
	}
	// The frame, over the figure's edges.
	frame := image.NewAlpha(cv.img.Bounds())
	z := vector.NewRasterizer(frame.Rect.Dx(), frame.Rect.Dy())
	t := uni(r, 0.25, 0.8)
	roundedRect(z, f, 1, cv.sx, cv.sy, false)
	roundedRect(z, box{f.x0 + t, f.y0 + t, f.x1 - t, f.y1 - t}, math.Max(0.2, 1-t), cv.sx, cv.sy, true)
	z.Draw(frame, frame.Rect, image.Opaque, image.Point{})
	cv.blend(frame, image.Point{}, palette[r.IntN(3)], false)
	return nil
}

// shape rasterises a filled rectangle, ellipse or triangle at w×h px.
func shape(kind, w, h int) *image.Alpha {
	z := vector.NewRasterizer(w, h)
	p := pen{z, float32(w), float32(h)}
	switch kind {
	case 0:
		p.move(0, 0)
		p.line(1, 0)
		p.line(1, 1)
		p.line(0, 1)
		z.ClosePath()
	case 1:
		const k = 0.5523
		p.move(1, 0.5)
		p.cube(1, 0.5+k/2, 0.5+k/2, 1, 0.5, 1)
		p.cube(0.5-k/2, 1, 0, 0.5+k/2, 0, 0.5)
		p.cube(0, 0.5-k/2, 0.5-k/2, 0, 0.5, 0)
		p.cube(0.5+k/2, 0, 1, 0.5-k/2, 1, 0.5)
		z.ClosePath()
	default:
		p.move(0.5, 0)
		p.line(1, 1)
		p.line(0, 1)
		z.ClosePath()
	}
	m := image.NewAlpha(image.Rect(0, 0, w, h))
	z.Draw(m, m.Rect, image.Opaque, image.Point{})
	return m
}

// centred is the w×h box centred on (cx, cy).
func centred(cx, cy, w, h float64) box { return box{cx - w/2, cy - h/2, cx + w/2, cy + h/2} }

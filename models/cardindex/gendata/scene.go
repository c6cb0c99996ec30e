package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardface"
	"bjmonitor/vision/classify"

	"gocv.io/x/gocv"
)

// Vec is a point in mm or pixels; the same as classify.Vec, local so that
// literals can stay short.
type Vec struct{ X, Y float64 }

func (v Vec) Add(w Vec) Vec       { return Vec{v.X + w.X, v.Y + w.Y} }
func (v Vec) Scale(k float64) Vec { return Vec{k * v.X, k * v.Y} }

// Card size in mm.
const (
	cardW = 63.0
	cardH = 88.0
)

// affine maps (x, y) to (a[0]x + a[1]y + a[2], a[3]x + a[4]y + a[5]).
type affine [6]float64

func (a affine) apply(v Vec) Vec {
	return Vec{X: a[0]*v.X + a[1]*v.Y + a[2], Y: a[3]*v.X + a[4]*v.Y + a[5]}
}

// then returns the map "a, then b".
func (a affine) then(b affine) affine {
	return affine{
		b[0]*a[0] + b[1]*a[3], b[0]*a[1] + b[1]*a[4], b[0]*a[2] + b[1]*a[5] + b[2],
		b[3]*a[0] + b[4]*a[3], b[3]*a[1] + b[4]*a[4], b[3]*a[2] + b[4]*a[5] + b[5],
	}
}

// rigid is the map q → t + R(θ)q.
func rigid(t Vec, theta float64) affine {
	c, s := math.Cos(theta), math.Sin(theta)
	return affine{c, -s, t.X, s, c, t.Y}
}

// corner is a card corner as a frame on the face, in face mm: the crop's
// q-space point (u, v) is face point O + u·U + v·V.
type corner struct{ O, U, V Vec }

var (
	cornerTL = corner{Vec{0, 0}, Vec{1, 0}, Vec{0, 1}}
	cornerBR = corner{Vec{cardW, cardH}, Vec{-1, 0}, Vec{0, -1}}
	// Right-handed frames at the two corners without an index, as a
	// corner finder that keeps frames right-handed would cut them.
	cornerTR = corner{Vec{cardW, 0}, Vec{0, 1}, Vec{-1, 0}}
	cornerBL = corner{Vec{0, cardH}, Vec{0, -1}, Vec{1, 0}}
	// The same corners with the short edge as U: mirrored frames.
	cornerTRm = corner{Vec{cardW, 0}, Vec{-1, 0}, Vec{0, 1}}
	cornerBLm = corner{Vec{0, cardH}, Vec{1, 0}, Vec{0, -1}}
)

// faceToQ maps face mm to q-space (the crop's card-local mm).
func (c corner) faceToQ() affine {
	// q = (U·(m−O), V·(m−O)); U and V are orthonormal.
	return affine{c.U.X, c.U.Y, -(c.U.X*c.O.X + c.U.Y*c.O.Y), c.V.X, c.V.Y, -(c.V.X*c.O.X + c.V.Y*c.O.Y)}
}

// The canvas shows q-space [-8, 30]×[-8, 46] mm: the 20×36 mm crop plus
// room for the corner error (±1.5 mm, ±5°) and the perspective.
var qMin, qMax = Vec{-8, -8}, Vec{30, 46}

type sample struct {
	crop    []byte
	class   int
	deck    string
	pxPerMM float64
}

// scene holds one worker's scratch Mats.
type scene struct {
	g       *generator
	cropper *classify.Cropper
	small   gocv.Mat // card image at the camera's resolution, BGRA
	layer   gocv.Mat // a card warped onto the canvas, BGRA
	tmp     gocv.Mat
	crop    gocv.Mat
	m       gocv.Mat // 2×3 or 3×3 float64 transform
	styled  gocv.Mat // the main face, restyled (restyle.go)
	stmp    gocv.Mat
	restyle float64 // probability that a face is restyled; 0 keeps the first recipe's draws
	wide    bool    // the wide restyle recipe (drawStyle)
	// proc is the share of procedural designs, drawn from styles; 0
	// keeps the earlier recipes' draws.
	proc      float64
	styles    []cardface.Style
	procMain  gocv.Mat // the main card's face, when procedural
	procOther gocv.Mat // another card's face, when procedural
	// camfx is the probability of each of camfx's faults (camfx.go); 0
	// keeps the earlier recipes' draws.
	camfx float64
	// cover is the probability that the next card lies over part of the
	// main card's index (coverPlace); 0 keeps the earlier recipes' draws.
	cover float64
}

func newScene(g *generator, rc recipe, sts []cardface.Style) *scene {
	return &scene{g: g, cropper: classify.NewCropper(), small: gocv.NewMat(), layer: gocv.NewMat(),
		tmp: gocv.NewMat(), crop: gocv.NewMat(), m: gocv.NewMat(), styled: gocv.NewMat(), stmp: gocv.NewMat(),
		restyle: rc.restyle, wide: rc.wide, proc: rc.proc, styles: sts, procMain: gocv.NewMat(), procOther: gocv.NewMat(), camfx: rc.camfx, cover: rc.cover}
}

func (s *scene) Close() {
	s.cropper.Close()
	for _, m := range []gocv.Mat{s.small, s.layer, s.tmp, s.crop, s.m, s.styled, s.stmp, s.procMain, s.procOther} {
		m.Close()
	}
}

func uni(r *rand.Rand, a, b float64) float64 { return a + (b-a)*r.Float64() }

// sample draws one crop. Cards are drawn uniformly; none is about 10% and
// back 5% of the crops.
func (s *scene) sample(r *rand.Rand, decks []string) (sample, error) {
	px, qToCanvas, cw, ch := view(r, s.proc > 0)
	canvas := feltCanvas(r, cw, ch)
	defer canvas.Close()
	if r.Float64() < 0.5 {
		drawLayoutLine(r, &canvas, px)
	}
	out := sample{pxPerMM: px}
	m, err := s.mainCard(r, decks, &out, &canvas, qToCanvas, px)
	if err != nil {
		return out, err
	}
	if err := s.lay(r, m, out.class, &canvas, qToCanvas, px); err != nil {
		return out, err
	}
	// The camera: perspective, blur, light, noise, compression.
	h := s.perspective(r, &canvas)
	blurAndLight(r, &canvas, px, s.restyle > 0)
	if s.proc > 0 && r.Float64() < 0.15 {
		glare(r, &canvas, px)
	}
	if s.camfx > 0 {
		stillFaults(r, &canvas, qToCanvas, px, s.camfx)
	}
	if err := compress(r, &canvas); err != nil {
		return out, err
	}
	out.crop, err = s.cut(r, canvas, h, qToCanvas)
	return out, err
}

// view draws the camera's resolution and the card's angle in the image,
// and returns them as the canvas's size and the map from q-space to its
// pixels.
func view(r *rand.Rand, proc bool) (px float64, qToCanvas affine, cw, ch int) {
	// Resolution: log-uniform over 1.5..5 px/mm (1.2 with -proc), with
	// extra weight at the 1080p end where reading is hardest.
	lo := 1.5
	if proc {
		lo = 1.2
	}
	px = math.Exp(uni(r, math.Log(lo), math.Log(5)))
	if r.Float64() < 0.3 {
		px = uni(r, lo, 2.2)
	}
	phi := uni(r, 0, 2*math.Pi) // the card's angle in the image
	hw, hh := (qMax.X-qMin.X)/2, (qMax.Y-qMin.Y)/2
	cw = int(math.Ceil(2 * px * (math.Abs(math.Cos(phi))*hw + math.Abs(math.Sin(phi))*hh)))
	ch = int(math.Ceil(2 * px * (math.Abs(math.Sin(phi))*hw + math.Abs(math.Cos(phi))*hh)))
	qc := Vec{X: (qMin.X + qMax.X) / 2, Y: (qMin.Y + qMax.Y) / 2}
	// q → canvas pixels (centre convention).
	qToCanvas = affine{1, 0, -qc.X, 0, 1, -qc.Y}.
		then(affine{px, 0, 0, 0, px, 0}).
		then(rigid(Vec{X: float64(cw)/2 - 0.5, Y: float64(ch)/2 - 0.5}, phi))
	return px, qToCanvas, cw, ch
}

// drawn is the card the crop is cut from: its face (none for bare felt),
// the corner cut, and how far its index reaches from that corner.
type drawn struct {
	face   gocv.Mat // owned by the scene or the Art
	corner corner
	ext    Vec
}

// design draws the deck of the crop's card: one of decks, or with -proc
// a procedural style; and how far its index reaches.
func (s *scene) design(r *rand.Rand, decks []string) (deck string, ext Vec, st *cardface.Style) {
	deck = decks[r.IntN(len(decks))]
	ext = extentOf(deck)
	if s.proc > 0 && r.Float64() < s.proc {
		st = &s.styles[r.IntN(len(s.styles))]
		deck, ext = procDeck, Vec{X: st.Extent.X, Y: st.Extent.Y}
	}
	return deck, ext, st
}

// mainCard draws what the crop shows, and sets out's class and deck: an
// index corner of a face (85%), a back (5%), or none (10%): a face's
// corner without an index, the middle of a face, chips or bare felt,
// drawn on the canvas here. A face may then be restyled.
func (s *scene) mainCard(r *rand.Rand, decks []string, out *sample, canvas *gocv.Mat, qToCanvas affine, px float64) (drawn, error) {
	deck, ext, st := s.design(r, decks)
	face := func(c cards.Card) (gocv.Mat, error) {
		if st != nil {
			err := procFace(*st, c, &s.procMain)
			return s.procMain, err
		}
		return s.g.art.Face(deck, c)
	}
	m := drawn{ext: ext}
	var err error
	switch u := r.Float64(); {
	case u < 0.85:
		c := cards.Deck()[r.IntN(52)]
		out.class, out.deck = slicesIndex(c), deck
		if m.face, err = face(c); err != nil {
			return m, err
		}
		m.corner = indexCorner(r, st, c)
	case u < 0.90:
		out.class = classBack
		if m.face, err = s.g.backs[r.IntN(len(s.g.backs))].Back(); err != nil {
			return m, err
		}
		m.corner = []corner{cornerTL, cornerBR, cornerTR, cornerBL}[r.IntN(4)]
		m.ext = Vec{X: 8, Y: 8}
	default:
		out.class = classNone
		m.ext = Vec{X: 8, Y: 8}
		switch v := r.Float64(); {
		case v < 0.45: // a face's corner without an index
			c := cards.Deck()[r.IntN(52)]
			if m.face, err = face(c); err != nil {
				return m, err
			}
			out.deck = deck
			m.corner = []corner{cornerTR, cornerBL, cornerTRm, cornerBLm}[r.IntN(4)]
			if st != nil && st.FourCorners {
				// A mirrored frame would show the index printed there,
				// and a mirrored A♥ is an A♥.
				m.corner = []corner{cornerTR, cornerBL}[r.IntN(2)]
			}
		case v < 0.65: // the middle of a face: pips or court art
			c := cards.Deck()[r.IntN(52)]
			if m.face, err = face(c); err != nil {
				return m, err
			}
			out.deck = deck
			m.corner = corner{Vec{uni(r, 14, 30), uni(r, 18, 40)}, Vec{1, 0}, Vec{0, 1}}
		case v < 0.85: // felt with chips
			for range 1 + r.IntN(3) {
				drawChip(r, canvas, qToCanvas.apply(Vec{uni(r, -15, 35), uni(r, -15, 50)}), px)
			}
		default: // bare felt (with a layout line half the time)
			drawLayoutLine(r, canvas, px)
		}
	}
	return m, s.restyled(r, &m, out)
}

// restyled repaints the main face as another design (restyle.go), its
// index scaled about the corner that is cut.
func (s *scene) restyled(r *rand.Rand, m *drawn, out *sample) error {
	if s.restyle <= 0 || out.deck == "" || m.face.Ptr() == nil {
		return nil
	}
	st := drawStyle(r, s.restyle, m.ext.Y >= 30, s.wide)
	if st.none() {
		return nil
	}
	fx, fy := float64(m.face.Cols())/cardW, float64(m.face.Rows())/cardH
	o := Vec{X: m.corner.O.X * fx, Y: m.corner.O.Y * fy}
	if err := restyle(m.face, st, o, &s.styled, &s.stmp); err != nil {
		return err
	}
	m.face = s.styled
	if out.class != classNone {
		m.ext = Vec{X: m.ext.X * st.sx, Y: m.ext.Y * st.sy}
	}
	return nil
}

// lay puts the hand on the canvas: the card dealt before the main one,
// under it; the main card; the next card, clear of its index or, with
// probability cover, over part of it; and now and then a chip at the
// crop's far end.
func (s *scene) lay(r *rand.Rand, m drawn, class int, canvas *gocv.Mat, qToCanvas affine, px float64) error {
	if m.face.Ptr() != nil && r.Float64() < 0.35 {
		if err := s.drawRandomCard(r, canvas, rigid(Vec{-uni(r, 8, 30), uni(r, -15, 10)}, uni(r, -0.15, 0.15)), qToCanvas, px); err != nil {
			return err
		}
	}
	if m.face.Ptr() != nil {
		if err := s.drawCard(canvas, m.face, m.corner.faceToQ(), qToCanvas, px); err != nil {
			return err
		}
	}
	if s.cover > 0 && class < classNone && r.Float64() < s.cover {
		if err := s.drawRandomCard(r, canvas, coverPlace(r, m.ext), qToCanvas, px); err != nil {
			return err
		}
	} else if r.Float64() < 0.5 {
		if place, ok := nextCardPlace(r, m.ext); ok {
			if err := s.drawRandomCard(r, canvas, place, qToCanvas, px); err != nil {
				return err
			}
		}
	}
	if class != classNone && r.Float64() < 0.1 {
		// A chip at the far end of the crop, as when a stack stands by the hand.
		drawChip(r, canvas, qToCanvas.apply(Vec{uni(r, 22, 40), uni(r, 30, 60)}), px)
	}
	return nil
}

// cut cuts the crop where the corner finder would place it: the true
// frame through the perspective h, then off by up to ±1.5 mm, ±5° and
// ±4% in scale.
func (s *scene) cut(r *rand.Rand, canvas gocv.Mat, h func(Vec) Vec, qToCanvas affine) ([]byte, error) {
	o := h(qToCanvas.apply(Vec{0, 0}))
	fu := h(qToCanvas.apply(Vec{5, 0}))
	fv := h(qToCanvas.apply(Vec{0, 5}))
	U := Vec{X: (fu.X - o.X) / 5, Y: (fu.Y - o.Y) / 5}
	V := Vec{X: (fv.X - o.X) / 5, Y: (fv.Y - o.Y) / 5}
	o = o.Add(U.Scale(uni(r, -1.5, 1.5))).Add(V.Scale(uni(r, -1.5, 1.5)))
	rot := rigid(Vec{}, uni(r, -5, 5)*math.Pi/180)
	k := uni(r, 0.96, 1.04)
	U, V = rot.apply(U).Scale(k), rot.apply(V).Scale(k)
	if err := s.cropper.Cut(canvas, classify.Frame{Origin: classify.Vec(o), U: classify.Vec(U), V: classify.Vec(V)}, &s.crop); err != nil {
		return nil, err
	}
	crop := s.crop.ToBytes()
	if len(crop) != classify.CropCols*classify.CropRows*3 {
		return nil, fmt.Errorf("crop of %d bytes", len(crop))
	}
	return crop, nil
}

func slicesIndex(c cards.Card) int {
	for i, d := range cards.Deck() {
		if d == c {
			return i
		}
	}
	return -1
}

// nextCardPlace puts the next card of a fanned hand (its top-left corner
// and angle, in q-space) so that it covers part of the crop beyond the
// index extent ext. It gives up after a few tries.
func nextCardPlace(r *rand.Rand, ext Vec) (affine, bool) {
	for range 8 {
		var t Vec
		if r.Float64() < 0.6 { // to the right
			t = Vec{uni(r, ext.X+0.5, classify.CropWidthMM+2), uni(r, -25, 20)}
		} else { // below
			t = Vec{uni(r, -20, 12), uni(r, ext.Y+0.5, classify.CropHeightMM+2)}
		}
		place := rigid(t, uni(r, -0.2, 0.2))
		covers := false
		for _, p := range []Vec{{-1, -1}, {ext.X, -1}, {-1, ext.Y}, {ext.X, ext.Y}, {ext.X, ext.Y / 2}, {ext.X / 2, ext.Y}} {
			covers = covers || underCard(place, p)
		}
		if !covers {
			return place, true
		}
	}
	return affine{}, false
}

// underCard reports whether q-space point p lies under a card laid at
// place (a rigid map of its face mm, its top-left corner at the origin).
func underCard(place affine, p Vec) bool {
	inv := rigid(Vec{}, -math.Atan2(place[3], place[0]))
	m := inv.apply(Vec{p.X - place[2], p.Y - place[5]})
	return m.X >= 0 && m.X <= cardW && m.Y >= 0 && m.Y <= cardH
}

// coverPlace puts the next card of a tightly fanned hand over part of the
// index whose extent is ext: its top edge across the pip, below the
// rank's top third, or its left edge across the index's outer half. The
// crop keeps the main card's label: where the pip is hidden, the same
// picture is labelled with either suit of its colour, and a model learns
// to leave the suit open there, as a rank half hidden leaves the rank.
func coverPlace(r *rand.Rand, ext Vec) affine {
	theta := uni(r, -0.08, 0.08)
	if r.Float64() < 0.6 {
		return rigid(Vec{uni(r, -10, ext.X/2-2), uni(r, ext.Y*0.4, ext.Y-3)}, theta)
	}
	return rigid(Vec{uni(r, ext.X*0.5, ext.X-4), uni(r, -12, 0)}, theta)
}

// drawRandomCard draws a random face of a training deck (or a back) with
// its face mm mapped to q-space by place.
func (s *scene) drawRandomCard(r *rand.Rand, canvas *gocv.Mat, place, qToCanvas affine, px float64) error {
	var f gocv.Mat
	var err error
	if r.Float64() < 0.1 {
		f, err = s.g.backs[r.IntN(len(s.g.backs))].Back()
	} else if s.proc > 0 && r.Float64() < s.proc {
		err = procFace(s.g.trainStyles[r.IntN(len(s.g.trainStyles))], cards.Deck()[r.IntN(52)], &s.procOther)
		f = s.procOther
	} else {
		f, err = s.g.art.Face(s.g.train[r.IntN(len(s.g.train))], cards.Deck()[r.IntN(52)])
	}
	if err != nil {
		return err
	}
	return s.drawCard(canvas, f, place, qToCanvas, px)
}

// drawCard shrinks the BGRA face to the camera's resolution (as the lens
// and sensor do, by area) and blends it onto the canvas, with faceToQ
// taking face mm to q-space.
func (s *scene) drawCard(canvas *gocv.Mat, face gocv.Mat, faceToQ, qToCanvas affine, px float64) error {
	w, h := int(math.Round(cardW*px)), int(math.Round(cardH*px))
	gocv.Resize(face, &s.small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	sx, sy := float64(w)/cardW, float64(h)/cardH
	pxToFace := affine{1 / sx, 0, 0.5 / sx, 0, 1 / sy, 0.5 / sy}
	a := pxToFace.then(faceToQ).then(qToCanvas)
	s.setAffine(a)
	gocv.WarpAffineWithParams(s.small, &s.layer, s.m, image.Pt(canvas.Cols(), canvas.Rows()),
		gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	return blend(canvas, s.layer)
}

func (s *scene) setAffine(a affine) {
	s.m.Close()
	s.m = gocv.NewMatWithSize(2, 3, gocv.MatTypeCV64F)
	for i, v := range a {
		s.m.SetDoubleAt(i/3, i%3, v)
	}
}

// blend draws the BGRA layer over the BGR canvas by its alpha.
func blend(canvas *gocv.Mat, layer gocv.Mat) error {
	d, err := canvas.DataPtrUint8()
	if err != nil {
		return err
	}
	l, err := layer.DataPtrUint8()
	if err != nil {
		return err
	}
	if len(l)/4 != len(d)/3 {
		return fmt.Errorf("layer %d px, canvas %d px", len(l)/4, len(d)/3)
	}
	for i, j := 0, 0; j < len(d); i, j = i+4, j+3 {
		al := int(l[i+3])
		if al == 0 {
			continue
		}
		for c := 0; c < 3; c++ {
			d[j+c] = uint8((int(l[i+c])*al + int(d[j+c])*(255-al) + 127) / 255)
		}
	}
	return nil
}

// feltCanvas returns a new BGR canvas of felt: a green, blue, red or
// grey cloth with a faint weave. The caller closes it.
func feltCanvas(r *rand.Rand, w, h int) gocv.Mat {
	bases := [][3]float64{{40, 110, 30}, {50, 90, 20}, {110, 60, 20}, {40, 40, 120}, {60, 60, 60}, {30, 70, 20}, {90, 120, 60}}
	b := bases[r.IntN(len(bases))]
	m := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
	d, _ := m.DataPtrUint8()
	var jit [3]float64
	for c := range jit {
		jit[c] = b[c] * uni(r, 0.7, 1.3)
	}
	amp := uni(r, 0, 10)
	for i := 0; i < len(d); i += 3 {
		n := r.NormFloat64() * amp
		for c := 0; c < 3; c++ {
			d[i+c] = clamp8(jit[c] + n)
		}
	}
	return m
}

// drawLayoutLine prints a line or arc of the table layout (bet boxes,
// the insurance arc) somewhere on the canvas.
func drawLayoutLine(r *rand.Rand, canvas *gocv.Mat, px float64) {
	cols := []color.RGBA{{230, 230, 220, 0}, {220, 190, 80, 0}, {240, 220, 60, 0}, {200, 200, 200, 0}}
	c := cols[r.IntN(len(cols))]
	th := max(1, int(math.Round(uni(r, 0.8, 3)*px)))
	w, h := canvas.Cols(), canvas.Rows()
	p := image.Pt(r.IntN(w), r.IntN(h))
	if r.Float64() < 0.5 {
		q := image.Pt(r.IntN(w), r.IntN(h))
		gocv.Line(canvas, p, q, c, th)
		return
	}
	rad := int(uni(r, 30, 300) * px)
	gocv.Circle(canvas, p, rad, c, th)
}

// drawChip draws a casino chip (39 mm, coloured with white edge spots)
// centred at p.
func drawChip(r *rand.Rand, canvas *gocv.Mat, p Vec, px float64) {
	cols := []color.RGBA{{200, 30, 30, 0}, {30, 140, 40, 0}, {20, 20, 20, 0}, {40, 60, 200, 0}, {120, 40, 150, 0}, {240, 240, 240, 0}, {230, 160, 30, 0}}
	c := cols[r.IntN(len(cols))]
	ctr := image.Pt(int(p.X), int(p.Y))
	rad := int(19.5 * px)
	gocv.Circle(canvas, ctr, rad, c, -1)
	for k := range 6 {
		a := float64(k)*math.Pi/3 + uni(r, 0, 1)
		q := image.Pt(ctr.X+int(0.85*float64(rad)*math.Cos(a)), ctr.Y+int(0.85*float64(rad)*math.Sin(a)))
		gocv.Circle(canvas, q, max(1, rad/6), color.RGBA{245, 245, 245, 0}, -1)
	}
	gocv.Circle(canvas, ctr, rad*6/10, color.RGBA{235, 235, 225, 0}, max(1, rad/15))
}

// perspective warps the canvas by a mild homography (the camera up to 20°
// off vertical leaves a little after rectification) and returns the map
// of canvas points.
func (s *scene) perspective(r *rand.Rand, canvas *gocv.Mat) func(Vec) Vec {
	if r.Float64() < 0.4 {
		return func(v Vec) Vec { return v }
	}
	w, h := float64(canvas.Cols()), float64(canvas.Rows())
	j := 0.04 * math.Max(w, h)
	src := []Vec{{0, 0}, {w, 0}, {w, h}, {0, h}}
	dst := make([]Vec, 4)
	for i, p := range src {
		dst[i] = Vec{p.X + uni(r, -j, j), p.Y + uni(r, -j, j)}
	}
	H := homography(src, dst)
	s.m.Close()
	s.m = gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	for i, v := range H {
		s.m.SetDoubleAt(i/3, i%3, v)
	}
	gocv.WarpPerspectiveWithParams(*canvas, &s.tmp, s.m, image.Pt(canvas.Cols(), canvas.Rows()),
		gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	s.tmp.CopyTo(canvas)
	return func(v Vec) Vec {
		z := H[6]*v.X + H[7]*v.Y + H[8]
		return Vec{X: (H[0]*v.X + H[1]*v.Y + H[2]) / z, Y: (H[3]*v.X + H[4]*v.Y + H[5]) / z}
	}
}

// homography solves the 8×8 system for the map of four points.
func homography(src, dst []Vec) [9]float64 {
	var a [8][9]float64
	for i := range 4 {
		x, y, u, v := src[i].X, src[i].Y, dst[i].X, dst[i].Y
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	for c := range 8 {
		p := c
		for i := c + 1; i < 8; i++ {
			if math.Abs(a[i][c]) > math.Abs(a[p][c]) {
				p = i
			}
		}
		a[c], a[p] = a[p], a[c]
		for i := range 8 {
			if i != c {
				f := a[i][c] / a[c][c]
				for k := c; k < 9; k++ {
					a[i][k] -= f * a[c][k]
				}
			}
		}
	}
	var h [9]float64
	for i := range 8 {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h
}

// blurAndLight defocuses the canvas a little, then applies uneven light
// (a gradient across it), a colour cast and sensor noise.
//
// With more (the restyle recipe) the blur reaches σ 1.3 px (1.1 px below
// 2.2 px/mm), and a fifth of the canvases are sharpened by an unsharp
// mask, as cameras do, before the light.
func blurAndLight(r *rand.Rand, canvas *gocv.Mat, px float64, more bool) {
	if r.Float64() < 0.6 {
		sigma := uni(r, 0.2, 0.9)
		if more && r.Float64() < 0.3 {
			sigma = uni(r, 0.9, 1.3)
			if px < 2.2 {
				sigma = uni(r, 0.9, 1.1)
			}
		}
		k := 2*int(math.Ceil(3*sigma)) + 1
		gocv.GaussianBlur(*canvas, canvas, image.Pt(k, k), sigma, sigma, gocv.BorderReplicate)
	}
	if more && r.Float64() < 0.2 {
		sigma, amount := uni(r, 0.7, 1.5), uni(r, 0.3, 1.2)
		k := 2*int(math.Ceil(3*sigma)) + 1
		bl := gocv.NewMat()
		gocv.GaussianBlur(*canvas, &bl, image.Pt(k, k), sigma, sigma, gocv.BorderReplicate)
		gocv.AddWeighted(*canvas, 1+amount, bl, -amount, 0, canvas)
		bl.Close()
	}
	d, err := canvas.DataPtrUint8()
	if err != nil {
		return
	}
	w, h := canvas.Cols(), canvas.Rows()
	g0 := uni(r, 0.55, 1.25)
	gx, gy := uni(r, -0.4, 0.4)/float64(w), uni(r, -0.4, 0.4)/float64(h)
	cast := [3]float64{uni(r, 0.85, 1.15), uni(r, 0.9, 1.1), uni(r, 0.85, 1.15)}
	noise := uni(r, 0, 8)
	for y := range h {
		for x := range w {
			g := g0 * (1 + gx*float64(x-w/2) + gy*float64(y-h/2))
			i := (y*w + x) * 3
			// Mostly luma noise, with a little per channel, as sensors give.
			n := r.NormFloat64() * noise
			for c := 0; c < 3; c++ {
				d[i+c] = clamp8(float64(d[i+c])*g*cast[c] + n + float64(r.Uint32()&7) - 3.5)
			}
		}
	}
}

// compress round-trips the canvas through JPEG at a random quality, for
// the block artefacts of H.264 at the bit rates of surveillance video.
func compress(r *rand.Rand, canvas *gocv.Mat) error {
	if r.Float64() < 0.3 {
		return nil
	}
	q := 20 + r.IntN(71)
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, *canvas, []int{gocv.IMWriteJpegQuality, q})
	if err != nil {
		return err
	}
	defer buf.Close()
	m, err := gocv.IMDecode(buf.GetBytes(), gocv.IMReadColor)
	if err != nil {
		return err
	}
	defer m.Close()
	if m.Empty() || m.Rows() != canvas.Rows() || m.Cols() != canvas.Cols() {
		return fmt.Errorf("JPEG round trip lost the image")
	}
	m.CopyTo(canvas)
	return nil
}

func clamp8(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}

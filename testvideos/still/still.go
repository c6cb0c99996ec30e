// Package still renders still pictures of dealt blackjack tables, as a
// phone or a CCTV camera takes them: no reference marks, a random scale
// and tilt, and the camera's faults (package camfx). Each picture comes
// with the truth: every card on the felt, and its corners in the picture.
//
//	art, _ := cardart.New(cardart.Options{})
//	defer art.Close()
//	st, err := still.Render(still.Options{Art: art, Deck: "dondorf", Seed: 7})
//	if err != nil { ... }
//	defer st.Image.Close() // the caller owns the picture
//	for _, c := range st.Cards { ... c.Card, c.FaceDown, c.Quad ... }
//
// A picture depends only on its Options: the same seed renders the same
// bytes.
package still

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"

	"gocv.io/x/gocv"

	"bjmonitor/cards"
	"bjmonitor/testvideos/camfx"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/clip"
	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
)

// Options describe one still.
type Options struct {
	// Art supplies the card faces; the caller owns it.
	Art *cardart.Art
	// Deck is the card design (a cardart deck, or kde:<name>).
	Deck string
	Seed uint64
	// Width and Height of the picture; 1920×1080 when zero.
	Width, Height int
	// MinPxPerMM and MaxPxPerMM bound the scale at the picture's centre,
	// drawn log-uniformly; 1.2 and 2.5 when zero.
	MinPxPerMM, MaxPxPerMM float64
	// MaxTiltDeg bounds the camera's tilt off vertical, drawn uniformly
	// from 0; 30 when zero.
	MaxTiltDeg float64
	// Clean leaves out the camera's faults (camfx), for tests of the
	// geometry alone.
	Clean bool
}

// Card is one card on the felt, as the picture shows it.
type Card struct {
	Card     cards.Card
	FaceDown bool
	Sideways bool
	// Quad is the card's corners in image pixels (top-left, top-right,
	// bottom-right, bottom-left of the card itself).
	Quad [4][2]float64
	// Inside: the whole card lies in the picture, 4 px or more from its
	// edges.
	Inside bool
}

// Still is a rendered picture and its truth.
type Still struct {
	// Image is 8-bit BGR; the caller closes it.
	Image gocv.Mat
	Cards []Card
	// PxPerMM is the scale at the picture's centre, TiltDeg the camera's
	// tilt, JPEGQuality the quality it was compressed at (0: none).
	PxPerMM, TiltDeg float64
	JPEGQuality      int
	// Effects names the camera's faults applied, in order.
	Effects []string
}

func (o *Options) defaults() {
	if o.Width == 0 || o.Height == 0 {
		o.Width, o.Height = 1920, 1080
	}
	if o.MinPxPerMM == 0 {
		o.MinPxPerMM = 1.2
	}
	if o.MaxPxPerMM == 0 {
		o.MaxPxPerMM = 2.5
	}
	if o.MaxTiltDeg == 0 {
		o.MaxTiltDeg = 30
	}
}

// Render renders the still of opts.
func Render(opts Options) (*Still, error) {
	if opts.Art == nil {
		return nil, errors.New("still: no card art")
	}
	opts.defaults()
	if opts.MinPxPerMM <= 0 || opts.MaxPxPerMM < opts.MinPxPerMM || opts.MaxTiltDeg < 0 || opts.MaxTiltDeg > 35 {
		return nil, fmt.Errorf("still: scale %g..%g px/mm, tilt up to %g°: want 0 < min ≤ max and a tilt of 0..35", opts.MinPxPerMM, opts.MaxPxPerMM, opts.MaxTiltDeg)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x57111))
	view, px, tilt := sceneConfig(opts, rng)
	sc, err := scene.New(view, opts.Art, rand.New(rand.NewPCG(opts.Seed, 7)))
	if err != nil {
		return nil, fmt.Errorf("still: %w", err)
	}
	defer sc.Close()
	placed, err := dealt(sc.Layout(), opts.Deck, opts.Seed)
	if err != nil {
		return nil, err
	}
	if err := sc.SetCards(placed); err != nil {
		return nil, fmt.Errorf("still: %w", err)
	}
	st := &Still{Image: gocv.NewMat(), PxPerMM: px, TiltDeg: tilt}
	if err := sc.Render(&st.Image, int(opts.Seed%1000)); err != nil {
		st.Image.Close()
		return nil, fmt.Errorf("still: %w", err)
	}
	for _, p := range placed {
		q := sc.ImageQuad(p)
		c := Card{Card: p.Card, FaceDown: p.FaceDown, Sideways: p.Sideways, Inside: true}
		for i, v := range q {
			c.Quad[i] = [2]float64{float64(v.X), float64(v.Y)}
			c.Inside = c.Inside && v.X >= 4 && v.Y >= 4 && float64(v.X) <= float64(opts.Width-5) && float64(v.Y) <= float64(opts.Height-5)
		}
		st.Cards = append(st.Cards, c)
	}
	if !opts.Clean {
		st.JPEGQuality, st.Effects = camera(&st.Image, st.Cards, rng)
	}
	return st, nil
}

// sceneConfig draws the camera: the scale at the picture's centre, the
// tilt and its direction, the turn about the optical axis, and where it
// points (somewhere over the cards). It returns the scale and tilt drawn.
func sceneConfig(opts Options, rng *rand.Rand) (scene.Config, float64, float64) {
	view := scene.DefaultConfig()
	view.Deck = opts.Deck
	view.NoMarks = true
	cam := &view.Camera
	cam.Width, cam.Height = opts.Width, opts.Height
	px := math.Exp(uni(rng, math.Log(opts.MinPxPerMM), math.Log(opts.MaxPxPerMM)))
	tilt := uni(rng, 0, opts.MaxTiltDeg)
	cam.TiltDeg, cam.TiltAzimuthDeg = tilt, uni(rng, 0, 360)
	cam.YawDeg = uni(rng, -12, 12)
	cam.K1 = uni(rng, -0.08, 0)
	// The scale at the centre is the focal length over the distance along
	// the axis: ViewWidthMM is the width seen at the camera's height, so
	// at the tilted distance the centre's scale is Width/ViewWidthMM ×
	// cos(tilt).
	cam.ViewWidthMM = float64(opts.Width) / px * math.Cos(tilt*math.Pi/180)
	// The card area is about 1200×450 mm from Y 100 to 550: a close view
	// frames part of it.
	cam.Target = scene.Point{X: uni(rng, -250, 250) * math.Min(1, 1.6/px), Y: uni(rng, 260, 380)}
	view.NoiseSigma = uni(rng, 1.5, 5)
	view.LightUnevenness = uni(rng, 0.2, 0.7)
	view.Exposure = uni(rng, 0.95, 1.2)
	view.Felt = []color.RGBA{scene.GreenFelt, scene.BlueFelt}[rng.IntN(2)]
	return view, px, tilt
}

// dealt deals one round on the default 7-seat layout and returns the cards
// on the felt at the moment most of them lie there and no hand is over
// them.
func dealt(l *scene.Layout, deck string, seed uint64) ([]scene.PlacedCard, error) {
	cfg := script.DefaultConfig()
	cfg.Rounds, cfg.Seed = 1, seed
	cfg.Room = clip.Room(l)
	s, err := script.Write(cfg)
	if err != nil {
		return nil, fmt.Errorf("still: %w", err)
	}
	best, most := -1, 0
	for f := 0; f < s.Frames; f++ {
		if _, busy := s.ArmAt(f); busy {
			continue
		}
		if n := len(s.At(f)); n > most {
			best, most = f, n
		}
	}
	if best < 0 {
		return nil, errors.New("still: the round dealt no card")
	}
	var out []scene.PlacedCard
	for _, p := range s.At(best) {
		out = append(out, clip.Placed(l, p, deck))
	}
	return out, nil
}

func uni(r *rand.Rand, a, b float64) float64 { return a + (b-a)*r.Float64() }

// camera applies the camera's and the cards' faults to img, drawn from
// rng, in the order light meets them: cards bent and casting shadows,
// glare on glossy faces, the lamps' colour, the camera's shake, its
// sharpening and its JPEG. It returns the JPEG quality and the effects'
// names.
func camera(img *gocv.Mat, cs []Card, rng *rand.Rand) (int, []string) {
	var names []string
	apply := func(name string, err error) {
		if err == nil {
			names = append(names, name)
		}
	}
	quads := make([]camfx.Quad, len(cs))
	for i, c := range cs {
		quads[i] = camfx.Quad(c.Quad)
	}
	for _, q := range quads {
		if rng.Float64() < 0.3 {
			a := rng.Float64() * 2 * math.Pi
			apply("bend", camfx.Bend(img, q, uni(rng, 0.8, 2.5), [2]float64{math.Cos(a), math.Sin(a)}))
		}
	}
	a := rng.Float64() * 2 * math.Pi
	d := uni(rng, 1.5, 5)
	apply("shadow", camfx.SoftShadow(img, quads, [2]float64{d * math.Cos(a), d * math.Sin(a)}, uni(rng, 2, 6), uni(rng, 0.15, 0.45)))
	deg := uni(rng, 0, 180) // one lamp: its bands run alike on every card
	for _, q := range quads {
		if rng.Float64() < 0.3 {
			apply("glare", camfx.GlareBand(img, q, uni(rng, 0.15, 0.85), deg+uni(rng, -10, 10), uni(rng, 6, 22), uni(rng, 0.25, 0.65)))
		}
	}
	warm := uni(rng, -0.12, 0.12)
	apply("cast", camfx.ColourCast(img, 1-warm+uni(rng, -0.03, 0.03), 1+uni(rng, -0.04, 0.04), 1+warm+uni(rng, -0.03, 0.03)))
	if rng.Float64() < 0.5 {
		apply("motion", camfx.MotionBlur(img, uni(rng, 1.5, 4), uni(rng, 0, 180)))
	}
	if rng.Float64() < 0.6 {
		apply("sharpen", camfx.Sharpen(img, uni(rng, 0.4, 1.5), uni(rng, 0.8, 2)))
	}
	q := 60 + rng.IntN(31)
	apply("jpeg", camfx.JPEG(img, q))
	return q, names
}

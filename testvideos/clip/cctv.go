package clip

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"

	"gocv.io/x/gocv"

	"bjmonitor/testvideos/camfx"
	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
)

// CCTV is what a surveillance camera and glossy cards did to a clip
// rendered with Options.CCTV: drawn once a clip from its seed, and kept in
// its truth.
//
// Every frame gets the lamps' colour cast, the camera's sharpening halos
// (on most clips) and JPEG compression before the H.264 encoder, as
// cameras that compress twice do. Cards get what glossy cards on a table
// get: a card lying on top (no later card over it) is bent on BentShare
// of cards and catches a band of the lamp's glare on GlareShare, each card
// its own draw, which it keeps while it lies there; a card is smeared
// along its path while it moves (from landing under the dealer's hand
// until it is first seen whole, the frame a split moves it and the frame
// it is turned up), at half the length on the last such frame. The scene
// itself already draws each card's soft shadow on the felt.
type CCTV struct {
	// Cast is the colour cast, blue, green and red gains.
	Cast [3]float64 `json:"cast"`
	// Sharpen is the unsharp mask's amount (0: none) and SharpenSigma its
	// radius in pixels.
	Sharpen      float64 `json:"sharpen"`
	SharpenSigma float64 `json:"sharpen_sigma,omitempty"`
	// JPEG is the quality every frame is compressed at.
	JPEG int `json:"jpeg"`
	// LampDeg is the direction of the glare bands (0 along x); each band
	// turns up to 10° off it.
	LampDeg float64 `json:"lamp_deg"`
	// BentShare and GlareShare are each top card's chance of a bend and of
	// a glare band; BlurPx the length of a moving card's smear.
	BentShare  float64 `json:"bent_share"`
	GlareShare float64 `json:"glare_share"`
	BlurPx     float64 `json:"blur_px"`

	seed uint64
}

// newCCTV draws a clip's camera from seed.
func newCCTV(seed uint64) *CCTV {
	r := rand.New(rand.NewPCG(seed, 0xcc7f))
	warm := uni(r, -0.12, 0.12)
	c := &CCTV{
		Cast:       [3]float64{1 - warm + uni(r, -0.03, 0.03), 1 + uni(r, -0.04, 0.04), 1 + warm + uni(r, -0.03, 0.03)},
		JPEG:       60 + r.IntN(31),
		LampDeg:    uni(r, 0, 180),
		BentShare:  0.3,
		GlareShare: 0.3,
		BlurPx:     uni(r, 4, 10),
		seed:       seed,
	}
	if r.Float64() < 0.6 {
		c.Sharpen, c.SharpenSigma = uni(r, 0.4, 1.5), uni(r, 0.8, 2)
	}
	return c
}

func uni(r *rand.Rand, a, b float64) float64 { return a + (b-a)*r.Float64() }

// cardLook is one card's own draws: the same for the card's whole life in
// the clip.
type cardLook struct {
	bend, glare       bool
	bendPx, bendDeg   float64
	glareAt, glareDeg float64
	glareW, glareK    float64
	blurDeg           float64
}

// look draws card's own look from the clip's seed: the same every frame.
func (c *CCTV) look(card int) cardLook {
	r := rand.New(rand.NewPCG(c.seed, splitmix(uint64(card)+1)))
	return cardLook{
		bend:     r.Float64() < c.BentShare,
		bendPx:   uni(r, 0.8, 2.5),
		bendDeg:  uni(r, 0, 360),
		glare:    r.Float64() < c.GlareShare,
		glareAt:  uni(r, 0.15, 0.85),
		glareDeg: c.LampDeg + uni(r, -10, 10),
		glareW:   uni(r, 6, 22),
		glareK:   uni(r, 0.25, 0.65),
		blurDeg:  uni(r, 0, 180),
	}
}

// moving returns how far card c's smear reaches at frame f, as a share of
// BlurPx: 1 while it moves, 0.5 on the last frame of a move, 0 at rest.
func moving(c *script.Card, f int) float64 {
	shown := max(c.Shown, c.Placed)
	switch {
	case f >= c.Placed && f < shown:
		return 1
	case f == shown:
		return 0.5
	case c.Turned >= 0 && (f == c.Turned || f == c.Turned+1):
		return 1 - 0.5*float64(f-c.Turned)
	}
	for _, m := range c.Moves {
		if f == m.Frame || f == m.Frame+1 {
			return 1 - 0.5*float64(f-m.Frame)
		}
	}
	return 0
}

// apply does to frame f (rendered, BGR) what the camera and the cards do.
// placed are the cards on the felt, in the order they landed, and quads
// their corners in the image.
func (c *CCTV) apply(frame *gocv.Mat, f int, placed []script.Placement, quads []camfx.Quad) error {
	size := image.Pt(frame.Cols(), frame.Rows())
	for i, p := range placed {
		q := quads[i]
		l := c.look(p.Card.ID)
		if top(i, quads, size) {
			if l.bend {
				rad := l.bendDeg * math.Pi / 180
				if err := inRegion(frame, q, 6, func(m *gocv.Mat, q camfx.Quad) error {
					return camfx.Bend(m, q, l.bendPx, [2]float64{math.Cos(rad), math.Sin(rad)})
				}); err != nil {
					return err
				}
			}
			if l.glare {
				if err := inRegion(frame, q, 4, func(m *gocv.Mat, q camfx.Quad) error {
					return camfx.GlareBand(m, q, l.glareAt, l.glareDeg, l.glareW, l.glareK)
				}); err != nil {
					return err
				}
			}
		}
		if k := moving(p.Card, f); k > 0 && c.BlurPx*k >= 1 {
			// The filter reads the pixels around the region too: no seam.
			if err := inRegion(frame, q, int(c.BlurPx)+2, func(m *gocv.Mat, _ camfx.Quad) error {
				return camfx.MotionBlur(m, c.BlurPx*k, l.blurDeg)
			}); err != nil {
				return err
			}
		}
	}
	if err := camfx.ColourCast(frame, c.Cast[0], c.Cast[1], c.Cast[2]); err != nil {
		return err
	}
	if c.Sharpen > 0 {
		if err := camfx.Sharpen(frame, c.Sharpen, c.SharpenSigma); err != nil {
			return err
		}
	}
	return camfx.JPEG(frame, c.JPEG)
}

// top reports whether card i of quads lies on top: no card that landed
// later comes within its bounding box. A card under another lies flat,
// and the one over it would catch its glare.
func top(i int, quads []camfx.Quad, size image.Point) bool {
	b := bounds(quads[i], 0, size)
	for _, q := range quads[i+1:] {
		if b.Overlaps(bounds(q, 0, size)) {
			return false
		}
	}
	return true
}

// bounds is q's bounding box grown by pad pixels, within size.
func bounds(q camfx.Quad, pad int, size image.Point) image.Rectangle {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range q {
		x0, y0 = math.Min(x0, p[0]), math.Min(y0, p[1])
		x1, y1 = math.Max(x1, p[0]), math.Max(y1, p[1])
	}
	r := image.Rect(int(math.Floor(x0))-pad, int(math.Floor(y0))-pad, int(math.Ceil(x1))+pad+1, int(math.Ceil(y1))+pad+1)
	return r.Intersect(image.Rectangle{Max: size})
}

// inRegion calls fn on the part of frame around q (grown by pad pixels),
// with q in that part's pixels: an effect on one card costs that card's
// pixels, not the frame's.
func inRegion(frame *gocv.Mat, q camfx.Quad, pad int, fn func(*gocv.Mat, camfx.Quad) error) error {
	r := bounds(q, pad, image.Pt(frame.Cols(), frame.Rows()))
	if r.Dx() < 2 || r.Dy() < 2 {
		return nil
	}
	roi := frame.Region(r)
	defer roi.Close()
	for k := range q {
		q[k] = [2]float64{q[k][0] - float64(r.Min.X), q[k][1] - float64(r.Min.Y)}
	}
	if err := fn(&roi, q); err != nil {
		return fmt.Errorf("cctv: %w", err)
	}
	return nil
}

// imageQuads returns the corners in the image of each placed card.
func imageQuads(sc *scene.Scene, placed []scene.PlacedCard, out []camfx.Quad) []camfx.Quad {
	out = out[:0]
	for _, p := range placed {
		var q camfx.Quad
		for k, c := range sc.ImageQuad(p) {
			q[k] = [2]float64{float64(c.X), float64(c.Y)}
		}
		out = append(out, q)
	}
	return out
}

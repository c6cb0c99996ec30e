package scene

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardart"

	"gocv.io/x/gocv"
)

// Felt colours commonly seen on casino tables.
var (
	GreenFelt = color.RGBA{R: 22, G: 98, B: 60, A: 255}
	BlueFelt  = color.RGBA{R: 22, G: 62, B: 112, A: 255}
)

// Config is everything a Scene needs besides the card art and the seed.
type Config struct {
	Layout LayoutConfig
	Camera CameraConfig
	// Felt is the cloth colour and Ink the colour of the printed layout.
	Felt, Ink color.RGBA
	// FeltTexture scales the felt's mottling and grain: 0 is flat cloth,
	// 1 the default, 2 a worn table.
	FeltTexture float64
	// LightUnevenness (0..1) is how much brighter the felt is under the
	// lamps than at the rail; Vignette (0..0.8) the lens's fall-off at
	// the image corners; Exposure the overall gain.
	LightUnevenness, Vignette, Exposure float64
	// NoiseSigma is the sensor noise's standard deviation in grey levels;
	// NoiseTiles how many different noise patterns frames cycle through.
	NoiseSigma float64
	NoiseTiles int
	// Deck is the card design for cards whose PlacedCard.Deck is empty.
	Deck string
	// NoChips leaves the players' chips off the felt, as on a table
	// cleared for deck enrolment.
	NoChips bool
	// NoDiscards leaves the discard holder off the table, as an installer
	// clears the space the enrolment layout needs: on this table the
	// layout's spades row reaches under the holder.
	NoDiscards bool
	// NoMarks leaves the reference marks unprinted, as on a felt that
	// carries none (the layout still knows where they would be).
	NoMarks bool
}

// DefaultConfig returns the 1080p, green-felt, 7-seat scene.
func DefaultConfig() Config {
	return Config{
		Layout:          DefaultLayoutConfig(),
		Camera:          DefaultCameraConfig(),
		Felt:            GreenFelt,
		Ink:             color.RGBA{R: 236, G: 200, B: 96, A: 255},
		FeltTexture:     1,
		LightUnevenness: 0.5,
		Vignette:        0.35,
		Exposure:        1.1,
		NoiseSigma:      3,
		NoiseTiles:      4,
		Deck:            "anglo_poker",
	}
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	if err := c.Layout.Validate(); err != nil {
		return err
	}
	if err := c.Camera.Validate(); err != nil {
		return err
	}
	switch {
	case c.FeltTexture < 0 || c.FeltTexture > 3:
		return fmt.Errorf("scene: FeltTexture = %g, want 0..3", c.FeltTexture)
	case c.LightUnevenness < 0 || c.LightUnevenness > 1:
		return fmt.Errorf("scene: LightUnevenness = %g, want 0..1", c.LightUnevenness)
	case c.Vignette < 0 || c.Vignette > 0.8:
		return fmt.Errorf("scene: Vignette = %g, want 0..0.8", c.Vignette)
	case c.Exposure < 0.2 || c.Exposure > 2:
		return fmt.Errorf("scene: Exposure = %g, want 0.2..2", c.Exposure)
	case c.NoiseSigma < 0 || c.NoiseSigma > 40:
		return fmt.Errorf("scene: NoiseSigma = %g, want 0..40", c.NoiseSigma)
	case c.NoiseTiles < 1 || c.NoiseTiles > 16:
		return fmt.Errorf("scene: NoiseTiles = %d, want 1..16", c.NoiseTiles)
	case c.Deck == "":
		return errors.New("scene: Deck is empty")
	}
	return nil
}

// PlacedCard is a card lying on the table.
type PlacedCard struct {
	Card cards.Card
	// Deck is the card design (a cardart deck name); empty means
	// Config.Deck.
	Deck string
	Pose Pose
	// FaceDown shows the back, as for the hole card.
	FaceDown bool
	// Sideways turns the card a further 90°, as a doubled card lies.
	Sideways bool
	// Z orders cards that overlap: higher is on top; among equal Z, later
	// in the slice is on top.
	Z int
}

// EffectivePose is the pose with Sideways applied.
func (p PlacedCard) EffectivePose() Pose {
	q := p.Pose
	if p.Sideways {
		q.RotDeg += 90
	}
	return q
}

// Occluder is the dealer's hand and forearm reaching over the table. It is
// drawn flat on the image (it is much nearer the camera than the felt,
// but only its silhouette matters: it hides cards for a few frames).
type Occluder struct {
	// Hand is the centre of the palm, in table mm.
	Hand Point
	// FromDeg is the direction from the hand back along the forearm,
	// measured like a card's rotation: 0 points at the dealer (−Y),
	// positive turns clockwise in the image.
	FromDeg float64
	// Sleeve and Skin colours; zero values give a white shirt and a
	// medium skin tone.
	Sleeve, Skin color.RGBA
	// Motion is how far the hand moves during one exposure, in table mm:
	// the silhouette is smeared along it (motion blur).
	Motion Point
}

// Scene renders frames of the table as the camera sees them. It owns its
// Mats: call Close when done. A Scene is not safe for concurrent use.
type Scene struct {
	cfg    Config
	layout *Layout
	cam    *Camera
	art    *cardart.Art

	canvas canvasRect // table area the canvas covers, mm
	s      float64    // canvas pixels per mm
	cw, ch int        // canvas size in pixels

	base gocv.Mat // static table in the table plane (BGR)
	comp gocv.Mat // base with the cards drawn on it
	mapX gocv.Mat // image pixel → canvas x (CV_32FC1)
	mapY gocv.Mat // image pixel → canvas y
	gain gocv.Mat // light gain ×128 (BGR, CV_8UC3)
	lit  gocv.Mat // comp as the camera sees it, lit (BGR)

	noise []gocv.Mat
	pad   int // noise tiles are pad pixels larger than the image
	seed  uint64

	faces map[faceKey]gocv.Mat // card art at canvas scale (BGRA)
	cards []PlacedCard         // current cards, in drawing order
	occ   []Occluder
}

type faceKey struct {
	deck string
	card cards.Card
	back bool
}

// New builds a scene: it renders the static table once (a second or two
// at 1080p) so that frames only pay for what changes. art supplies the
// card images and stays owned by the caller; rng seeds every random choice
// (felt grain, chips, lamps, noise), so equal seeds give equal frames.
func New(cfg Config, art *cardart.Art, rng *rand.Rand) (*Scene, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if art == nil || rng == nil {
		return nil, errors.New("scene: New needs card art and a random source")
	}
	layout, err := NewLayout(cfg.Layout)
	if err != nil {
		return nil, err
	}
	cam, err := NewCamera(cfg.Camera)
	if err != nil {
		return nil, err
	}
	s := &Scene{cfg: cfg, layout: layout, cam: cam, art: art, faces: map[faceKey]gocv.Mat{}, seed: rng.Uint64()}
	if err := s.build(rng); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Layout returns the table geometry (seats, dealer, marks).
func (s *Scene) Layout() *Layout { return s.layout }

// Camera returns the camera.
func (s *Scene) Camera() *Camera { return s.cam }

// Size returns the image size.
func (s *Scene) Size() image.Point { return image.Pt(s.cfg.Camera.Width, s.cfg.Camera.Height) }

// build renders the static table, the image maps, the light and the noise.
func (s *Scene) build(rng *rand.Rand) error {
	w, h := s.cfg.Camera.Width, s.cfg.Camera.Height
	// The canvas covers what the camera sees, at a little more than the
	// finest image scale, so the warp to the image never enlarges it.
	minP, maxP := Point{math.Inf(1), math.Inf(1)}, Point{math.Inf(-1), math.Inf(-1)}
	finest := 0.0
	const samples = 16
	for j := 0; j <= samples; j++ {
		for i := 0; i <= samples; i++ {
			x, y := float64(i*w)/samples, float64(j*h)/samples
			p := s.cam.Unproject(x, y)
			minP = Point{math.Min(minP.X, p.X), math.Min(minP.Y, p.Y)}
			maxP = Point{math.Max(maxP.X, p.X), math.Max(maxP.Y, p.Y)}
			finest = math.Max(finest, s.cam.PxPerMM(p))
		}
	}
	const margin = 40
	s.canvas = canvasRect{X0: minP.X - margin, Y0: minP.Y - margin, W: maxP.X - minP.X + 2*margin, H: maxP.Y - minP.Y + 2*margin}
	s.s = 1.2 * finest
	s.cw, s.ch = int(math.Ceil(s.canvas.W*s.s)), int(math.Ceil(s.canvas.H*s.s))
	if s.cw > 12000 || s.ch > 12000 {
		return fmt.Errorf("scene: the camera sees %.0f×%.0f mm at %.2f px/mm, a %dx%d canvas: too large (lower the resolution or narrow the view)",
			s.canvas.W, s.canvas.H, s.s, s.cw, s.ch)
	}
	// Make the canvas exactly cw×ch pixels at s px/mm.
	s.canvas.W, s.canvas.H = float64(s.cw)/s.s, float64(s.ch)/s.s

	feltCanvas(&s.base, s.cw, s.ch, s.s, s.cfg, rng)
	print, err := renderSVG(layoutSVG(s.layout, s.cfg, s.canvas, rng), s.cw, s.ch)
	if err != nil {
		return err
	}
	overBGRA(&s.base, print, rng)
	print.Close()
	s.comp = s.base.Clone()

	s.buildMaps(w, h)
	s.gain = lightGain(w, h, s.cam.Unproject, s.cfg, rng)
	s.lit = gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
	s.refresh(image.Rect(0, 0, w, h))

	s.pad = 64
	s.noise = noiseTiles(s.cfg.NoiseTiles, w, h, s.pad, s.cfg.NoiseSigma, rng)
	return nil
}

// buildMaps computes, for every image pixel, the canvas pixel it sees,
// undoing the lens distortion exactly (remap then reproduces it).
func (s *Scene) buildMaps(w, h int) {
	mx := make([]float32, w*h)
	my := make([]float32, w*h)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for y := k; y < h; y += workers {
				for x := 0; x < w; x++ {
					p := s.cam.Unproject(float64(x), float64(y))
					cx, cy := s.toCanvas(p)
					mx[y*w+x], my[y*w+x] = float32(cx), float32(cy)
				}
			}
		}(k)
	}
	wg.Wait()
	s.mapX, _ = gocv.NewMatFromBytes(h, w, gocv.MatTypeCV32FC1, f32bytes(mx))
	s.mapY, _ = gocv.NewMatFromBytes(h, w, gocv.MatTypeCV32FC1, f32bytes(my))
}

// toCanvas maps table mm to canvas pixel coordinates (integers at pixel
// centres, as OpenCV's warps and remap count them).
func (s *Scene) toCanvas(p Point) (float64, float64) {
	return (p.X-s.canvas.X0)*s.s - 0.5, (p.Y-s.canvas.Y0)*s.s - 0.5
}

// refresh re-renders image region r from comp: warp, lens blur, light.
// The warp covers a slightly larger region so that the blur sees real
// neighbours: every image pixel then depends only on comp, and a partial
// refresh gives exactly the bytes a full one would.
func (s *Scene) refresh(r image.Rectangle) {
	img := image.Rect(0, 0, s.cfg.Camera.Width, s.cfg.Camera.Height)
	r = r.Intersect(img)
	if r.Empty() {
		return
	}
	const m = 2 // the blur kernel's radius
	big := r.Inset(-m).Intersect(img)
	mx := s.mapX.Region(big)
	defer mx.Close()
	my := s.mapY.Region(big)
	defer my.Close()
	tmp := gocv.NewMat()
	defer tmp.Close()
	gocv.Remap(s.comp, &tmp, &mx, &my, gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	// No lens is perfectly sharp; this also hides the canvas's pixel grid.
	gocv.GaussianBlur(tmp, &tmp, image.Pt(2*m+1, 2*m+1), 0.7, 0.7, gocv.BorderReflect101)
	in := tmp.Region(r.Sub(big.Min))
	defer in.Close()
	dst := s.lit.Region(r)
	defer dst.Close()
	g := s.gain.Region(r)
	defer g.Close()
	gocv.MultiplyWithParams(in, g, &dst, 1.0/128, -1)
}

// SetCards replaces the cards on the table. Only the area where cards
// appeared, vanished or moved is drawn again, so dealing one card costs a
// few milliseconds and an unchanged table costs nothing.
func (s *Scene) SetCards(placed []PlacedCard) error {
	next := append([]PlacedCard(nil), placed...)
	for i := range next {
		if next[i].Deck == "" {
			next[i].Deck = s.cfg.Deck
		}
		if !next[i].FaceDown && !next[i].Card.Valid() {
			return fmt.Errorf("scene: card %d: invalid card %v face up", i, next[i].Card)
		}
	}
	sort.SliceStable(next, func(i, j int) bool { return next[i].Z < next[j].Z })
	// Load the art first, so that an unknown deck leaves the scene as it was.
	for _, c := range next {
		if _, err := s.face(c); err != nil {
			return err
		}
	}
	dirty, ok := s.changed(s.cards, next)
	s.cards = next
	if !ok {
		return nil
	}
	s.redraw(dirty)
	return nil
}

// changed returns the table-mm box covering every card that differs
// between old and next, and false when nothing changed. When cards that
// stay have changed their stacking order, everything under them counts.
func (s *Scene) changed(old, next []PlacedCard) (box [2]Point, any bool) {
	count := map[PlacedCard]int{}
	for _, c := range old {
		count[c]++
	}
	for _, c := range next {
		count[c]--
	}
	grow := func(c PlacedCard) {
		b := cardBox(c)
		if !any {
			box, any = b, true
			return
		}
		box[0] = Point{math.Min(box[0].X, b[0].X), math.Min(box[0].Y, b[0].Y)}
		box[1] = Point{math.Max(box[1].X, b[1].X), math.Max(box[1].Y, b[1].Y)}
	}
	var keptOld, keptNext []PlacedCard
	left := map[PlacedCard]int{}
	for k, v := range count {
		left[k] = v
	}
	for _, c := range old {
		if left[c] > 0 {
			left[c]--
			grow(c) // removed
		} else {
			keptOld = append(keptOld, c)
		}
	}
	for k, v := range count {
		left[k] = v
	}
	for _, c := range next {
		if left[c] < 0 {
			left[c]++
			grow(c) // added
		} else {
			keptNext = append(keptNext, c)
		}
	}
	for i := range keptOld {
		if i < len(keptNext) && keptOld[i] != keptNext[i] {
			for _, c := range keptNext {
				grow(c)
			}
			break
		}
	}
	return box, any
}

// cardBox is a card's table-mm bounding box, with room for its shadow.
func cardBox(c PlacedCard) [2]Point {
	q := c.EffectivePose().Corners()
	b := [2]Point{q[0], q[0]}
	for _, p := range q[1:] {
		b[0] = Point{math.Min(b[0].X, p.X), math.Min(b[0].Y, p.Y)}
		b[1] = Point{math.Max(b[1].X, p.X), math.Max(b[1].Y, p.Y)}
	}
	const m = shadowMM + 3*shadowBlurMM
	return [2]Point{b[0].Add(Point{-m, -m}), b[1].Add(Point{m, m})}
}

// The card's shadow: offset away from the lamps, and soft.
const (
	shadowMM     = 1.6
	shadowBlurMM = 1.0
	shadowDepth  = 0.45
)

// redraw restores the canvas under box, draws the cards that touch it,
// and re-renders the image region that box projects to.
func (s *Scene) redraw(box [2]Point) {
	x0, y0 := s.toCanvas(box[0])
	x1, y1 := s.toCanvas(box[1])
	cr := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1))+1, int(math.Ceil(y1))+1).
		Intersect(image.Rect(0, 0, s.cw, s.ch))
	if cr.Empty() {
		return
	}
	src := s.base.Region(cr)
	dst := s.comp.Region(cr)
	src.CopyTo(&dst)
	src.Close()
	dst.Close()
	for _, c := range s.cards {
		b := cardBox(c)
		if b[1].X < box[0].X || b[0].X > box[1].X || b[1].Y < box[0].Y || b[0].Y > box[1].Y {
			continue
		}
		s.drawCard(c, cr)
	}
	// The image region: the projected outline of box, sampled along its
	// edges because distortion bends straight lines.
	ir := image.Rectangle{}
	first := true
	const n = 8
	for i := 0; i <= n; i++ {
		t := float64(i) / n
		for _, p := range []Point{
			{box[0].X + t*(box[1].X-box[0].X), box[0].Y}, {box[0].X + t*(box[1].X-box[0].X), box[1].Y},
			{box[0].X, box[0].Y + t*(box[1].Y-box[0].Y)}, {box[1].X, box[0].Y + t*(box[1].Y-box[0].Y)},
		} {
			x, y := s.cam.Project(p)
			pr := image.Rect(int(math.Floor(x))-2, int(math.Floor(y))-2, int(math.Ceil(x))+3, int(math.Ceil(y))+3)
			if first {
				ir, first = pr, false
			} else {
				ir = ir.Union(pr)
			}
		}
	}
	s.refresh(ir)
}

// face returns the art for a card at canvas scale, loading it once.
func (s *Scene) face(c PlacedCard) (gocv.Mat, error) {
	k := faceKey{deck: c.Deck, card: c.Card}
	if c.FaceDown {
		k = faceKey{back: true}
	}
	if m, ok := s.faces[k]; ok {
		return m, nil
	}
	var src gocv.Mat
	var err error
	if k.back {
		src, err = s.art.Back()
	} else {
		src, err = s.art.Face(c.Deck, c.Card)
	}
	if err != nil {
		return gocv.Mat{}, err
	}
	m := gocv.NewMat()
	gocv.Resize(src, &m, image.Pt(int(math.Round(CardW*s.s)), int(math.Round(CardH*s.s))), 0, 0, gocv.InterpolationArea)
	s.faces[k] = m
	return m, nil
}

// drawCard draws one card with its shadow on comp, writing only inside
// clip. The card is warped over its whole box whatever clip is, so that
// drawing it in parts gives the same pixels as drawing it whole.
func (s *Scene) drawCard(c PlacedCard, clip image.Rectangle) {
	art, err := s.face(c)
	if err != nil {
		return // SetCards loaded every face already
	}
	b := cardBox(c)
	x0, y0 := s.toCanvas(b[0])
	x1, y1 := s.toCanvas(b[1])
	full := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1))+1, int(math.Ceil(y1))+1)
	box := full.Intersect(image.Rect(0, 0, s.cw, s.ch))
	if box.Empty() || box.Intersect(clip).Empty() {
		return
	}
	p := c.EffectivePose()
	sn, cs := math.Sincos(p.RotDeg * math.Pi / 180)
	fw, fh := float64(art.Cols()), float64(art.Rows())
	a, bb := CardW/fw, 0.5*CardW/fw-CardW/2
	cc, d := CardH/fh, 0.5*CardH/fh-CardH/2
	m := gocv.NewMatWithSize(2, 3, gocv.MatTypeCV64F)
	defer m.Close()
	m.SetDoubleAt(0, 0, s.s*cs*a)
	m.SetDoubleAt(0, 1, -s.s*sn*cc)
	m.SetDoubleAt(0, 2, s.s*(cs*bb-sn*d+p.Center.X-s.canvas.X0)-0.5-float64(box.Min.X))
	m.SetDoubleAt(1, 0, s.s*sn*a)
	m.SetDoubleAt(1, 1, s.s*cs*cc)
	m.SetDoubleAt(1, 2, s.s*(sn*bb+cs*d+p.Center.Y-s.canvas.Y0)-0.5-float64(box.Min.Y))
	warped := gocv.NewMat()
	defer warped.Close()
	gocv.WarpAffineWithParams(art, &warped, m, box.Size(), gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	alpha := gocv.NewMat()
	defer alpha.Close()
	gocv.ExtractChannel(warped, &alpha, 3)
	shadow := gocv.NewMat()
	defer shadow.Close()
	sigma := shadowBlurMM * s.s
	ks := 2*int(math.Ceil(3*sigma)) + 1
	gocv.GaussianBlur(alpha, &shadow, image.Pt(ks, ks), sigma, sigma, gocv.BorderConstant)

	wb, _ := warped.DataPtrUint8()
	sb, _ := shadow.DataPtrUint8()
	cb, _ := s.comp.DataPtrUint8()
	off := int(math.Round(shadowMM * s.s))
	bw := box.Dx()
	in := box.Intersect(clip)
	for y := in.Min.Y; y < in.Max.Y; y++ {
		for x := in.Min.X; x < in.Max.X; x++ {
			lx, ly := x-box.Min.X, y-box.Min.Y
			ci := (y*s.cw + x) * 3
			// Shadow first: the card's own alpha, shifted away from the
			// lamps (down and right) and blurred.
			if sx, sy := lx-off, ly-off; sx >= 0 && sy >= 0 {
				if sh := int(sb[sy*bw+sx]); sh > 0 {
					k := 1 - shadowDepth*float64(sh)/255
					for ch := 0; ch < 3; ch++ {
						cb[ci+ch] = uint8(float64(cb[ci+ch]) * k)
					}
				}
			}
			wi := (ly*bw + lx) * 4
			al := int(wb[wi+3])
			if al == 0 {
				continue
			}
			for ch := 0; ch < 3; ch++ {
				cb[ci+ch] = uint8((int(wb[wi+ch])*al + int(cb[ci+ch])*(255-al) + 127) / 255)
			}
		}
	}
}

// ImageQuad returns the card's corners in image pixels, with the lens
// distortion, in the order of Pose.Corners (top-left, top-right,
// bottom-right, bottom-left of the card itself).
func (s *Scene) ImageQuad(c PlacedCard) [4]gocv.Point2f {
	var out [4]gocv.Point2f
	for i, p := range c.EffectivePose().Corners() {
		x, y := s.cam.Project(p)
		out[i] = gocv.Point2f{X: float32(x), Y: float32(y)}
	}
	return out
}

// SetOccluders replaces the hands and arms over the table. They are drawn
// on each frame, not cached, because they move.
func (s *Scene) SetOccluders(o []Occluder) { s.occ = append(s.occ[:0], o...) }

// Render draws frame number `frame` into dst, reallocating dst to the
// image size (BGR) when needed. dst belongs to the caller; allocate it
// once and reuse it for every frame. The frame number picks the sensor
// noise, so rendering the same state and number twice gives the same
// bytes.
func (s *Scene) Render(dst *gocv.Mat, frame int) error {
	if dst == nil || dst.Ptr() == nil {
		return errors.New("scene: Render needs a Mat made with gocv.NewMat")
	}
	s.lit.CopyTo(dst)
	if !dst.IsContinuous() {
		return errors.New("scene: Render's dst must be a whole Mat, not a region")
	}
	for _, o := range s.occ {
		s.drawOccluder(dst, o)
	}
	if s.cfg.NoiseSigma > 0 {
		h := splitmix(s.seed ^ uint64(frame))
		t := s.noise[h%uint64(len(s.noise))]
		dx, dy := int(h>>16)%s.pad, int(h>>32)%s.pad
		n := t.Region(image.Rect(dx, dy, dx+s.cfg.Camera.Width, dy+s.cfg.Camera.Height))
		gocv.AddWeighted(*dst, 1, n, 1, -128, dst)
		n.Close()
	}
	return nil
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Close releases the scene's Mats. The card art stays open: it belongs to
// the caller.
func (s *Scene) Close() error {
	for _, m := range []*gocv.Mat{&s.base, &s.comp, &s.mapX, &s.mapY, &s.gain, &s.lit} {
		if m.Ptr() != nil {
			m.Close()
			*m = gocv.Mat{}
		}
	}
	for _, m := range s.noise {
		m.Close()
	}
	s.noise = nil
	for k, m := range s.faces {
		m.Close()
		delete(s.faces, k)
	}
	return nil
}

package scene

import (
	"bytes"
	"encoding/json"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardart"

	"gocv.io/x/gocv"

	"bjmonitor/video"
)

// testArt is shared by every test: rendering a deck takes a second, and
// its cache lives in a temporary folder removed after the run.
var testArt *cardart.Art

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "scene-test-cards-")
	if err != nil {
		panic(err)
	}
	testArt, err = cardart.New(cardart.Options{CacheDir: dir})
	if err != nil {
		panic(err)
	}
	code := m.Run()
	testArt.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// smallConfig is the default scene at a small size, without noise unless
// asked, so tests run fast and can compare pixels.
func smallConfig(w, h int) Config {
	cfg := DefaultConfig()
	cfg.Camera.Width, cfg.Camera.Height = w, h
	cfg.NoiseSigma = 0
	return cfg
}

func newScene(tb testing.TB, cfg Config, seed uint64) *Scene {
	tb.Helper()
	if _, err := os.Stat(cardart.DefaultDeckDir); err != nil {
		tb.Skipf("gnome-cards-data not installed: %v", err)
	}
	s, err := New(cfg, testArt, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func render(tb testing.TB, s *Scene, frame int) gocv.Mat {
	tb.Helper()
	m := gocv.NewMat()
	if err := s.Render(&m, frame); err != nil {
		m.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	return m
}

func TestCameraRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		edit func(*CameraConfig)
	}{
		{"default", func(*CameraConfig) {}},
		{"straight down, no distortion", func(c *CameraConfig) { c.TiltDeg, c.K1 = 0, 0 }},
		{"tilted 20° from the side, yawed, strong barrel", func(c *CameraConfig) {
			c.TiltDeg, c.TiltAzimuthDeg, c.YawDeg, c.K1, c.K2 = 20, 70, 4, -0.2, 0.05
		}},
		{"4K", func(c *CameraConfig) { c.Width, c.Height = 3840, 2160 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultCameraConfig()
			tt.edit(&cfg)
			cam, err := NewCamera(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []Point{{0, 320}, {-500, 40}, {450, 600}, {-300, 500}} {
				x, y := cam.Project(p)
				q := cam.Unproject(x, y)
				if d := math.Hypot(q.X-p.X, q.Y-p.Y); d > 0.01 {
					t.Errorf("Unproject(Project(%v)) = %v, %.4f mm off", p, q, d)
				}
				// Without distortion the homography and Project agree.
				if cfg.K1 == 0 && cfg.K2 == 0 {
					h := cam.Homography()
					w := h[2][0]*p.X + h[2][1]*p.Y + h[2][2]
					hx, hy := (h[0][0]*p.X+h[0][1]*p.Y+h[0][2])/w, (h[1][0]*p.X+h[1][1]*p.Y+h[1][2])/w
					if math.Hypot(hx-x, hy-y) > 1e-6 {
						t.Errorf("homography puts %v at (%.3f, %.3f), Project at (%.3f, %.3f)", p, hx, hy, x, y)
					}
				}
			}
			tx, ty := cam.Project(cfg.Target)
			if math.Hypot(tx-float64(cfg.Width)/2, ty-float64(cfg.Height)/2) > 1e-6 {
				t.Errorf("Target projects to (%.2f, %.2f), want the image centre", tx, ty)
			}
		})
	}
}

// TestCardAreaScale checks the design's bar: the card area reaches 1.5
// px/mm at 1080p, and the default camera sees all the marks.
func TestCardAreaScale(t *testing.T) {
	l, err := NewLayout(DefaultLayoutConfig())
	if err != nil {
		t.Fatal(err)
	}
	cam, err := NewCamera(DefaultCameraConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Seats {
		for _, p := range []Pose{s.CardPose(0, 1, 0), s.CardPose(0, 1, 3), s.CardPose(0, 2, 0), s.CardPose(1, 2, 2)} {
			if got := cam.PxPerMM(p.Center); got < 1.5 {
				t.Errorf("seat %d: %.2f px/mm at %v, want >= 1.5", s.Number, got, p.Center)
			}
			for _, c := range p.Corners() {
				x, y := cam.Project(c)
				if x < 0 || y < 0 || x >= 1920 || y >= 1080 {
					t.Errorf("seat %d: card corner %v is outside the image at (%.0f, %.0f)", s.Number, c, x, y)
				}
			}
		}
	}
	for _, m := range l.Marks {
		for _, c := range m.Corners() {
			x, y := cam.Project(c)
			if x < 5 || y < 5 || x >= 1915 || y >= 1075 {
				t.Errorf("mark %d corner %v at (%.0f, %.0f), want inside the image", m.ID, c, x, y)
			}
		}
	}
}

func TestZones(t *testing.T) {
	l, err := NewLayout(DefaultLayoutConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Seats {
		t.Run("seat "+string(rune('0'+s.Number)), func(t *testing.T) {
			for _, p := range []Pose{s.CardPose(0, 1, 0), s.CardPose(0, 1, 3), s.CardPose(0, 2, 1), s.CardPose(1, 2, 1), s.DoublePose(0, 1, 2)} {
				if got := l.SeatAt(p.Center); got != s.Number {
					t.Errorf("SeatAt(%v) = %d, want %d", p.Center, got, s.Number)
				}
				if l.InDealerZone(p.Center) {
					t.Errorf("InDealerZone(%v) = true for a seat's card", p.Center)
				}
			}
		})
	}
	t.Run("dealer", func(t *testing.T) {
		for i := 0; i < 6; i++ {
			p := l.Dealer.CardPose(i).Center
			if !l.InDealerZone(p) {
				t.Errorf("InDealerZone(dealer card %d at %v) = false", i, p)
			}
			if got := l.SeatAt(p); got != 0 {
				t.Errorf("SeatAt(dealer card %d) = %d, want 0", i, got)
			}
		}
	})
}

// TestMarksWhereDrawn finds each printed mark in the rendered image (its
// black square, by colour) and compares it with where the camera says the
// mark's table position projects.
func TestMarksWhereDrawn(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"default camera", func(*Config) {}},
		{"tilted 20°, yawed, strong barrel", func(c *Config) {
			c.Camera.TiltDeg, c.Camera.TiltAzimuthDeg, c.Camera.YawDeg, c.Camera.K1 = 20, 180, -3, -0.15
			c.Camera.ViewWidthMM = 1500
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallConfig(960, 540)
			tt.edit(&cfg)
			s := newScene(t, cfg, 3)
			frame := render(t, s, 0)
			b, _ := frame.DataPtrUint8()
			w, h := frame.Cols(), frame.Rows()
			for _, m := range s.Layout().Marks {
				// Where the black square's corners project to.
				want := image.Rectangle{}
				var cx, cy float64
				for i, c := range m.Corners() {
					x, y := s.Camera().Project(c)
					cx, cy = cx+x/4, cy+y/4
					p := image.Rectangle{Min: image.Pt(int(x), int(y)), Max: image.Pt(int(x)+1, int(y)+1)}
					if i == 0 {
						want = p
					} else {
						want = want.Union(p)
					}
				}
				// Search a little beyond it, inside the white margin.
				win := want.Inset(-int(0.15 * float64(want.Dx()))).Intersect(image.Rect(0, 0, w, h))
				minX, minY, maxX, maxY := w, h, -1, -1
				for y := win.Min.Y; y < win.Max.Y; y++ {
					for x := win.Min.X; x < win.Max.X; x++ {
						i := (y*w + x) * 3
						// Black ink: dark and grey, unlike the vignetted felt.
						if hi, lo := max(b[i], b[i+1], b[i+2]), min(b[i], b[i+1], b[i+2]); hi < 70 && hi-lo < 25 {
							minX, minY = min(minX, x), min(minY, y)
							maxX, maxY = max(maxX, x), max(maxY, y)
						}
					}
				}
				if maxX < 0 {
					t.Errorf("mark %d: no black square near (%.1f, %.1f)", m.ID, cx, cy)
					continue
				}
				gx, gy := float64(minX+maxX+1)/2, float64(minY+maxY+1)/2
				if d := math.Hypot(gx-cx, gy-cy); d > 1.5 {
					t.Errorf("mark %d drawn at (%.1f, %.1f), projects to (%.1f, %.1f): %.2f px apart", m.ID, gx, gy, cx, cy, d)
				}
			}
		})
	}
}

// TestImageQuad draws one card on the bare table and checks that the
// pixels it changed are inside its ImageQuad, and that the quad is filled.
func TestImageQuad(t *testing.T) {
	l, err := NewLayout(DefaultLayoutConfig())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		card PlacedCard
	}{
		{"seat 4 first card", PlacedCard{Card: cards.MustParse("QS"), Pose: l.Seats[3].CardPose(0, 1, 0)}},
		{"seat 1, turned", PlacedCard{Card: cards.MustParse("7H"), Pose: l.Seats[0].CardPose(0, 1, 1)}},
		{"sideways double", PlacedCard{Card: cards.MustParse("9C"), Pose: l.Seats[5].DoublePose(0, 1, 2), Sideways: true}},
		{"hole card", PlacedCard{Pose: l.Dealer.CardPose(1), FaceDown: true}},
	}
	s := newScene(t, smallConfig(960, 540), 5)
	first := render(t, s, 0)
	bare := first.Clone()
	defer bare.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.SetCards([]PlacedCard{tt.card}); err != nil {
				t.Fatal(err)
			}
			frame := render(t, s, 0)
			q := s.ImageQuad(tt.card)
			var poly []Point
			for _, p := range q {
				poly = append(poly, Point{float64(p.X), float64(p.Y)})
			}
			fb, _ := frame.DataPtrUint8()
			bb, _ := bare.DataPtrUint8()
			w, h := frame.Cols(), frame.Rows()
			inside, insideChanged, strayChanged := 0, 0, 0
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					i := (y*w + x) * 3
					d := 0
					for c := 0; c < 3; c++ {
						d = max(d, absInt(int(fb[i+c])-int(bb[i+c])))
					}
					p := Point{float64(x), float64(y)}
					dist := distToPolygon(p, poly)
					in := inPolygon(p, poly)
					switch {
					case in && dist > 2:
						inside++
						if d > 30 {
							insideChanged++
						}
					case !in && dist > 4 && d > 30:
						strayChanged++
					}
				}
			}
			if inside == 0 || float64(insideChanged)/float64(inside) < 0.9 {
				t.Errorf("%d of %d pixels inside the quad changed, want >= 90%%", insideChanged, inside)
			}
			if strayChanged > 0 {
				t.Errorf("%d pixels changed more than 4 px outside the quad, want 0", strayChanged)
			}
		})
	}
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// distToPolygon is the distance from p to the polygon's outline.
func distToPolygon(p Point, poly []Point) float64 {
	best := math.Inf(1)
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		dx, dy := b.X-a.X, b.Y-a.Y
		t := ((p.X-a.X)*dx + (p.Y-a.Y)*dy) / (dx*dx + dy*dy)
		t = math.Max(0, math.Min(1, t))
		best = math.Min(best, math.Hypot(p.X-a.X-t*dx, p.Y-a.Y-t*dy))
	}
	return best
}

// TestDeterministic: the same seed gives the same bytes, whichever way the
// table got to its state, and the frame number changes only the noise.
func TestDeterministic(t *testing.T) {
	cfg := smallConfig(640, 360)
	cfg.NoiseSigma = 3
	l, _ := NewLayout(cfg.Layout)
	rng := rand.New(rand.NewPCG(9, 9))
	placed, occ := fullTable(l, rng)

	a := newScene(t, cfg, 42)
	if err := a.SetCards(placed); err != nil {
		t.Fatal(err)
	}
	a.SetOccluders(occ)
	// b reaches the same table by dealing one card at a time, with a
	// card that comes and goes on the way.
	b := newScene(t, cfg, 42)
	for i := range placed {
		if err := b.SetCards(placed[:i+1]); err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			extra := append(append([]PlacedCard(nil), placed[:i+1]...), PlacedCard{Card: cards.MustParse("KD"), Pose: l.Seats[6].CardPose(0, 1, 0)})
			if err := b.SetCards(extra); err != nil {
				t.Fatal(err)
			}
		}
	}
	b.SetOccluders(occ)
	c := newScene(t, cfg, 43)
	if err := c.SetCards(placed); err != nil {
		t.Fatal(err)
	}
	c.SetOccluders(occ)

	fa, fb := render(t, a, 7), render(t, b, 7)
	fa8 := render(t, a, 8)
	fc := render(t, c, 7)
	tests := []struct {
		name string
		x, y gocv.Mat
		same bool
	}{
		{"same seed, same frame", fa, fb, true},
		{"same seed, next frame", fa, fa8, false},
		{"other seed", fa, fc, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bytes.Equal(tt.x.ToBytes(), tt.y.ToBytes()); got != tt.same {
				t.Errorf("frames equal = %v, want %v", got, tt.same)
			}
		})
	}
}

func TestCalibrationFile(t *testing.T) {
	s := newScene(t, smallConfig(640, 360), 1)
	path := filepath.Join(t.TempDir(), "calibration.json")
	if err := s.WriteCalibration(path); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got Calibration
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Marks) < 4 || len(got.Seats) != 7 || len(got.Dealer.Polygon) < 3 {
		t.Errorf("calibration has %d marks, %d seats, dealer polygon of %d points; want >= 4, 7, >= 3",
			len(got.Marks), len(got.Seats), len(got.Dealer.Polygon))
	}
	if got.ImageWidth != 640 || got.ImageHeight != 360 || got.Dictionary != "DICT_4X4_50" {
		t.Errorf("calibration image %dx%d, dictionary %q; want 640x360, DICT_4X4_50", got.ImageWidth, got.ImageHeight, got.Dictionary)
	}
	// The stored truth reproduces Project.
	tr := got.Truth
	for _, m := range got.Marks {
		p := m.Center
		h := tr.Homography
		w := h[2][0]*p[0] + h[2][1]*p[1] + h[2][2]
		u, v := (h[0][0]*p[0]+h[0][1]*p[1]+h[0][2])/w, (h[1][0]*p[0]+h[1][1]*p[1]+h[1][2])/w
		xn, yn := (u-tr.Cx)/tr.Fx, (v-tr.Cy)/tr.Fx
		r2 := xn*xn + yn*yn
		k := 1 + tr.K1*r2 + tr.K2*r2*r2
		x, y := tr.Fx*xn*k+tr.Cx, tr.Fx*yn*k+tr.Cy
		wx, wy := s.Camera().Project(Point{p[0], p[1]})
		if math.Hypot(x-wx, y-wy) > 1e-6 {
			t.Errorf("mark %d: calibration truth gives (%.3f, %.3f), Project (%.3f, %.3f)", m.ID, x, y, wx, wy)
		}
	}
}

func TestVideo(t *testing.T) {
	s := newScene(t, smallConfig(320, 180), 2)
	path := filepath.Join(t.TempDir(), "clip.mp4")
	v, err := video.Create(path, 25, 320, 180, video.DefaultCRF)
	if err != nil {
		t.Fatal(err)
	}
	frame := gocv.NewMat()
	defer frame.Close()
	for i := 0; i < 5; i++ {
		if err := s.Render(&frame, i); err != nil {
			t.Fatal(err)
		}
		if err := v.Write(frame); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() == 0 {
		t.Fatalf("no video written: %v", err)
	}
	t.Logf("codec %s, %d bytes", v.Codec, st.Size())
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"tilt over 35°", func(c *Config) { c.Camera.TiltDeg = 36 }},
		{"tiny image", func(c *Config) { c.Camera.Width = 10 }},
		{"no seats", func(c *Config) { c.Layout.Seats = 0 }},
		{"three marks", func(c *Config) { c.Layout.Marks = c.Layout.Marks[:3] }},
		{"negative noise", func(c *Config) { c.NoiseSigma = -1 }},
		{"no deck", func(c *Config) { c.Deck = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.edit(&cfg)
			if err := cfg.Validate(); err == nil {
				t.Errorf("Validate() = nil, want an error")
			}
		})
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("DefaultConfig().Validate() = %v", err)
	}
}

// TestNoDiscards checks that the discard holder, a red card back in a
// pale tray at table mm (-445, 92), is drawn on a table and left off with
// NoDiscards (the enrolment stills, whose spades row reaches under it).
func TestNoDiscards(t *testing.T) {
	for _, off := range []bool{false, true} {
		cfg := smallConfig(960, 540)
		cfg.NoChips, cfg.NoDiscards = true, off
		s := newScene(t, cfg, 3)
		frame := render(t, s, 0)
		x, y := s.Camera().Project(Point{X: -445, Y: 92})
		p := frame.GetVecbAt(int(y), int(x))
		red := int(p[2]) > int(p[1])+40 && int(p[2]) > int(p[0])+40
		if red == off {
			t.Errorf("NoDiscards %v: pixel (%.0f, %.0f) at the holder's card is BGR %v, red %v", off, x, y, p, red)
		}
	}
}

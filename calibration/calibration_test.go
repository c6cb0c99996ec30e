package calibration

import (
	"errors"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/scene"
)

// render draws an empty table with the given camera and returns the frame
// (the caller closes it), the table file the scene describes, and the
// scene's true camera.
func render(tb testing.TB, cam scene.CameraConfig) (gocv.Mat, *Table, *scene.Camera) {
	tb.Helper()
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { art.Close() })
	cfg := scene.DefaultConfig()
	cfg.Camera = cam
	s, err := scene.New(cfg, art, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	path := filepath.Join(tb.TempDir(), "table.json")
	if err := s.WriteCalibration(path); err != nil {
		tb.Fatal(err)
	}
	t, err := Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	frame := gocv.NewMat()
	if err := s.Render(&frame, 0); err != nil {
		frame.Close()
		tb.Fatal(err)
	}
	return frame, t, s.Camera()
}

func cameras() map[string]scene.CameraConfig {
	straight := scene.DefaultCameraConfig()
	straight.TiltDeg, straight.K1 = 0, 0
	tilted := scene.DefaultCameraConfig()
	tilted.TiltDeg, tilted.TiltAzimuthDeg, tilted.YawDeg = 20, 30, 4
	uhd := scene.DefaultCameraConfig()
	uhd.Width, uhd.Height = 3840, 2160
	barrel := scene.DefaultCameraConfig()
	barrel.K1 = -0.15
	return map[string]scene.CameraConfig{
		"1080p default": scene.DefaultCameraConfig(),
		"straight down": straight,
		"tilted 20°":    tilted,
		"4K":            uhd,
		"strong barrel": barrel,
	}
}

// The solved mapping agrees with the camera the scene was rendered with,
// over the whole card area.
func TestSolveRecoversCamera(t *testing.T) {
	for name, cam := range cameras() {
		t.Run(name, func(t *testing.T) {
			frame, table, truth := render(t, cam)
			defer frame.Close()
			c, err := Solve(frame, table)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range c.Missing {
				for _, m := range table.Marks {
					if m.ID != id {
						continue
					}
					inside := true
					for _, p := range m.Corners {
						x, y := truth.Project(scene.Point{X: p.X, Y: p.Y})
						inside = inside && x >= 10 && y >= 10 && x < float64(cam.Width-10) && y < float64(cam.Height-10)
					}
					if inside {
						t.Errorf("mark %d is wholly in the picture but was not found", id)
					}
				}
			}
			worstMM, worstPx := 0.0, 0.0
			for _, z := range append(table.Seats, table.Dealer) {
				for _, p := range z.Polygon {
					x, y := truth.Project(scene.Point{X: p.X, Y: p.Y})
					if x < 0 || y < 0 || x >= float64(cam.Width) || y >= float64(cam.Height) {
						continue // outside the picture
					}
					q := c.ToTable(x, y)
					worstMM = math.Max(worstMM, math.Hypot(q.X-p.X, q.Y-p.Y))
					gx, gy := c.ToImage(p)
					worstPx = math.Max(worstPx, math.Hypot(gx-x, gy-y))
				}
			}
			t.Logf("RMS at the marks %.2f mm; worst zone corner %.2f mm, %.2f px; %.2f px/mm at the dealer", c.RMS, worstMM, worstPx, c.PxPerMM(table.Dealer.Polygon[0]))
			if worstMM > 3 {
				t.Errorf("zone corners off by up to %.2f mm, want at most 3", worstMM)
			}
		})
	}
}

func TestFromCorrespondencesExact(t *testing.T) {
	table := testTable(t)
	truth := &Calibration{Table: table, cx: 960, cy: 540, norm: math.Hypot(1920, 1080) / 2, k: -0.05}
	truth.hInv = [3][3]float64{{1.5, 0.1, 960}, {-0.05, 1.45, 300}, {0.00001, 0.00002, 1}}
	truth.h, _ = invert(truth.hInv)
	var pts []Correspondence
	for _, m := range table.Marks {
		for _, p := range m.Corners {
			x, y := truth.ToImage(p)
			pts = append(pts, Correspondence{Table: p, X: x, Y: y})
		}
	}
	c, err := FromCorrespondences(table, pts)
	if err != nil {
		t.Fatal(err)
	}
	if c.RMS > 0.01 || math.Abs(c.k-truth.k) > 0.002 {
		t.Errorf("RMS %.4f mm, k %.4f; want about 0 and %.4f", c.RMS, c.k, truth.k)
	}
	for _, p := range []Point{{0, 300}, {-500, 100}, {400, 550}} {
		x, y := truth.ToImage(p)
		if q := c.ToTable(x, y); math.Hypot(q.X-p.X, q.Y-p.Y) > 0.05 {
			t.Errorf("ToTable(ToImage(%v)) = %v", p, q)
		}
	}
}

func TestSolveErrorsSayWhatToFix(t *testing.T) {
	frame, table, _ := render(t, scene.DefaultCameraConfig())
	defer frame.Close()

	t.Run("marks covered", func(t *testing.T) {
		covered := frame.Clone()
		defer covered.Close()
		for _, m := range table.Marks[1:] {
			x, y := 0.0, 0.0
			for _, p := range m.Corners {
				px, py := trueProject(t, table, p)
				x, y = x+px/4, y+py/4
			}
			gocv.Circle(&covered, imagePt(x, y), 60, color.RGBA{R: 30, G: 90, B: 40, A: 255}, -1)
		}
		_, err := Solve(covered, table)
		if !errors.Is(err, ErrCalibration) || !strings.Contains(err.Error(), "found 1 reference marks") || !strings.Contains(err.Error(), "nothing covers them") {
			t.Errorf("Solve = %v, want an error saying one mark was found and to uncover the marks", err)
		}
	})
	// Four marks fix a homography exactly, so a mark moved as a whole
	// goes unnoticed; one measured at the wrong size does not.
	t.Run("mark measured wrong", func(t *testing.T) {
		moved := *table
		moved.Marks = append([]Mark(nil), table.Marks...)
		m := &moved.Marks[0]
		for i, p := range m.Corners {
			m.Corners[i] = Point{m.Center.X + 1.5*(p.X-m.Center.X), m.Center.Y + 1.5*(p.Y-m.Center.Y)}
		}
		_, err := Solve(frame, &moved)
		if !errors.Is(err, ErrCalibration) || !strings.Contains(err.Error(), "re-measure") {
			t.Errorf("Solve = %v, want an error saying to re-measure the marks", err)
		}
	})
	t.Run("wrong resolution", func(t *testing.T) {
		small := gocv.NewMat()
		defer small.Close()
		gocv.Resize(frame, &small, imagePt(960, 540), 0, 0, gocv.InterpolationArea)
		_, err := Solve(small, table)
		if err == nil || !strings.Contains(err.Error(), "image_width") {
			t.Errorf("Solve = %v, want an error naming image_width", err)
		}
	})
	t.Run("empty frame", func(t *testing.T) {
		empty := gocv.NewMat()
		defer empty.Close()
		if _, err := Solve(empty, table); !errors.Is(err, ErrCalibration) {
			t.Errorf("Solve(empty) = %v", err)
		}
	})
}

// trueProject maps a table point through the scene's recorded camera, to
// place test occluders.
func trueProject(tb testing.TB, t *Table, p Point) (float64, float64) {
	tb.Helper()
	c, err := FromCorrespondences(t, cornersThrough(tb, t))
	if err != nil {
		tb.Fatal(err)
	}
	return c.ToImage(p)
}

func cornersThrough(tb testing.TB, t *Table) []Correspondence {
	tb.Helper()
	var truth struct {
		Homography [3][3]float64 `json:"homography"`
	}
	if err := jsonUnmarshal(t.Truth, &truth); err != nil {
		tb.Fatal(err)
	}
	var pts []Correspondence
	for _, m := range t.Marks {
		for _, p := range m.Corners {
			q := apply(truth.Homography, p)
			pts = append(pts, Correspondence{Table: p, X: q.X, Y: q.Y})
		}
	}
	return pts
}

func TestZoneAt(t *testing.T) {
	table := testTable(t)
	for _, z := range table.Seats {
		c := centre(z.Polygon)
		if seat, dealer := table.ZoneAt(c); seat != z.Seat || dealer {
			t.Errorf("ZoneAt(centre of seat %d) = %d, %v", z.Seat, seat, dealer)
		}
	}
	if _, dealer := table.ZoneAt(centre(table.Dealer.Polygon)); !dealer {
		t.Error("the dealer zone's centre is not in the dealer zone")
	}
	if seat, dealer := table.ZoneAt(Point{1e5, 1e5}); seat != 0 || dealer {
		t.Error("a point off the table is in a zone")
	}
}

func testTable(tb testing.TB) *Table {
	tb.Helper()
	t, err := Load(filepath.Join("testdata", "table.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func TestParseRejects(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "table.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, from, to, want string
	}{
		{"version", `"version": 1`, `"version": 2`, "version 2"},
		{"units", `"units": "mm"`, `"units": "in"`, `units "in"`},
		{"dictionary", `"DICT_4X4_50"`, `"DICT_7X7_50"`, "dictionary"},
		{"unknown key", `"units": "mm"`, `"units": "mm", "colour": 1`, "colour"},
		{"image size", `"image_width": 1920`, `"image_width": 0`, "image size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Replace(string(good), tt.from, tt.to, 1)
			if data == string(good) {
				t.Fatalf("testdata/table.json has no %q", tt.from)
			}
			_, err := Parse([]byte(data))
			if !errors.Is(err, ErrTable) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want an ErrTable naming %q", err, tt.want)
			}
		})
	}
	few := *testTable(t)
	few.Marks = few.Marks[:3]
	if err := few.Validate(); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("three marks: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "table.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"version":1}`))
	points, err := os.ReadFile(filepath.Join("..", "testvideos", "freebet-1080p.points.table.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(points)
	f.Add([]byte(`{"version":1,"units":"mm","image_width":640,"image_height":480,` +
		`"points":[{"px":[10,10],"mm":[0,0]},{"px":[600,12],"mm":[500,0]},{"px":[610,470],"mm":[500,400]},{"px":[5,460],"mm":[0,400]}],` +
		`"seats":[{"seat":1,"polygon":[[0,0],[100,0],[100,100]]}],"dealer":{"polygon":[[200,0],[300,0],[300,100]]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrTable) {
				t.Fatalf("Parse error %v does not wrap ErrTable", err)
			}
			return
		}
		// A table that parses must be usable: solving from its own
		// corners through any reasonable camera must not panic.
		var pts []Correspondence
		for _, m := range tab.Marks {
			for _, p := range m.Corners {
				pts = append(pts, Correspondence{Table: p, X: p.X*0.5 + 900, Y: p.Y*0.5 + 500})
			}
		}
		if c, err := FromCorrespondences(tab, pts); err == nil {
			c.ToTable(100, 100)
			c.PxPerMM(Point{})
		}
		// A table with point pairs solves from them, or says why not.
		if len(tab.Points) > 0 {
			c, err := FromPoints(tab)
			if err != nil && !errors.Is(err, ErrCalibration) {
				t.Fatalf("FromPoints error %v does not wrap ErrCalibration", err)
			}
			if err == nil {
				c.ToTable(100, 100)
				c.PairErrors()
			}
		}
		tab.ZoneAt(Point{})
	})
}

// TestOutsidePicture measures the share of a zone the camera does not
// see, on a camera that maps each table mm to one pixel.
func TestOutsidePicture(t *testing.T) {
	table := testTable(t)
	table.ImageWidth, table.ImageHeight = 1920, 1080
	c := &Calibration{Table: table, cx: 960, cy: 540, norm: math.Hypot(1920, 1080) / 2}
	c.hInv = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	c.h = c.hInv
	square := func(x0, y0, side float64) Zone {
		return Zone{Seat: 1, Polygon: []Point{{x0, y0}, {x0 + side, y0}, {x0 + side, y0 + side}, {x0, y0 + side}}}
	}
	tests := []struct {
		name string
		zone Zone
		want float64
	}{
		{"inside", square(100, 100, 200), 0},
		{"half past the right edge", square(1820, 100, 200), 0.5},
		{"a quarter past the bottom right corner", square(1820, 980, 200), 0.75},
		{"wholly outside", square(-400, 100, 200), 1},
		{"no area", Zone{Polygon: []Point{{0, 0}, {10, 10}}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.OutsidePicture(tt.zone); math.Abs(got-tt.want) > 0.03 {
				t.Errorf("OutsidePicture = %.3f, want %.3f", got, tt.want)
			}
		})
	}
}

package calibration

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/testvideos/scene"
)

// pointsTable returns the table file of the default layout filmed by cam,
// with point pairs (the layout's landmarks where cam projects them)
// instead of marks, as Parse reads it, and the camera.
func pointsTable(tb testing.TB, cam scene.CameraConfig) (*Table, *scene.Camera) {
	tb.Helper()
	l, err := scene.NewLayout(scene.DefaultLayoutConfig())
	if err != nil {
		tb.Fatal(err)
	}
	c, err := scene.NewCamera(cam)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal(scene.NewPointsCalibration(l, c, 40))
	if err != nil {
		tb.Fatal(err)
	}
	t, err := Parse(b)
	if err != nil {
		tb.Fatal(err)
	}
	return t, c
}

// zoneCornerError is the farthest, in mm, that c puts a zone corner the
// camera sees from where it is: each corner in the picture is projected
// by the true camera and mapped back with c.
func zoneCornerError(t *Table, c *Calibration, project func(Point) (float64, float64)) float64 {
	worst := 0.0
	for _, z := range append(append([]Zone(nil), t.Seats...), t.Dealer) {
		for _, p := range z.Polygon {
			x, y := project(p)
			if x < 0 || y < 0 || x >= float64(t.ImageWidth) || y >= float64(t.ImageHeight) {
				continue // outside the picture
			}
			q := c.ToTable(x, y)
			worst = math.Max(worst, math.Hypot(q.X-p.X, q.Y-p.Y))
		}
	}
	return worst
}

// The mapping solved from point pairs alone agrees with the camera the
// pairs were seen with at every zone corner in the picture, to 3 mm, also
// when each picture point is clicked up to a pixel off.
func TestFromPointsRecoversCamera(t *testing.T) {
	for name, cam := range cameras() {
		for _, clickPx := range []float64{0, 1} {
			t.Run(name+"/click "+strconv.FormatFloat(clickPx, 'f', 0, 64)+" px", func(t *testing.T) {
				table, truth := pointsTable(t, cam)
				rng := rand.New(rand.NewPCG(5, 6))
				for i := range table.Points {
					table.Points[i].Picture.X += clickPx * (2*rng.Float64() - 1)
					table.Points[i].Picture.Y += clickPx * (2*rng.Float64() - 1)
				}
				c, err := FromPoints(table)
				if err != nil {
					t.Fatal(err)
				}
				project := func(p Point) (float64, float64) { return truth.Project(scene.Point{X: p.X, Y: p.Y}) }
				got := zoneCornerError(table, c, project)
				t.Logf("%d pairs, RMS %.2f mm; worst zone corner %.2f mm", len(table.Points), c.RMS, got)
				if got > 3 {
					t.Errorf("zone corners off by up to %.2f mm, want at most 3", got)
				}
			})
		}
	}
}

// The bundled samples' points table files calibrate to within 3 mm at the
// zone corners, judged by the true camera each file records.
func TestSamplePointsTables(t *testing.T) {
	for _, name := range []string{"freebet-1080p", "classic-4k"} {
		t.Run(name, func(t *testing.T) {
			table, err := Load(filepath.Join("..", "testvideos", name+".points.table.json"))
			if err != nil {
				t.Fatal(err)
			}
			frame := gocv.NewMatWithSize(table.ImageHeight, table.ImageWidth, gocv.MatTypeCV8UC3)
			defer frame.Close()
			c, err := Solve(frame, table)
			if err != nil {
				t.Fatal(err)
			}
			got := zoneCornerError(table, c, truthProjection(t, table))
			t.Logf("%d pairs, RMS %.3f mm; worst zone corner %.3f mm", len(table.Points), c.RMS, got)
			if got > 3 {
				t.Errorf("zone corners off by up to %.2f mm, want at most 3", got)
			}
		})
	}
}

// truthProjection returns the camera a table file records in its truth:
// the homography, then the lens distortion (scene.CalibTruth).
func truthProjection(tb testing.TB, t *Table) func(Point) (float64, float64) {
	tb.Helper()
	var tr scene.CalibTruth
	if err := json.Unmarshal(t.Truth, &tr); err != nil || tr.Fx == 0 {
		tb.Fatalf("the table file records no true camera: %v", err)
	}
	return func(p Point) (float64, float64) {
		u := apply(tr.Homography, p)
		xn, yn := (u.X-tr.Cx)/tr.Fx, (u.Y-tr.Cy)/tr.Fx
		r2 := xn*xn + yn*yn
		k := 1 + tr.K1*r2 + tr.K2*r2*r2
		return tr.Fx*xn*k + tr.Cx, tr.Fx*yn*k + tr.Cy
	}
}

// offBy reads the distance FromPoints gives for the pair it names.
var offBy = regexp.MustCompile(`is ([0-9.]+) mm from where the other pairs put it`)

// FromPoints names the pair that disagrees with the others and by how
// much; four pairs fix a homography exactly and are solved as they are.
func TestFromPointsErrors(t *testing.T) {
	tests := []struct {
		name string
		pair int // 0-based; the pair moved
		move Point
	}{
		{"a chip tray corner 15 mm off", 2, Point{0, -15}},
		{"a betting circle 30 mm off", 10, Point{30, 0}},
		{"a sensor 60 mm off", 13, Point{-40, 45}},
		{"an end seat's spot 10 mm off", 5, Point{7, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, _ := pointsTable(t, scene.DefaultCameraConfig())
			p := &table.Points[tt.pair]
			p.Felt = Point{p.Felt.X + tt.move.X, p.Felt.Y + tt.move.Y}
			wantPair := fmt.Sprintf("pair %d (%s)", tt.pair+1, p.Name)
			_, err := FromPoints(table)
			if !errors.Is(err, ErrCalibration) || !strings.Contains(err.Error(), wantPair+", at") {
				t.Fatalf("FromPoints = %v, want an ErrCalibration naming %s", err, wantPair)
			}
			m := offBy.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("FromPoints = %v, want it to say by how many mm the pair is off", err)
			}
			got, _ := strconv.ParseFloat(m[1], 64)
			want := math.Hypot(tt.move.X, tt.move.Y)
			if math.Abs(got-want) > 0.15*want {
				t.Errorf("pair off by %.1f mm, want about %.1f", got, want)
			}
		})
	}
	t.Run("four pairs", func(t *testing.T) {
		table, truth := pointsTable(t, scene.DefaultCameraConfig())
		// The chip tray's top corners and seats 2 and 6's sensors.
		table.Points = []PointPair{table.Points[0], table.Points[1], table.Points[9], table.Points[25]}
		c, err := FromPoints(table)
		if err != nil {
			t.Fatal(err)
		}
		// No lens term: the dealer's zone, between the four, is close.
		project := func(p Point) (float64, float64) { return truth.Project(scene.Point{X: p.X, Y: p.Y}) }
		dealer := &Table{ImageWidth: table.ImageWidth, ImageHeight: table.ImageHeight, Dealer: table.Dealer}
		if got := zoneCornerError(dealer, c, project); got > 3 {
			t.Errorf("dealer zone corners off by up to %.2f mm, want at most 3", got)
		}
	})
}

// Table files with points that cannot calibrate are rejected with an
// error naming the field.
func TestParsePointsRejects(t *testing.T) {
	marks := testTable(t).Marks
	tests := []struct {
		name string
		edit func(*Table)
		want string
	}{
		{"three pairs", func(t *Table) { t.Points = t.Points[:3] }, "points: 3 pairs: want at least 4"},
		{"neither marks nor points", func(t *Table) { t.Points = nil }, `no marks and no points: give "marks"`},
		{"both marks and points", func(t *Table) { t.Marks = marks }, "both marks and points"},
		{"in a line", func(t *Table) {
			for i := range t.Points {
				t.Points[i].Felt = Point{float64(100 * i), 300 + 0.5*float64(i)}
				t.Points[i].Picture = Point{float64(20 + 60*i), 500 + float64(i%2)}
			}
		}, "lie in a line"},
		{"picture points in a line", func(t *Table) {
			for i := range t.Points {
				t.Points[i].Picture = Point{float64(20 + 60*i), 500}
			}
		}, "lie in a line"},
		{"four pairs, three of them in a line", func(t *Table) {
			t.Points = t.Points[:4] // the chip tray's corners
			t.Points[1].Felt = Point{0, 61}
		}, "pairs 1, 2 and 3 lie in a line"},
		{"outside the picture", func(t *Table) { t.Points[5].Picture.X = 1921 }, "outside the 1920x1080 picture"},
		{"the same point twice", func(t *Table) { t.Points[7] = t.Points[6] }, "pairs 7 (seat 2, betting circle centre) and 8 (seat 2, betting circle centre) are the same point"},
		{"not a number", func(t *Table) { t.Points[0].Felt.X = math.NaN() }, "is not a number"},
		{"bad dictionary", func(t *Table) { t.Dictionary = "DICT_7X7_50" }, "dictionary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, _ := pointsTable(t, scene.DefaultCameraConfig())
			tt.edit(table)
			if err := table.Validate(); !errors.Is(err, ErrTable) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want an ErrTable containing %q", err, tt.want)
			}
		})
	}
}

// Solve takes a points table's mapping from its pairs, after checking the
// frame is the camera's.
func TestSolveFromPoints(t *testing.T) {
	table, _ := pointsTable(t, scene.DefaultCameraConfig())
	tests := []struct {
		name          string
		width, height int
		want          string // in the error; empty: solved
	}{
		{"the camera's size", 1920, 1080, ""},
		{"another size", 960, 540, "image_width"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frame := gocv.NewMatWithSize(tt.height, tt.width, gocv.MatTypeCV8UC3)
			defer frame.Close()
			c, err := Solve(frame, table)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Solve = %v", err)
			case tt.want == "" && (c.RMS > 0.5 || len(c.PairErrors()) != len(table.Points)):
				t.Errorf("Solve: RMS %.2f mm, %d pair errors; want under 0.5 mm, %d", c.RMS, len(c.PairErrors()), len(table.Points))
			case tt.want != "" && (!errors.Is(err, ErrCalibration) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Solve = %v, want an ErrCalibration naming %q", err, tt.want)
			}
		})
	}
}

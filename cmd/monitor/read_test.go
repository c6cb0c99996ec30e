package main

import (
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/internal/golden"

	"gocv.io/x/gocv"
)

// TestReadStills reads the enrolment still (a whole deck laid out face
// up, no calibration given) and a file that is not there: the missing
// file is named with its error, the still is still read, and the exit
// status says one picture failed.
func TestReadStills(t *testing.T) {
	useBundledModels(t)
	still := filepath.Join("..", "..", "testvideos", "enroll-layout.jpg")
	missing := filepath.Join(t.TempDir(), "missing.png")
	stdout, stderr, err := run(t, "read", "--json", still, missing)
	if !errors.Is(err, errSomeUnread) || exitCode(err) != 1 {
		t.Errorf("monitor read: %v (exit status %d), want errSomeUnread and 1", err, exitCode(err))
	}
	if !strings.Contains(stderr, missing) {
		t.Errorf("stderr %q does not name %s", stderr, missing)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d JSON lines, want 2:\n%s", len(lines), stdout)
	}
	var got, bad readResult
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &bad); err != nil {
		t.Fatal(err)
	}
	if bad.Error == "" || bad.Image != missing {
		t.Errorf("the missing picture's result %+v, want its error", bad)
	}
	seen := map[string]bool{}
	for _, c := range got.Cards {
		if _, err := cards.Parse(c.Card); err == nil && c.Confidence >= 0.75 {
			seen[c.Card] = true
		}
	}
	// The layout holds each of the 52 cards once.
	if len(seen) < 51 {
		t.Errorf("read %d distinct cards confidently of the 52 laid out (%d cards, %s, %.2f px/mm)", len(seen), len(got.Cards), got.Plane, got.PxPerMM)
	}
}

// TestReadDealtStill reads the sample still of a dealt table (a held-out
// deck, 13° oblique, every camera fault) and compares the table it
// prints with the golden file; regenerate with -update. Every card of
// the picture is in it, read right.
func TestReadDealtStill(t *testing.T) {
	useBundledModels(t)
	still := filepath.Join("..", "..", "testvideos", "dealt-still.jpg")
	stdout, _, err := run(t, "read", still)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "read-dealt-still.golden.txt"), stdout)
}

// TestReadScaleOutOfRange reads the sample still at scales no card index
// can be read at or rectified at: each is refused for the picture with
// an error that names the scale, and the exit status says so.
func TestReadScaleOutOfRange(t *testing.T) {
	useBundledModels(t)
	still := filepath.Join("..", "..", "testvideos", "dealt-still.jpg")
	for px, named := range map[string]string{"0.2": "0.20 px/mm", "12": "12.00 px/mm"} {
		t.Run(px, func(t *testing.T) {
			_, stderr, err := run(t, "read", "--px-per-mm", px, still)
			if !errors.Is(err, errSomeUnread) || exitCode(err) != 1 {
				t.Errorf("monitor read: %v (exit status %d), want errSomeUnread and 1", err, exitCode(err))
			}
			if !strings.Contains(stderr, still) || !strings.Contains(stderr, named) {
				t.Errorf("stderr %q does not name the picture and %s", stderr, named)
			}
		})
	}
}

// TestPrintRead checks the short table's lines: a card in doubt names
// its rivals, a card read sideways says so, a card with a table file
// gives its centre in mm.
func TestPrintRead(t *testing.T) {
	quad := [4][2]float64{{100, 200}, {140, 200}, {140, 260}, {100, 260}}
	r := readResult{Image: "a.jpg", Plane: "flat", PxPerMM: 1.66, Cards: []readCard{
		{Card: "2S", Confidence: 0.7, QuadPx: quad, Rivals: []string{"2C"}},
		{Card: "9H", Confidence: 0.97, QuadPx: quad, Sideways: true},
		{Card: "??", QuadPx: quad, QuadMM: [][2]float64{{0, 0}, {63, 0}, {63, 88}, {0, 88}}},
	}}
	var b strings.Builder
	printRead(&b, r)
	want := `a.jpg: 3 cards (flat, 1.66 px/mm at the centre)
  2S   0.70  or 2C  at (120, 230) px
  9H   0.97  at (120, 230) px  sideways
  ??   0.00  at (120, 230) px  (32, 44) mm
`
	if b.String() != want {
		t.Errorf("printRead wrote\n%s\nwant\n%s", b.String(), want)
	}
}

// TestReadAnnotate reads the sample still with --annotate: the picture
// is written, its size kept, with the readings drawn over it; each
// card's label names its rivals where it is in doubt.
func TestReadAnnotate(t *testing.T) {
	useBundledModels(t)
	still := filepath.Join("..", "..", "testvideos", "dealt-still.jpg")
	dir := t.TempDir()
	if _, _, err := run(t, "read", "--annotate", dir, still); err != nil {
		t.Fatal(err)
	}
	in := gocv.IMRead(still, gocv.IMReadColor)
	defer in.Close()
	out := gocv.IMRead(filepath.Join(dir, "dealt-still.read.jpg"), gocv.IMReadColor)
	defer out.Close()
	if out.Empty() || out.Rows() != in.Rows() || out.Cols() != in.Cols() {
		t.Fatalf("the annotated picture is %dx%d, want %dx%d", out.Cols(), out.Rows(), in.Cols(), in.Rows())
	}
	// Twelve outlines 2 px wide, some 400 px round, and their labels.
	if n := drawnOver(in, out, 60); n < 12*2*400 {
		t.Errorf("%d pixels drawn over, want the outlines of 12 cards at least", n)
	}
	for _, tt := range []struct {
		c    readCard
		want string
	}{
		{readCard{Card: "9H", Confidence: 0.974}, "9H 0.97"},
		{readCard{Card: "2S", Confidence: 0.7, Rivals: []string{"2C"}}, "2S/2C 0.70"},
		{readCard{Card: "6D", Confidence: 0.7, Rivals: []string{"9D", "6H"}}, "6D/9D/6H 0.70"},
	} {
		if got := readLabel(tt.c); got != tt.want {
			t.Errorf("readLabel(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}

// drawnOver counts the pixels where picture b differs from a by more
// than least grey levels: what was drawn over a.
func drawnOver(a, b gocv.Mat, least float32) int {
	diff := gocv.NewMat()
	defer diff.Close()
	gocv.AbsDiff(a, b, &diff)
	grey := gocv.NewMat()
	defer grey.Close()
	gocv.CvtColor(diff, &grey, gocv.ColorBGRToGray)
	gocv.Threshold(grey, &grey, least, 255, gocv.ThresholdBinary)
	return gocv.CountNonZero(grey)
}

// TestReadOnTheTable reads the enrolment still with its table file: each
// card is placed on the table, in mm, where the scene laid it.
func TestReadOnTheTable(t *testing.T) {
	e := enrolStill(t, nil)
	stdout, stderr, err := run(t, "read", "--json", e.Image, "--config", e.Config)
	if err != nil {
		t.Fatalf("read: %v\n%s", err, stderr)
	}
	var r readResult
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("read --json printed %q: %v", stdout, err)
	}
	if r.Plane != "table file" {
		t.Errorf("plane %q, want the table file's", r.Plane)
	}
	at := map[string][2]float64{}
	for _, c := range r.Cards {
		if len(c.QuadMM) != 4 {
			t.Fatalf("%s: %d corners in mm, want 4", c.Card, len(c.QuadMM))
		}
		var x, y float64
		for _, q := range c.QuadMM {
			x, y = x+q[0]/4, y+q[1]/4
		}
		at[c.Card] = [2]float64{x, y}
	}
	placed := 0
	for _, pc := range e.Cards {
		got, ok := at[pc.Card.String()]
		if !ok {
			continue
		}
		if d := math.Hypot(got[0]-pc.Pose.Center.X, got[1]-pc.Pose.Center.Y); d > 3 {
			t.Errorf("%v placed at (%.1f, %.1f) mm, %.1f mm from where it lies", pc.Card, got[0], got[1], d)
			continue
		}
		placed++
	}
	if placed < 51 {
		t.Errorf("%d of the 52 cards placed within 3 mm, want 51 at least", placed)
	}
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/testvideos/scene"
)

// TestCalibratePoints calibrates the fixture's frame from a table file
// with point pairs instead of marks: the default layout's landmarks where
// the scene's camera sees them. It checks what is printed and that each
// pair is drawn; with one pair moved 30 mm on the felt, the error names
// that pair and the pairs are still drawn.
func TestCalibratePoints(t *testing.T) {
	dir := tableFixture(t)
	l, err := scene.NewLayout(scene.DefaultLayoutConfig())
	if err != nil {
		t.Fatal(err)
	}
	cam, err := scene.NewCamera(scene.DefaultCameraConfig())
	if err != nil {
		t.Fatal(err)
	}
	good := scene.NewPointsCalibration(l, cam, 40)
	moved := good
	moved.Points = append([]scene.CalibPoint(nil), good.Points...)
	moved.Points[10].Table[0] += 30
	tests := []struct {
		name    string
		rec     scene.Calibration
		wantOut string // in stdout, when it solves
		wantErr string // in the error, when it does not
	}{
		{"pairs as the camera sees them", good, fmt.Sprintf("calibration: %d point pairs, error 0.00 mm", len(good.Points)), ""},
		{"one pair moved 30 mm", moved, "", fmt.Sprintf("pair 11 (%s), at", good.Points[10].Name)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := filepath.Join(t.TempDir(), "points.json")
			if err := tt.rec.Write(table); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "overlay.png")
			stdout, stderr, err := run(t, "calibrate", "--frame", filepath.Join(dir, "frame.png"), "--table", table, "--out", out)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("calibrate: %v\n%s", err, stderr)
			case tt.wantErr == "" && (!strings.Contains(stdout, tt.wantOut) || !strings.Contains(stdout, "seat 7: ")):
				t.Errorf("calibrate printed %q, want %q and seat 7's zone out of view", stdout, tt.wantOut)
			case tt.wantErr != "" && (!errors.Is(err, calibration.ErrCalibration) || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "point pairs are drawn in")):
				t.Errorf("calibrate = %v, want an ErrCalibration naming %q and saying the pairs are drawn", err, tt.wantErr)
			}
			checkPairsDrawn(t, filepath.Join(dir, "frame.png"), out, tt.rec.Points)
		})
	}
}

// checkPairsDrawn checks that the overlay differs from the frame around
// each pair's picture point.
func checkPairsDrawn(t *testing.T, framePath, overlayPath string, pts []scene.CalibPoint) {
	t.Helper()
	frame := gocv.IMRead(framePath, gocv.IMReadColor)
	defer frame.Close()
	overlay := gocv.IMRead(overlayPath, gocv.IMReadColor)
	defer overlay.Close()
	if overlay.Empty() || overlay.Cols() != frame.Cols() || overlay.Rows() != frame.Rows() {
		t.Fatal("no overlay of the frame's size was written")
	}
	for i, p := range pts {
		x, y := int(math.Round(p.Picture[0])), int(math.Round(p.Picture[1]))
		r := image.Rect(x-8, y-8, x+9, y+9).Intersect(image.Rect(0, 0, frame.Cols(), frame.Rows()))
		a, b := frame.Region(r), overlay.Region(r)
		diff := gocv.NewMat()
		gocv.AbsDiff(a, b, &diff)
		gray := gocv.NewMat()
		gocv.CvtColor(diff, &gray, gocv.ColorBGRToGray)
		if n := gocv.CountNonZero(gray); n < 10 {
			t.Errorf("pair %d (%s) at %.0f,%.0f px: the overlay differs from the frame in %d pixels around it; it is not drawn", i+1, p.Name, p.Picture[0], p.Picture[1], n)
		}
		gray.Close()
		diff.Close()
		b.Close()
		a.Close()
	}
}

// TestReplayPointsTable replays the bundled samples with table files that
// calibrate from point pairs instead of marks (testvideos/NAME.points.
// table.json: landmarks where the rendering camera projects them; see
// scene.TestSamplePointsTables) and compares the rounds, outcomes and
// alerts with the golden files of the replays with marks.
func TestReplayPointsTable(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	for _, name := range []string{"freebet-1080p", "classic-4k"} {
		t.Run(name, func(t *testing.T) {
			table, err := filepath.Abs(sample(name, "points.table.json"))
			if err != nil {
				t.Fatal(err)
			}
			got, _, stderr, err := replaySample(t, name, sample(name, "events.jsonl"), sample(name, "mp4"), "--table", table)
			if err != nil {
				t.Fatalf("replay: %v\n%s", err, stderr)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "replay-"+name+".golden.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resultsDiff(got, string(want)) {
				t.Error(d)
			}
		})
	}
}

// Tolerances on what another calibration of the same camera may move in a
// replay's results: card positions on the table. Crops cut from pixels
// shifted by a few tenths of a mm change the model's confidence in a
// reading, and so the frame a half-covered card is first counted in:
// those two are not compared. A card's position follows the readings of
// the frames it lies still in, each of which may put it a few mm off
// (read at its far corner, or from a sharper picture on a second look),
// so two replays place a card up to some 4 mm apart where each lies
// within 2.5 mm of where the clip's truth has it. The cards, their
// places, the outcomes and the alerts (kind, severity, amounts) must be
// the same.
const (
	atToleranceMM        = 4
	maxDifferencesListed = 10
)

// resultsDiff compares two replays' results (JSON lines) record by record
// and returns their differences: every field must be equal, except card
// positions ("at", each coordinate), which may differ by atToleranceMM,
// and confidences and frames, which are not compared.
func resultsDiff(got, want string) []string {
	g, w := strings.Split(strings.TrimSpace(got), "\n"), strings.Split(strings.TrimSpace(want), "\n")
	var diffs []string
	if len(g) != len(w) {
		diffs = append(diffs, fmt.Sprintf("%d records, want %d", len(g), len(w)))
	}
	for i := range min(len(g), len(w)) {
		var a, b any
		if err := json.Unmarshal([]byte(g[i]), &a); err != nil {
			return append(diffs, fmt.Sprintf("record %d: %v", i+1, err))
		}
		if err := json.Unmarshal([]byte(w[i]), &b); err != nil {
			return append(diffs, fmt.Sprintf("golden record %d: %v", i+1, err))
		}
		diffs = append(diffs, valueDiff(fmt.Sprintf("record %d", i+1), "", a, b)...)
		if len(diffs) >= maxDifferencesListed {
			return diffs[:maxDifferencesListed]
		}
	}
	return diffs
}

// valueDiff compares two decoded JSON values at path; key is the name of
// the field that holds them.
func valueDiff(path, key string, got, want any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(w)) {
			out = append(out, valueDiff(path+"."+k, k, g[k], w[k])...)
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: %v, want none", path, k, g[k]))
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
		}
		var out []string
		for i := range w {
			out = append(out, valueDiff(fmt.Sprintf("%s[%d]", path, i), key, g[i], w[i])...)
		}
		return out
	case float64:
		g, ok := got.(float64)
		tol := 0.0
		switch key {
		case "at":
			tol = atToleranceMM
		case "confidence", "frame":
			return nil
		}
		if !ok || math.Abs(g-w) > tol {
			return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
		}
		return nil
	}
	if got != want {
		return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
	}
	return nil
}

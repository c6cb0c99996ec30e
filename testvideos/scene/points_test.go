package scene

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the bundled samples' points table files")

// pointsMargin keeps a sample's landmarks this many pixels inside the
// picture, where an installer would click them whole.
const pointsMargin = 40

// TestSamplePointsTables checks each bundled sample's points table file
// (NAME.points.table.json): the sample's zones with point pairs instead of
// marks, each pair a landmark of the layout and where the sample's camera
// projects it. The camera is rebuilt from the genclip flags in
// testvideos/README.md and checked against the sample's own table file,
// which it must reproduce byte for byte. With -update the points files
// are written anew.
func TestSamplePointsTables(t *testing.T) {
	tilted4K := DefaultCameraConfig()
	tilted4K.Width, tilted4K.Height = 3840, 2160
	tilted4K.TiltDeg, tilted4K.TiltAzimuthDeg = 15, 30
	tests := []struct {
		name string
		cam  CameraConfig
	}{
		{"freebet-1080p", DefaultCameraConfig()},
		{"classic-4k", tilted4K},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLayout(DefaultLayoutConfig())
			if err != nil {
				t.Fatal(err)
			}
			cam, err := NewCamera(tt.cam)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("..")
			marks, err := os.ReadFile(filepath.Join(dir, tt.name+".table.json"))
			if err != nil {
				t.Fatal(err)
			}
			if got := calibrationJSON(t, NewCalibration(l, cam)); !bytes.Equal(got, marks) {
				t.Fatalf("the layout and camera rebuilt here do not give %s.table.json: the sample was rendered with another", tt.name)
			}
			pc := NewPointsCalibration(l, cam, pointsMargin)
			if len(pc.Points) < 12 {
				t.Errorf("%d landmarks in the picture, want at least 12", len(pc.Points))
			}
			path := filepath.Join(dir, tt.name+".points.table.json")
			got := calibrationJSON(t, pc)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the landmarks as the sample's camera sees them (run with -update after checking why)", path)
			}
		})
	}
}

// calibrationJSON is a calibration record as Calibration.Write writes it.
func calibrationJSON(tb testing.TB, c Calibration) []byte {
	tb.Helper()
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return append(b, '\n')
}

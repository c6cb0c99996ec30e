package main

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/scene"
)

// tableFixture renders an empty synthetic table and writes its frame,
// table file and a config pointing at the table file into a temporary
// folder.
func tableFixture(tb testing.TB) (dir string) {
	tb.Helper()
	dir = tb.TempDir()
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer art.Close()
	s, err := scene.New(scene.DefaultConfig(), art, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	if err := s.WriteCalibration(filepath.Join(dir, "table.json")); err != nil {
		tb.Fatal(err)
	}
	frame := gocv.NewMat()
	defer frame.Close()
	if err := s.Render(&frame, 0); err != nil {
		tb.Fatal(err)
	}
	if !gocv.IMWrite(filepath.Join(dir, "frame.png"), frame) {
		tb.Fatal("cannot write the frame")
	}
	if err := os.WriteFile(filepath.Join(dir, "monitor.yaml"), []byte("table:\n  calibration: table.json\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func TestCalibrate(t *testing.T) {
	dir := tableFixture(t)
	out := filepath.Join(dir, "overlay.png")
	stdout, stderr, err := run(t, "calibrate", "--frame", filepath.Join(dir, "frame.png"), "--config", filepath.Join(dir, "monitor.yaml"), "--out", out)
	if err != nil {
		t.Fatalf("calibrate: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "4 of 4 marks found") {
		t.Errorf("calibrate printed %q, want it to report 4 of 4 marks", stdout)
	}
	// The default scene's camera cuts off the outer ends of seats 1 and
	// 7, and sees the middle seat's zone whole.
	for _, seat := range []string{"seat 1: ", "seat 7: "} {
		if !strings.Contains(stdout, seat) || !strings.Contains(stdout, "lies outside the camera's picture") {
			t.Errorf("calibrate printed %q, want it to say that %s zone lies partly outside the picture", stdout, strings.TrimSuffix(seat, ": "))
		}
	}
	if strings.Contains(stdout, "seat 3: ") {
		t.Errorf("calibrate printed %q: seat 3's zone lies wholly in the picture", stdout)
	}
	overlay := gocv.IMRead(out, gocv.IMReadColor)
	defer overlay.Close()
	frame := gocv.IMRead(filepath.Join(dir, "frame.png"), gocv.IMReadColor)
	defer frame.Close()
	if overlay.Empty() || overlay.Cols() != frame.Cols() {
		t.Fatal("no overlay of the frame's size was written")
	}
	if n := drawnOver(frame, overlay, 0); n < 5000 {
		t.Errorf("the overlay differs from the frame in %d pixels; nothing was drawn", n)
	}
}

func TestCalibrateErrors(t *testing.T) {
	dir := tableFixture(t)
	frame := filepath.Join(dir, "frame.png")
	cfg := filepath.Join(dir, "monitor.yaml")
	out := filepath.Join(dir, "o.png")
	blank := filepath.Join(dir, "blank.png")
	img := gocv.NewMatWithSize(1080, 1920, gocv.MatTypeCV8UC3)
	gocv.IMWrite(blank, img)
	img.Close()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no table file configured", []string{"--frame", frame, "--out", out}, "table.calibration"},
		{"missing table file", []string{"--frame", frame, "--table", filepath.Join(dir, "nope.json"), "--out", out}, "nope.json"},
		{"unreadable frame", []string{"--frame", filepath.Join(dir, "nope.png"), "--config", cfg, "--out", out}, "cannot read the image"},
		{"no marks in view", []string{"--frame", blank, "--config", cfg, "--out", out}, "found 0 reference marks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := run(t, append([]string{"calibrate"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("calibrate = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
	if _, _, err := run(t, "calibrate", "--frame", frame); !errors.Is(err, errUsage) {
		t.Errorf("calibrate without --out = %v, want a usage error", err)
	}
}

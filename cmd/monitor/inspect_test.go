package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/vision/classify"
)

// TestInspect shows the first card of the 1080p sample (a 7♠ at seat 2,
// placed at frame 54, its centre at table point 343.7, 349.0) as vision
// read it: its corners read as 7S, the card made of them with what its
// pips say, and each corner's crop written as the model saw it.
func TestInspect(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	crops := t.TempDir()
	stdout := inspectSample(t, "--events", abs(t, sample("freebet-1080p", "events.jsonl")),
		"--frames", "50:80", "--at", "343.7,349.0", "--radius", "60", "--crops", crops)
	if !strings.Contains(stdout, "card 7S") {
		t.Errorf("no 7S card shown:\n%s", stdout)
	}
	// It lies alone, whole: its seven pips are counted, their suit read.
	if !strings.Contains(stdout, ", pips 7S") {
		t.Errorf("no pips shown for the 7S:\n%s", stdout)
	}
	corners := 0
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.Contains(line, "corner (") {
			continue
		}
		corners++
		if !strings.Contains(line, "7S") {
			t.Errorf("a corner near the lone 7S read otherwise: %q", line)
		}
		name := line[strings.LastIndex(line, "→ ")+len("→ "):]
		img := gocv.IMRead(filepath.Join(crops, name), gocv.IMReadColor)
		if img.Cols() != classify.CropCols || img.Rows() != classify.CropRows {
			t.Errorf("crop %s is %dx%d, want %dx%d", name, img.Cols(), img.Rows(), classify.CropCols, classify.CropRows)
		}
		img.Close()
	}
	if corners == 0 {
		t.Errorf("no corner shown:\n%s", stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		var f int
		if _, err := fmt.Sscanf(line, "frame %d", &f); err == nil && (f < 50 || f > 80) {
			t.Errorf("frame %d shown, outside frames 50:80", f)
		}
	}
}

// TestInspectEvery checks that --every shows the frames where no zone was
// read, with the cards held from before, and that without it those frames
// are left out.
func TestInspectEvery(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	frames := func(extra ...string) int {
		return strings.Count(inspectSample(t, append([]string{"--frames", "60:120", "--at", "343.7,349.0"}, extra...)...), "frame ")
	}
	some, every := frames(), frames("--every")
	// The sample is read on one frame in two: 61 frames, some 30 read.
	if some == 0 || every <= some || every > 31 {
		t.Errorf("frames shown: %d, with --every %d; want some, and more with --every, at most 31", some, every)
	}
}

// inspectSample runs monitor inspect on the 1080p sample with its config
// and the given flags, from the repository root so the config's model
// paths resolve, and returns what it printed.
func inspectSample(t *testing.T, flags ...string) string {
	t.Helper()
	args := append([]string{"inspect", abs(t, sample("freebet-1080p", "mp4")), "--config", abs(t, sample("freebet-1080p", "yaml"))}, flags...)
	wd, _ := os.Getwd()
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	stdout, stderr, err := run(t, args...)
	if err != nil {
		t.Fatalf("monitor %v: %v\n%s", flags, err, stderr)
	}
	return stdout
}

func TestInspectBadFlags(t *testing.T) {
	video, cfg := sample("freebet-1080p", "mp4"), sample("freebet-1080p", "yaml")
	for _, args := range [][]string{
		{"inspect", video, "--config", cfg, "--frames", "80:50"},
		{"inspect", video, "--config", cfg, "--frames", "50"},
		{"inspect", video, "--config", cfg, "--frames", "0:10", "--at", "here"},
		{"inspect", video, "--config", cfg, "--frames", "0:10", "--at", "1,2", "--radius", "0"},
		{"inspect", "--frames", "0:10"},
		{"inspect", video, "--config", cfg, "--frames", "0:10", "--events", "no-such-log.jsonl"},
	} {
		_, stderr, err := run(t, args...)
		if err == nil {
			t.Errorf("monitor %v: no error", args)
		}
		if err == errUsage && !strings.Contains(stderr, "usage: monitor inspect") {
			t.Errorf("monitor %v: usage error without the usage line: %q", args, stderr)
		}
	}
}

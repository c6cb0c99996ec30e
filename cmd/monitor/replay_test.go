package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/alerts"
	"bjmonitor/calibration"
	"bjmonitor/testvideos/clip"
	"bjmonitor/video"
)

// sample returns the path of a bundled clip's file.
func sample(name, ext string) string {
	return filepath.Join("..", "..", "testvideos", name+"."+ext)
}

// replaySample replays a bundled clip with its log and config, and any
// extra flags, from the repository root so the model path in the config
// resolves.
func replaySample(tb testing.TB, name, events string, video string, extra ...string) (results, stdout, stderr string, err error) {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "results.jsonl")
	abs := func(p string) string {
		a, e := filepath.Abs(p)
		if e != nil {
			tb.Fatal(e)
		}
		return a
	}
	args := []string{"replay", abs(video), "--events", abs(events), "--config", abs(sample(name, "yaml")), "--out", out}
	args = append(args, extra...)
	wd, _ := os.Getwd()
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		tb.Fatal(err)
	}
	defer os.Chdir(wd)
	stdout, stderr, err = run(tb, args...)
	b, _ := os.ReadFile(out)
	return string(b), stdout, stderr, err
}

// TestReplayGolden replays each bundled clip and compares the results with
// the golden file; it also checks them against the clip's ground truth:
// every round rebuilt exactly, every injected error alerted, nothing else.
func TestReplayGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	for _, name := range []string{"freebet-1080p", "classic-4k"} {
		t.Run(name, func(t *testing.T) {
			got, stdout, stderr, err := replaySample(t, name, sample(name, "events.jsonl"), sample(name, "mp4"))
			if err != nil {
				t.Fatalf("replay: %v\n%s", err, stderr)
			}
			t.Log(strings.TrimSpace(stderr))
			checkGoldenJSONL(t, filepath.Join("testdata", "replay-"+name+".golden.jsonl"), got, 1e-6)
			checkAgainstTruth(t, name, got)
			if !strings.Contains(stdout, "ALERT") {
				t.Error("no alert printed")
			}
		})
	}
}

// checkAgainstTruth scores replay results against a clip's ground truth:
// every round rebuilt exactly, every injected error alerted, nothing else.
func checkAgainstTruth(t *testing.T, name, results string) {
	t.Helper()
	truth, err := clip.ReadTruth(sample(name, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := clip.ScoreResults(truth, strings.NewReader(results))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range s.Mismatched {
		t.Error(m)
	}
	for _, m := range s.Missed {
		t.Errorf("injected %s not alerted", m)
	}
	for _, f := range s.False {
		t.Errorf("false alert %s", f)
	}
	t.Logf("%s: %v", name, s)
}

// A malformed controller line, a meter reading for a bet with no meter,
// or a game_end for a round judged already, is logged, counted and
// skipped.
func TestReplayMalformedLog(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	log, err := os.ReadFile(sample("classic-4k", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(log), "\n")
	bad := append([]string{"this is not json\n", `{"type":"wager","round":"1000","seat":"x"}` + "\n", `{"type":"shoe_change","t":1}` + "\n", `{"type":"meter","bet":"pot_of_gold","amount":1500,"t":1}` + "\n"}, lines...)
	bad = append(bad, `{"type":"game_end","round":"1000","t":15.5}`+"\n") // round 1000 ended at 14.25 s
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(bad, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, stderr, err := replaySample(t, "classic-4k", path, sample("classic-4k", "mp4"))
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if !strings.Contains(stderr, "2 malformed lines and 1 of unknown type skipped") {
		t.Errorf("summary does not count the skipped lines:\n%s", stderr)
	}
	if !strings.Contains(stderr, "1 meter readings for a bet with no meter skipped") {
		t.Errorf("summary does not count the meter reading for a bet with no meter:\n%s", stderr)
	}
	if !strings.Contains(stderr, "1 game_ends for a round judged already skipped") {
		t.Errorf("summary does not count the late game_end:\n%s", stderr)
	}
	if !strings.Contains(stderr, "line=1") {
		t.Errorf("the malformed line is not logged with its number:\n%s", stderr)
	}
	checkAgainstTruth(t, "classic-4k", got)
}

// A truncated video ends with a clear message, keeping every result up to
// where it broke off.
func TestReplayTruncatedVideo(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	data, err := os.ReadFile(sample("freebet-1080p", "mp4"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.mp4")
	if err := os.WriteFile(path, data[:len(data)*6/10], 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, stderr, err := replaySample(t, "freebet-1080p", sample("freebet-1080p", "events.jsonl"), path)
	if err != nil {
		t.Fatalf("replay of a cut video failed outright: %v", err)
	}
	if !strings.Contains(stderr, "truncated or corrupt") {
		t.Errorf("no message about the cut video:\n%s", stderr)
	}
	if !strings.Contains(got, `"type":"round","table":"freebet-1080p","round":"1000"`) {
		t.Errorf("the first round, whole in the cut video, is missing from the results:\n%.500s", got)
	}
}

// A replay that fails once decoding has started (here: the first frame
// cannot be calibrated) returns its error; it does not take FFmpeg down by
// closing the video under the decoder.
func TestReplayFailsCleanly(t *testing.T) {
	tests := []struct {
		name          string
		width, height int
		want          string // the cause, as the message must name it
	}{
		{"no marks", 1920, 1080, "(not found: mark ids [0 1 2 3])"},
		{"wrong size", 320, 240, "the frame is 320x240 but the table file is for a 1920x1080 camera"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := blankVideo(t, tt.width, tt.height)
			// Again and again: an early error once hid itself behind the
			// decoder it aborted.
			for range 5 {
				_, _, stderr, err := replaySample(t, "freebet-1080p", sample("freebet-1080p", "events.jsonl"), path)
				if !errors.Is(err, calibration.ErrCalibration) {
					t.Fatalf("replay of a video without the table = %v, want calibration.ErrCalibration\n%s", err, stderr)
				}
				got := err.Error()
				if !strings.HasPrefix(got, "calibrating on the first frame: calibration failed: ") || strings.Count(got, "calibration failed") != 1 || !strings.Contains(got, tt.want) {
					t.Errorf("replay of a video without the table = %q, want it to say once that calibration failed, and %q", got, tt.want)
				}
			}
		})
	}
}

// blankVideo writes two seconds of black video of the given size: long
// enough that the decoder is still busy when the replay fails.
func blankVideo(tb testing.TB, width, height int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "blank.mp4")
	w, err := video.Create(path, 25, width, height, video.DefaultCRF)
	if err != nil {
		tb.Fatal(err)
	}
	blank := gocv.NewMatWithSize(height, width, gocv.MatTypeCV8UC3)
	defer blank.Close()
	for range 50 {
		if err := w.Write(blank); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// A card model that is not where the configuration says stops the replay
// before it starts, naming the setting.
func TestReplayMissingModel(t *testing.T) {
	for _, field := range []string{"vision.model", "vision.fast_model", "vision.suits_model"} {
		t.Run(field, func(t *testing.T) {
			t.Setenv("MONITOR_VISION_MODEL", abs(t, filepath.Join("..", "..", "models", "cardindex", "cardindex.onnx")))
			t.Setenv("MONITOR_VISION_FAST_MODEL", abs(t, filepath.Join("..", "..", "models", "cardindex", "cardindex-fast.onnx")))
			t.Setenv("MONITOR_VISION_SUITS_MODEL", abs(t, bundledSuitsModel))
			t.Setenv("MONITOR_"+strings.ToUpper(strings.ReplaceAll(field, ".", "_")), filepath.Join(t.TempDir(), "nothing.onnx"))
			_, _, err := run(t, "replay", sample("freebet-1080p", "mp4"), "--config", sample("freebet-1080p", "yaml"))
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != field {
				t.Errorf("error %v, want a ConfigError naming %s", err, field)
			}
		})
	}
}

// TestPrintAlert: the one line replay and live print for an alert.
func TestPrintAlert(t *testing.T) {
	for _, tt := range []struct {
		alert alerts.Alert
		want  string
	}{
		{alerts.Alert{Kind: "overpaid", Severity: alerts.Mismatch, Round: "1842", Seat: 3, Bet: "21+3", Time: 62.54, Detail: "paid $45.00, but lose pays $0.00"},
			"ALERT overpaid [mismatch] round 1842 seat 3 21+3 at 1:02.5: paid $45.00, but lose pays $0.00\n"},
		{alerts.Alert{Kind: "unjudged", Severity: alerts.Review, Round: "7", Seat: 1, Bet: "blazing7s", Time: 4, Detail: "cards not seen"},
			"ALERT unjudged [review] round 7 seat 1 blazing7s at 0:04.0: cards not seen\n"},
	} {
		var b strings.Builder
		printAlert(&b, tt.alert)
		if b.String() != tt.want {
			t.Errorf("printAlert(%s) = %q, want %q", tt.alert.Kind, b.String(), tt.want)
		}
	}
}

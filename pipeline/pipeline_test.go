package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/alerts"
	"bjmonitor/calibration"
	"bjmonitor/controller"
	"bjmonitor/evaluator"
	"bjmonitor/game"
)

func newPipeline(tb testing.TB) *Pipeline {
	tb.Helper()
	table, err := calibration.Load(filepath.Join("..", "testvideos", "freebet-1080p.table.json"))
	if err != nil {
		tb.Fatal(err)
	}
	meter, err := evaluator.NewMeter(1000, 0.15, 0)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := New(Config{
		Table: table, Model: filepath.Join("..", "models", "cardindex", "cardindex.onnx"), FPS: 25,
		Rules: game.DefaultRules(), Meter: meter,
		Reconcile: alerts.Config{Table: "t", Rules: game.DefaultRules(), Tables: evaluator.DefaultPayTables()},
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// Every wager the controller enters is judged when its round ends, even a
// round the monitor never saw start; rounds that never end cannot pile up,
// and their wagers go out unjudged, not dropped.
func TestEventsAreJudgedNeverDropped(t *testing.T) {
	p := newPipeline(t)
	// No game_start: the round ends with its wager unjudged, not lost.
	p.Event(ev(t, `{"type":"wager","round":"7","seat":1,"bet":"21+3","amount":5}`), 10)
	res := p.Event(ev(t, `{"type":"game_end","round":"7"}`), 20)
	if len(res) != 1 || len(res[0].Alerts) != 1 || res[0].Alerts[0].Kind != alerts.Unjudged || res[0].Rebuilt() {
		t.Fatalf("a wager on an unseen round: %+v", res)
	}
	// Rounds that never end: the oldest are judged without cards.
	var judged []Result
	for i := range maxPending + 5 {
		judged = append(judged, p.Event(controller.Event{Type: controller.Wager, Round: string(rune('a' + i)), Seat: 1, Bet: "21+3", Amount: 1}, 30+i)...)
	}
	if p.Pending() != maxPending || len(judged) != 5 {
		t.Fatalf("pending %d, judged %d; want %d and 5", p.Pending(), len(judged), maxPending)
	}
	judged = append(judged, p.Flush()...)
	if len(judged) != maxPending+5 || p.Pending() != 0 {
		t.Fatalf("after Flush %d rounds judged, %d pending; want %d and 0", len(judged), p.Pending(), maxPending+5)
	}
	for i, r := range judged {
		checkResult(t, r)
		if want := string(rune('a' + i)); r.Round.ID != want || len(r.Alerts) != 1 || r.Alerts[0].Kind != alerts.Unjudged || len(r.Round.Doubts) != 1 {
			t.Errorf("round %d: %s with alerts %+v, doubts %q; want %s with one unjudged alert and why", i, r.Round.ID, r.Alerts, r.Round.Doubts, want)
		}
	}
}

// ev parses one controller event.
func ev(tb testing.TB, s string) controller.Event {
	tb.Helper()
	e, err := controller.Parse([]byte(s))
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// checkResult checks what every result must be: a round with an id, and
// alerts that each name it and have an id of their own.
func checkResult(tb testing.TB, r Result) {
	tb.Helper()
	if r.Round.ID == "" {
		tb.Errorf("a result with no round id: %+v", r)
	}
	for _, a := range r.Alerts {
		if a.ID == "" || a.Kind == "" || a.Round != r.Round.ID {
			tb.Errorf("alert %+v: want an id, a kind and round %q", a, r.Round.ID)
		}
	}
}

// A frame without the marks leaves the pipeline uncalibrated, with an error
// that is calibration's, saying once that calibration failed and naming
// the marks not found.
func TestFrameWithoutMarks(t *testing.T) {
	p := newPipeline(t)
	blank := gocv.NewMatWithSize(1080, 1920, gocv.MatTypeCV8UC3)
	defer blank.Close()
	for i := range 2 { // the next frame tries again
		_, _, err := p.Frame(blank, i, float64(i)/25)
		if !errors.Is(err, calibration.ErrCalibration) {
			t.Fatalf("frame %d: Frame = %v, want calibration.ErrCalibration", i, err)
		}
		if got := err.Error(); strings.Count(got, "calibration failed") != 1 || !strings.Contains(got, "not found: mark ids [0 1 2 3]") {
			t.Errorf("frame %d: Frame = %q, want \"calibration failed\" once and the marks not found", i, got)
		}
		if p.Calibration() != nil {
			t.Errorf("frame %d: calibrated on a blank frame", i)
		}
	}
}

// FuzzEvents feeds controller messages, one per line, to a pipeline: no
// sequence of events, however odd, makes it panic, every result names its
// round, and every event is either judged with its round or still
// pending, until Flush judges them all.
func FuzzEvents(f *testing.F) {
	f.Add([]byte("{\"type\":\"game_start\",\"round\":\"1\"}\n{\"type\":\"wager\",\"round\":\"1\",\"seat\":3,\"bet\":\"21+3\",\"amount\":5}\n{\"type\":\"payout\",\"round\":\"1\",\"seat\":3,\"bet\":\"21+3\",\"amount\":45}\n{\"type\":\"game_end\",\"round\":\"1\"}"))
	f.Add([]byte("{\"type\":\"game_end\",\"round\":\"9\"}\n{\"type\":\"meter\",\"bet\":\"blazing7s\",\"amount\":1e300}\n{\"type\":\"progressive_award\",\"round\":\"2\",\"seat\":99,\"award\":\"100%\",\"amount\":5}"))
	f.Add([]byte("{\"type\":\"game_start\",\"round\":\"1\"}\n{\"type\":\"game_start\",\"round\":\"1\"}\n{\"type\":\"game_end\",\"round\":\"2\"}"))
	f.Add([]byte("{\"type\":\"game_start\",\"round\":\"1\"}\n{\"type\":\"wager\",\"round\":\"1\",\"seat\":3,\"bet\":\"21+3\",\"amount\":5}\n{\"type\":\"game_start\",\"round\":\"2\"}\n{\"type\":\"payout\",\"round\":\"1\",\"seat\":3,\"bet\":\"21+3\",\"amount\":5}\n{\"type\":\"payout\",\"round\":\"1\",\"seat\":3,\"bet\":\"21+3\",\"amount\":5}"))
	p := newPipeline(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		sc := bufio.NewScanner(bytes.NewReader(data))
		frame := 0
		for sc.Scan() {
			e, err := controller.Parse(sc.Bytes())
			if err != nil {
				continue
			}
			frame++
			for _, r := range p.Event(e, frame) {
				checkResult(t, r)
			}
			if p.Pending() > maxPending {
				t.Fatalf("%d rounds pending", p.Pending())
			}
		}
		for _, r := range p.Flush() {
			checkResult(t, r)
		}
		if p.Pending() != 0 {
			t.Fatalf("%d rounds pending after Flush", p.Pending())
		}
	})
}

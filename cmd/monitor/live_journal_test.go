package main

import (
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"bjmonitor/calibration"
	"bjmonitor/controller"
	"bjmonitor/driver"
	"bjmonitor/game"
	"bjmonitor/pipeline"
	"bjmonitor/publish"
	"bjmonitor/tracker"
)

// TestOpenJournal: a restarted monitor hands the events its journal kept
// to the frame loop, but for a late game_end of a round judged before the
// kill (counted, and whose seq is seen too), counts a torn last line as skipped (and goes on),
// takes the events' seqs as seen, and doubts the rounds they name.
func TestOpenJournal(t *testing.T) {
	dir := t.TempDir()
	j, _, _, err := controller.OpenJournal(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	taken := []controller.Event{
		controller.At(1, controller.Event{Type: controller.GameStart, Round: "1000", Seq: 1}),
		controller.At(1.05, controller.Event{Type: controller.Wager, Round: "1000", Seat: 2, Bet: "21+3", Amount: 2, Seq: 2}),
	}
	// A late game_end for round 999, judged and forgotten before the kill.
	late := controller.Event{Type: controller.GameEnd, Round: "999", Seq: 3}
	for _, e := range append(slices.Clone(taken), late) {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	f, err := os.OpenFile(filepath.Join(dir, journalFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`deadbeef {"type":"wager","round":"10`) // killed mid-append
	f.Close()

	met := newMetrics(gauges{})
	drv := driver.New(driver.Config{}, nil)
	var dedup controller.Dedup
	jn, err := openJournal(dir, drv, &dedup, met, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer jn.close()
	if n := drv.Held(); n != len(taken) {
		t.Errorf("%d events handed to the frame loop, want %d", n, len(taken))
	}
	for result, want := range map[string]float64{"replayed": 2, "late_game_end": 1, "skipped": 1} {
		if got := testutil.ToFloat64(met.journal.WithLabelValues(result)); got != want {
			t.Errorf("journal %s = %v, want %v", result, got, want)
		}
	}
	if !dedup.Repeat(taken[1]) || !dedup.Repeat(late) {
		t.Error("a re-delivery of a journaled event, taken again or left out, is not a repeat")
	}
	if d := jn.doubts(tracker.Round{Round: game.Round{ID: "1000"}}); len(d) != 1 {
		t.Errorf("round 1000's doubts %q, want the restart named", d)
	}
	if d := jn.doubts(tracker.Round{Round: game.Round{ID: "1001"}}); len(d) != 0 {
		t.Errorf("round 1001, not in the journal, doubted: %q", d)
	}
	if d := jn.doubts(tracker.Round{Round: game.Round{ID: "1000"}}); len(d) != 0 {
		t.Errorf("round 1000 doubted twice: %q", d)
	}
	jn.take(controller.Event{Type: controller.GameEnd, Round: "1000"})
	if jn.j.Len() != 4 || drv.Held() != 3 {
		t.Errorf("after take: journal %d, frame loop %d; want 4 (the late game_end kept) and 3", jn.j.Len(), drv.Held())
	}
}

// TestRedeliveredWithoutSeq: after a restart, an event without seq that
// the broker redelivers (taken and journaled, not acknowledged before the
// kill) is a re-send: skipped and counted, never taken twice. Anything
// else is taken: the same event not flagged by the broker (the dealer
// entered it twice: a procedure alert), one flagged but not in the
// journal (the kill came before it was journaled), or one that differs.
func TestRedeliveredWithoutSeq(t *testing.T) {
	dir := t.TempDir()
	j, _, _, err := controller.OpenJournal(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	const payout = `{"type":"payout","round":"1000","seat":2,"bet":"21+3","amount":14}`
	for _, m := range []string{`{"type":"game_start","round":"1000"}`, payout} {
		e, err := controller.Parse([]byte(m))
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	j.Close() // killed

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	l := &live{log: log, met: newMetrics(gauges{}), drv: driver.New(driver.Config{}, nil)}
	if l.jn, err = openJournal(dir, l.drv, &l.dedup, l.met, log); err != nil {
		t.Fatal(err)
	}
	defer l.jn.close()
	for _, tt := range []struct {
		name        string
		msg         string
		redelivered bool
		taken       bool
	}{
		{"journaled, redelivered", payout, true, false},
		{"the same, written another way, redelivered", `{"amount":14.0,"bet":"21+3","seat":2,"round":"1000","type":"payout"}`, true, false},
		{"journaled, sent again as new", payout, false, true},
		{"not journaled, redelivered", `{"type":"payout","round":"1000","seat":4,"bet":"21+3","amount":5}`, true, true},
		{"another amount, redelivered", `{"type":"payout","round":"1000","seat":2,"bet":"21+3","amount":15}`, true, true},
	} {
		held, repeated := l.drv.Held(), testutil.ToFloat64(l.met.controller.WithLabelValues("repeated"))
		l.onController(publish.Message{Payload: []byte(tt.msg), Redelivered: tt.redelivered})
		taken := l.drv.Held() - held
		counted := testutil.ToFloat64(l.met.controller.WithLabelValues("repeated")) - repeated
		if want := map[bool]int{true: 1}[tt.taken]; taken != want || counted != float64(1-want) {
			t.Errorf("%s: taken %d times, counted repeated %v times; want taken %v", tt.name, taken, counted, tt.taken)
		}
	}
}

// TestOpenAtKill: of the rounds a journal names, only those open at the
// kill are doubted after the restart: the one in play, and any held open
// after a game_end that came while it was still being dealt, whose
// game_end is marked so (controller.Resume).
func TestOpenAtKill(t *testing.T) {
	ev := func(typ, round string) controller.Event {
		e := controller.Event{Type: typ, Round: round}
		switch typ {
		case controller.Wager, controller.Payout:
			e.Seat, e.Bet, e.Amount = 2, "21+3", 5
		case controller.Meter:
			e.Bet, e.Amount = "blazing7s", 1000
		}
		return e
	}
	const (
		start, end, wager, payout, meter = controller.GameStart, controller.GameEnd, controller.Wager, controller.Payout, controller.Meter
	)
	for _, tt := range []struct {
		name   string
		events []controller.Event
		want   string // the rounds open, in order
		held   string // the rounds whose game_end is marked held open
	}{
		{"empty", nil, "", ""},
		{"mid-round", []controller.Event{ev(start, "1000"), ev(wager, "1000")}, "1000", ""},
		{"an early game_end, then a meter reading", []controller.Event{ev(start, "1000"), ev(wager, "1000"), ev(end, "1000"), ev(meter, "")}, "1000", "1000"},
		{"an early game_end, and the next round's game_start", []controller.Event{ev(start, "1000"), ev(end, "1000"), ev(start, "1001"), ev(wager, "1001")}, "1000 1001", "1000"},
		{"two early game_ends", []controller.Event{ev(wager, "1000"), ev(end, "1000"), ev(payout, "1000"), ev(end, "1000")}, "1000", "1000 1000"},
		{"its game_start not seen", []controller.Event{ev(wager, "1000"), ev(payout, "1000")}, "1000", ""},
		{"a late game_end for a round judged", []controller.Event{ev(end, "999"), ev(meter, "")}, "", ""},
		{"a late game_end, then the next round", []controller.Event{ev(end, "999"), ev(start, "1000"), ev(wager, "1000")}, "1000", ""},
		{"a late payout, then the next round", []controller.Event{ev(payout, "999"), ev(start, "1000"), ev(wager, "1000")}, "1000", ""},
		{"a round whose game_end was lost, then the next", []controller.Event{ev(start, "999"), ev(wager, "999"), ev(start, "1000"), ev(wager, "1000")}, "1000", ""},
	} {
		events, _ := controller.Resume(tt.events)
		var held []string
		for _, e := range events {
			if e.HeldOpen {
				held = append(held, e.Round)
			}
		}
		if got := strings.Join(held, " "); got != tt.held {
			t.Errorf("%s: game_ends held open %q, want %q", tt.name, got, tt.held)
		}
		if got := strings.Join(slices.Sorted(maps.Keys(openAtKill(events))), " "); got != tt.want {
			t.Errorf("%s: openAtKill = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestJudgedAcrossRestart: the live monitor keeps the ids of the rounds
// it judged next to the journal, and a monitor started again hands them
// to its pipeline. After the restart, a late game_end for round 1000,
// judged before the kill, is skipped, logged and counted, and a late
// wager for it is kept for round 1000, so that the next round's
// game_start is not taken as one inside round 1000. A corrupt file is
// logged and counted, and the monitor starts all the same.
func TestJudgedAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	table, err := calibration.Load(filepath.Join("..", "..", "testvideos", "freebet-1080p.table.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Vision.Model = filepath.Join("..", "..", cfg.Vision.Model)
	cfg.Vision.FastModel = filepath.Join("..", "..", cfg.Vision.FastModel)
	cfg.Vision.SuitsModel = filepath.Join("..", "..", cfg.Vision.SuitsModel)
	var logged strings.Builder
	start := func() (*live, *pipeline.Pipeline) {
		t.Helper()
		l := &live{cfg: cfg, table: table, log: slog.New(slog.NewTextHandler(&logged, nil)), met: newMetrics(gauges{}), drv: driver.New(driver.Config{}, nil)}
		if l.jn, err = openJournal(dir, l.drv, &l.dedup, l.met, l.log); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l.jn.close)
		pl, err := l.openPipeline(25)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pl.Close() })
		return l, pl
	}
	event := func(l *live, pl *pipeline.Pipeline, msgs ...string) []pipeline.Result {
		t.Helper()
		var out []pipeline.Result
		for _, m := range msgs {
			e, err := controller.Parse([]byte(m))
			if err != nil {
				t.Fatal(err)
			}
			res := pl.Event(e, 0)
			l.jn.settle(pl, res)
			out = append(out, res...)
		}
		return out
	}

	l, pl := start()
	event(l, pl, `{"type":"game_start","round":"1000"}`, `{"type":"wager","round":"1000","seat":4,"bet":"21+3","amount":5}`,
		`{"type":"game_end","round":"1000"}`)
	if _, ids, err := controller.OpenJudged(filepath.Join(dir, judgedFile)); err != nil || !slices.Equal(ids, []string{"1000"}) {
		t.Fatalf("rounds judged on disk: %q, %v; want 1000", ids, err)
	}
	// Killed.
	l, pl = start()
	res := event(l, pl, `{"type":"wager","round":"1000","seat":4,"bet":"21+3","amount":5}`,
		`{"type":"game_start","round":"1001"}`, `{"type":"wager","round":"1001","seat":4,"bet":"21+3","amount":5}`)
	for _, r := range res {
		for _, a := range r.Alerts {
			t.Errorf("after a late wager for round 1000, the next round's game_start: alert %s %s %q", a.Round, a.Kind, a.Rule)
		}
	}
	if !pl.Holds("1000") || !pl.Holds("1001") {
		t.Errorf("rounds held: 1000 %v, 1001 %v; want the late wager kept for 1000, and 1001 in play", pl.Holds("1000"), pl.Holds("1001"))
	}
	if res := event(l, pl, `{"type":"game_end","round":"1000"}`); len(res) != 0 {
		t.Errorf("a late game_end after the restart: %d results", len(res))
	}
	if got := testutil.ToFloat64(l.met.lateEnds); got != 1 || !strings.Contains(logged.String(), "game_end for a round judged already") {
		t.Errorf("a late game_end after the restart: counted %v times, logged %v; want once, logged", got, strings.Contains(logged.String(), "judged already"))
	}

	if err := os.WriteFile(filepath.Join(dir, judgedFile), []byte("deadbeef [\"10"), 0o640); err != nil {
		t.Fatal(err)
	}
	logged.Reset()
	l, _ = start()
	if got := testutil.ToFloat64(l.met.journal.WithLabelValues("judged_corrupt")); got != 1 || len(l.jn.seed) != 0 || !strings.Contains(logged.String(), "rounds judged before the restart are not known") {
		t.Errorf("a corrupt file: counted %v, seed %q, logged %q; want counted once, no id, logged", got, l.jn.seed, logged.String())
	}
}

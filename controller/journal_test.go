package controller

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// journalEvents are a round's first events, as a monitor takes them.
var journalEvents = []Event{
	{Type: GameStart, Round: "1842", Seq: 5120},
	{Type: Wager, Round: "1842", Seat: 3, Bet: "21+3", Amount: 5, Seq: 5121},
	{Type: Wager, Round: "1842", Seat: 3, Bet: "blazing7s", Amount: 1, Seq: 5122},
	{Type: Meter, Bet: "blazing7s", Amount: 1234.56},
}

func openJournal(tb testing.TB, path string) (*Journal, []Event, int) {
	tb.Helper()
	j, events, skipped, err := OpenJournal(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { j.Close() })
	return j, events, skipped
}

// TestJournal appends a round's events, reads them back after a restart,
// and clears them.
func TestJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "controller.journal")
	j, events, skipped := openJournal(t, path)
	if len(events) != 0 || skipped != 0 {
		t.Fatalf("a new journal holds %d events, %d skipped", len(events), skipped)
	}
	for _, e := range journalEvents {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	j.Close() // as if killed: the file is all there is
	j, events, skipped = openJournal(t, path)
	if !reflect.DeepEqual(events, journalEvents) || skipped != 0 {
		t.Errorf("after a restart: %+v, %d skipped; want %+v", events, skipped, journalEvents)
	}
	if err := j.Append(Event{Type: GameEnd, Round: "1842"}); err != nil {
		t.Fatal(err)
	}
	if j.Len() != len(journalEvents)+1 {
		t.Errorf("Len %d, want %d", j.Len(), len(journalEvents)+1)
	}
	// Round 1842 judged: its events go, and the meter reading before its
	// last; the next round's stay.
	next := []Event{{Type: Meter, Bet: "blazing7s", Amount: 1240}, {Type: GameStart, Round: "1843"}}
	for _, e := range next {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Forget("1842"); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j, events, _ = openJournal(t, path)
	if !reflect.DeepEqual(events, next) {
		t.Errorf("after Forget: %+v, want %+v", events, next)
	}
	if err := j.Clear(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(journalEvents[0]); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, events, _ = openJournal(t, path); !reflect.DeepEqual(events, journalEvents[:1]) {
		t.Errorf("after Clear and an append: %+v, want the append alone", events)
	}
}

// TestJournalForgetInside: a round that began and ended inside another
// (a forged game_start and game_end) takes with it, when forgotten, none
// of the other round's events, its meter reading included.
func TestJournalForgetInside(t *testing.T) {
	j, _, _ := openJournal(t, filepath.Join(t.TempDir(), "controller.journal"))
	outer := append(slices.Clone(journalEvents), Event{Type: Payout, Round: "1842", Seat: 3, Bet: "21+3", Amount: 45})
	inside := []Event{{Type: GameStart, Round: "7777"}, {Type: Meter, Bet: "blazing7s", Amount: 1300}, {Type: GameEnd, Round: "7777"}}
	for _, e := range append(append(slices.Clone(outer[:4]), inside...), outer[4:]...) {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Forget("7777"); err != nil {
		t.Fatal(err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if !reflect.DeepEqual(j.events, outer) {
		t.Errorf("after Forget(7777): %+v, want round 1842's %+v", j.events, outer)
	}
}

// TestJournalDamage: a line torn by a crash, or corrupt, is skipped and
// counted, never taken as an event nor fatal, and dropped from the file.
func TestJournalDamage(t *testing.T) {
	var good bytes.Buffer
	for _, e := range journalEvents {
		line, err := journalLine(e)
		if err != nil {
			t.Fatal(err)
		}
		good.Write(line)
	}
	flipped := bytes.Clone(good.Bytes())
	flipped[bytes.Index(flipped, []byte(`"seat":3`))+7] = '4' // the checksum no longer matches
	tests := []struct {
		name    string
		data    []byte
		events  []Event
		skipped int
	}{
		{"whole", good.Bytes(), journalEvents, 0},
		{"torn last line", append(bytes.Clone(good.Bytes()), `0badc0de {"type":"wag`...), journalEvents, 1},
		{"a flipped byte", flipped, append([]Event{journalEvents[0]}, journalEvents[2:]...), 1},
		{"not a journal", []byte("{\"type\":\"game_start\",\"round\":\"1\"}\n\x00\x01\n"), nil, 2},
		{"a valid checksum of an invalid event", []byte("12345678 \n"), nil, 1},
		{"empty", nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "controller.journal")
			if err := os.WriteFile(path, tt.data, 0o640); err != nil {
				t.Fatal(err)
			}
			j, events, skipped := openJournal(t, path)
			if !reflect.DeepEqual(events, tt.events) || skipped != tt.skipped {
				t.Errorf("OpenJournal = %+v, %d skipped; want %+v, %d", events, skipped, tt.events, tt.skipped)
			}
			j.Close()
			if _, again, skipped := openJournal(t, path); skipped != 0 || len(again) != len(tt.events) {
				t.Errorf("opened again: %d events, %d skipped; want %d, 0", len(again), skipped, len(tt.events))
			}
		})
	}
}

// TestJournalBound: past its bound, the journal keeps the newer half.
func TestJournalBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "controller.journal")
	j, _, _ := openJournal(t, path)
	const max = 8
	j.max = max
	for i := range max + 1 {
		if err := j.Append(Event{Type: Meter, Bet: "blazing7s", Amount: float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if j.Len() != max/2 || j.Dropped() != max/2+1 {
		t.Errorf("Len %d, Dropped %d; want %d, %d", j.Len(), j.Dropped(), max/2, max/2+1)
	}
	j.Close()
	_, events, _ := openJournal(t, path)
	if len(events) != max/2 || events[0].Amount != max/2+1 {
		t.Errorf("on disk: %d events from %v, want %d from %d", len(events), events[0].Amount, max/2, max/2+1)
	}
}

// FuzzParseJournal: whatever the file holds, ParseJournal returns only
// valid events, never more than the file has lines, and what it returns
// written again reads back the same, with nothing skipped.
func FuzzParseJournal(f *testing.F) {
	seed, err := os.ReadFile("testdata/journal")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	for _, line := range bytes.SplitAfter(seed, []byte("\n")) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		events, skipped := ParseJournal(data)
		if lines := bytes.Count(data, []byte("\n")) + 1; len(events)+skipped > lines {
			t.Fatalf("%d events and %d skipped from %d lines", len(events), skipped, lines)
		}
		var again []byte
		for _, e := range events {
			if err := e.Validate(); err != nil {
				t.Fatalf("ParseJournal returned an invalid event: %v", err)
			}
			line, err := journalLine(e)
			if err != nil {
				t.Fatal(err)
			}
			again = append(again, line...)
		}
		if back, skipped := ParseJournal(again); !reflect.DeepEqual(back, events) || skipped != 0 {
			t.Fatalf("written again: %+v, %d skipped; want %+v", back, skipped, events)
		}
	})
}

// TestJournalHolds: after a restart, a re-delivery of an event without
// seq, parsed afresh from the controller's message, is told from events
// that differ in any field, times included.
func TestJournalHolds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "controller.journal")
	j, _, _ := openJournal(t, path)
	taken := []string{
		`{"type":"payout","round":"1842","seat":3,"bet":"21+3","amount":45}`,
		`{"type":"payout","round":"1842","seat":4,"bet":"21+3","amount":45,"ts":"2026-12-01T20:00:00.25Z"}`,
	}
	for _, m := range taken {
		if err := j.Append(mustParse(t, m)); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	j, _, _ = openJournal(t, path)
	for _, tt := range []struct {
		msg  string
		want bool
	}{
		{`{"type":"payout","round":"1842","seat":3,"bet":"21+3","amount":45}`, true},
		{`{"bet":"21+3","type":"payout","seat":3,"round":"1842","amount":45.0}`, true}, // the same event, written another way
		{`{"type":"payout","round":"1842","seat":4,"bet":"21+3","amount":45,"ts":"2026-12-01T20:00:00.25Z"}`, true},
		{`{"type":"payout","round":"1842","seat":4,"bet":"21+3","amount":45,"ts":"2026-12-01T20:00:01.25Z"}`, false},
		{`{"type":"payout","round":"1842","seat":3,"bet":"21+3","amount":35}`, false},
		{`{"type":"payout","round":"1843","seat":3,"bet":"21+3","amount":45}`, false},
		{`{"type":"payout","round":"1842","seat":3,"bet":"21+3","amount":45,"seq":7}`, false},
	} {
		if got := j.Holds(mustParse(t, tt.msg)); got != tt.want {
			t.Errorf("Holds(%s) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

func mustParse(tb testing.TB, msg string) Event {
	tb.Helper()
	e, err := Parse([]byte(msg))
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// TestResume: of the game_ends a journal holds, those after another event
// of their round are taken again, held open; those with none before them
// (late, for a round judged and forgotten) are left out, however many.
func TestResume(t *testing.T) {
	ev := func(typ, round string) Event { return Event{Type: typ, Round: round} }
	for _, tt := range []struct {
		name   string
		events []Event
		replay string // "type:round[:held]", in order
		late   string // the rounds of the game_ends left out
	}{
		{"empty", nil, "", ""},
		{"mid-round", []Event{ev(GameStart, "1000"), ev(Wager, "1000")}, "game_start:1000 wager:1000", ""},
		{"an early game_end", []Event{ev(GameStart, "1000"), ev(GameEnd, "1000"), ev(Meter, "")}, "game_start:1000 game_end:1000:held meter:", ""},
		{"its game_start not seen", []Event{ev(Wager, "1000"), ev(GameEnd, "1000"), ev(GameEnd, "1000")}, "wager:1000 game_end:1000:held game_end:1000:held", ""},
		{"a late game_end in the next round", []Event{ev(GameStart, "1001"), ev(GameEnd, "1000"), ev(Wager, "1001")}, "game_start:1001 wager:1001", "1000"},
		{"a late game_end before the next round", []Event{ev(GameEnd, "1000"), ev(GameStart, "1001")}, "game_start:1001", "1000"},
		{"two late game_ends", []Event{ev(GameStart, "1001"), ev(GameEnd, "1000"), ev(GameEnd, "1000")}, "game_start:1001", "1000 1000"},
		{"a late game_end, then its round's game_start", []Event{ev(GameEnd, "1000"), ev(GameStart, "1000"), ev(GameEnd, "1000")}, "game_start:1000 game_end:1000:held", "1000"},
	} {
		events := slices.Clone(tt.events)
		replay, late := Resume(events)
		var got, gotLate []string
		for _, e := range replay {
			s := e.Type + ":" + e.Round
			if e.HeldOpen {
				s += ":held"
			}
			got = append(got, s)
		}
		for _, e := range late {
			gotLate = append(gotLate, e.Round)
		}
		if g := strings.Join(got, " "); g != tt.replay {
			t.Errorf("%s: replay %q, want %q", tt.name, g, tt.replay)
		}
		if g := strings.Join(gotLate, " "); g != tt.late {
			t.Errorf("%s: late %q, want %q", tt.name, g, tt.late)
		}
		if !reflect.DeepEqual(events, tt.events) {
			t.Errorf("%s: Resume changed its argument: %+v", tt.name, events)
		}
	}
}

package controller

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		line string
		err  error
	}{
		{"game start", `{"type":"game_start","round":"1842","t":12.30}`, nil},
		{"wager", `{"type":"wager","round":"1842","seat":3,"bet":"21+3","amount":5,"t":12.31}`, nil},
		{"payout", `{"type":"payout","round":"1842","seat":3,"bet":"21+3","amount":45,"t":21.0}`, nil},
		{"award", `{"type":"progressive_award","round":"1842","seat":2,"award":"10%","amount":123.45,"t":30.5}`, nil},
		{"meter", `{"type":"meter","bet":"blazing7s","amount":1234.56,"t":30.6}`, nil},
		{"wall clock", `{"type":"game_end","round":"1842","ts":"2026-11-29T15:00:00Z"}`, nil},
		{"unknown type", `{"type":"insurance","round":"1"}`, ErrUnknownType},
		{"no type", `{"round":"1"}`, ErrMalformed},
		{"not JSON", `{"type":`, ErrMalformed},
		{"two objects", `{"type":"game_end","round":"1"}{"type":"game_end","round":"2"}`, ErrMalformed},
		{"wager without seat", `{"type":"wager","round":"1","bet":"21+3","amount":5}`, ErrMalformed},
		{"zero wager", `{"type":"wager","round":"1","seat":2,"bet":"21+3","amount":0}`, ErrMalformed},
		{"negative payout", `{"type":"payout","round":"1","seat":2,"bet":"21+3","amount":-5}`, ErrMalformed},
		{"award of 50%", `{"type":"progressive_award","round":"1","seat":2,"award":"50%","amount":5}`, ErrMalformed},
		{"seat as text", `{"type":"wager","round":"1","seat":"three","bet":"21+3","amount":5}`, ErrMalformed},
		{"negative time", `{"type":"game_end","round":"1","t":-3}`, ErrMalformed},
		{"bad timestamp", `{"type":"game_end","round":"1","ts":"yesterday"}`, ErrMalformed},
		{"numbered", `{"type":"game_end","round":"1","seq":17}`, nil},
		{"negative number", `{"type":"game_end","round":"1","seq":-1}`, ErrMalformed},
		{"number as text", `{"type":"game_end","round":"1","seq":"17"}`, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.line))
			if !errors.Is(err, tt.err) && !(tt.err == nil && err == nil) {
				t.Errorf("Parse(%s) = %v, want %v", tt.line, err, tt.err)
			}
		})
	}
}

func TestSeconds(t *testing.T) {
	start := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	e, err := Parse([]byte(`{"type":"game_end","round":"1","ts":"2026-11-29T15:00:12.5Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := e.Seconds(start); !ok || s != 12.5 {
		t.Errorf("Seconds = %v, %v, want 12.5", s, ok)
	}
	if s, ok := At(3.25, Event{Type: GameEnd}).Seconds(start); !ok || s != 3.25 {
		t.Errorf("At(3.25).Seconds = %v, %v", s, ok)
	}
	if _, ok := (Event{}).Seconds(start); ok {
		t.Error("an event without time has seconds")
	}
}

func FuzzParse(f *testing.F) {
	file, err := os.Open("testdata/events.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		f.Add(append([]byte(nil), sc.Bytes()...))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := Parse(line)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnknownType) {
				t.Fatalf("Parse error %v wraps neither ErrMalformed nor ErrUnknownType", err)
			}
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("Parse accepted an event that does not validate: %v", err)
		}
	})
}

func TestSortByTime(t *testing.T) {
	events := []Event{
		At(3, Event{Type: GameEnd, Round: "a"}),
		At(1, Event{Type: GameStart, Round: "a"}),
		At(3, Event{Type: GameStart, Round: "b"}),
		{Type: Meter, Bet: "blazing7s"},
	}
	SortByTime(events)
	var got []string
	for _, e := range events {
		got = append(got, e.Type+e.Round)
	}
	want := "meter game_starta game_enda game_startb"
	if strings.Join(got, " ") != want {
		t.Errorf("SortByTime = %v, want %s (stable, untimed first)", got, want)
	}
}

// TestDedup: a repeated seq is a re-send, an event without one never is,
// and numbers older than the window are forgotten.
func TestDedup(t *testing.T) {
	var d Dedup
	tests := []struct {
		seq    uint64
		repeat bool
	}{
		{1, false}, {2, false}, {1, true}, {0, false}, {0, false}, {3, false}, {2, true}, {3, true},
	}
	for i, tt := range tests {
		if got := d.Repeat(Event{Type: Payout, Seq: tt.seq}); got != tt.repeat {
			t.Errorf("event %d (seq %d): Repeat = %v, want %v", i, tt.seq, got, tt.repeat)
		}
	}
	for n := uint64(4); n < 4+dedupWindow; n++ {
		d.Repeat(Event{Seq: n})
	}
	if d.Repeat(Event{Seq: 1}) {
		t.Error("seq 1 still remembered after a window of later events")
	}
	if !d.Repeat(Event{Seq: 3 + dedupWindow}) {
		t.Error("the latest seq forgotten")
	}
	if len(d.seen) != dedupWindow || len(d.ring) != dedupWindow {
		t.Errorf("remembers %d (ring %d), want %d", len(d.seen), len(d.ring), dedupWindow)
	}
}

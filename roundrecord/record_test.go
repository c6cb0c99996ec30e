package roundrecord

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/internal/golden"
)

// TestParse reads each record under testdata/ and compares the round it
// holds, or the error, with its .golden file. A record the monitor could
// have written (none named "invalid") must come out of MarshalJSON as it
// went in, less "type" and "table".
func TestParse(t *testing.T) {
	for f, data := range records(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			rec, g, err := parseRound(data)
			if invalid := strings.Contains(f, "invalid"); invalid != (err != nil) {
				t.Errorf("parsing %s: error %v, want an error: %v", f, err, invalid)
			}
			if err != nil && !errors.Is(err, game.ErrRound) {
				t.Errorf("parsing %s: error %v does not wrap game.ErrRound", f, err)
			}
			golden.Check(t, strings.TrimSuffix(f, ".json")+".golden", dump(g, err))
			if err == nil {
				checkWrittenAgain(t, rec, data)
			}
		})
	}
}

// checkWrittenAgain checks that rec, read from data, writes data's JSON
// again, less "type" and "table".
func checkWrittenAgain(t *testing.T, rec Record, data []byte) {
	t.Helper()
	again, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := json.Unmarshal(again, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	delete(want, "type")
	delete(want, "table")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("record written again:\n%s\nwant\n%s", again, data)
	}
}

// parseRound is what a reader of records does: Parse, then Round.
func parseRound(data []byte) (Record, game.Round, error) {
	rec, err := Parse(data)
	if err != nil {
		return Record{}, game.Round{}, err
	}
	g, err := rec.Round()
	return rec, g, err
}

// dump writes a round one hand a line, a card never read as "--", or the
// error.
func dump(g game.Round, err error) string {
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	names := func(cs []cards.Card) string {
		var b strings.Builder
		for _, c := range cs {
			b.WriteByte(' ')
			if c.Valid() || c.RankOnly() {
				b.WriteString(c.String())
			} else {
				b.WriteString("--")
			}
		}
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "round %q\ndealer:%s\n", g.ID, names(g.Dealer.Cards))
	for _, s := range g.Seats {
		for hi, h := range s.Hands {
			fmt.Fprintf(&b, "seat %d hand %d split_from %d doubled %v:%s\n", s.Seat, hi, h.SplitFrom, h.Doubled, names(h.Cards))
		}
	}
	return b.String()
}

func TestMarshalEmptyLists(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		want string
	}{
		{"nothing", Record{ID: "1"}, `{"round":"1","start_frame":0,"end_frame":0,"dealer":[],"seats":[]}`},
		{"a hand with no cards", Record{ID: "2", Seats: []Seat{{Seat: 4}, {Seat: 5, Hands: []Hand{{SplitFrom: -1}}}}, Doubts: []string{}},
			`{"round":"2","start_frame":0,"end_frame":0,"dealer":[],"seats":[{"seat":4,"hands":[]},{"seat":5,"hands":[{"cards":[],"split_from":-1,"total":0}]}]}`},
		{"a card", Record{ID: "3", Dealer: []Card{{Card: FaceDownText, FaceDown: true, At: [2]float64{1.5, -2}}}, Doubts: []string{"why"}},
			`{"round":"3","start_frame":0,"end_frame":0,"dealer":[{"card":"XX","confidence":0,"frame":0,"order":0,"face_down":true,"at":[1.5,-2]}],"seats":[],"doubts":["why"]}`},
		{"a seat's doubt", Record{ID: "4", Seats: []Seat{{Seat: 2, Hands: []Hand{{SplitFrom: -1}}, Doubts: []string{"seat 2 hand 0: why"}}}},
			`{"round":"4","start_frame":0,"end_frame":0,"dealer":[],"seats":[{"seat":2,"hands":[{"cards":[],"split_from":-1,"total":0}],"doubts":["seat 2 hand 0: why"]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.rec)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("json.Marshal(%+v) = %s, want %s", tt.rec, got, tt.want)
			}
		})
	}
}

// TestDoubtsAt: the round's doubts bear on every seat, a seat's on that
// seat's wagers; seat 0 gets every doubt once (a doubt that bears on two
// seats is written at each). A doubt about the dealer's cards alone
// (DealerDoubts, written among the round's) bears only on what turns on
// them (DoubtsOn).
func TestDoubtsAt(t *testing.T) {
	rec := Record{ID: "1", Doubts: []string{"round", "the dealer stopped on 15"}, DealerDoubts: []string{"the dealer stopped on 15"}, Seats: []Seat{
		{Seat: 1, Doubts: []string{"seat 1 hand 0: why"}},
		{Seat: 2, Doubts: []string{"seat 1 hand 0: why", "seat 2 hand 0: why"}},
		{Seat: 3},
	}}
	tests := []struct {
		seat   int
		dealer bool
		want   []string
	}{
		{0, true, []string{"round", "the dealer stopped on 15", "seat 1 hand 0: why", "seat 2 hand 0: why"}},
		{1, true, []string{"round", "the dealer stopped on 15", "seat 1 hand 0: why"}},
		{2, true, []string{"round", "the dealer stopped on 15", "seat 1 hand 0: why", "seat 2 hand 0: why"}},
		{3, true, []string{"round", "the dealer stopped on 15"}},
		{4, true, []string{"round", "the dealer stopped on 15"}},
		{0, false, []string{"round", "seat 1 hand 0: why", "seat 2 hand 0: why"}},
		{1, false, []string{"round", "seat 1 hand 0: why"}},
		{3, false, []string{"round"}},
	}
	for _, tt := range tests {
		if got := rec.DoubtsOn(tt.seat, tt.dealer); !slices.Equal(got, tt.want) {
			t.Errorf("DoubtsOn(%d, %v) = %q, want %q", tt.seat, tt.dealer, got, tt.want)
		}
		if got := rec.DoubtsAt(tt.seat); tt.dealer && !slices.Equal(got, tt.want) {
			t.Errorf("DoubtsAt(%d) = %q, want %q", tt.seat, got, tt.want)
		}
	}
}

func TestCardText(t *testing.T) {
	tests := []struct {
		card     cards.Card
		faceDown bool
		want     string
	}{
		{cards.MustParse("TH"), false, "TH"},
		{cards.MustParse("7S"), true, "7S"}, // turned since, and read
		{cards.Card{}, true, FaceDownText},
		{cards.Card{}, false, UnreadText},
		{cards.Card{Rank: cards.Eight}, false, "8?"},
	}
	for _, tt := range tests {
		got := CardText(tt.card, tt.faceDown)
		if got != tt.want {
			t.Errorf("CardText(%v, %v) = %q, want %q", tt.card, tt.faceDown, got, tt.want)
		}
		if back, err := parseCard(got); err != nil || back != tt.card {
			t.Errorf("parseCard(%q) = %v, %v, want %v", got, back, err, tt.card)
		}
	}
}

// records reads the records under testdata/, by file name.
func records(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, _ := filepath.Glob("testdata/round-*.json")
	if len(files) < 5 {
		tb.Fatalf("%d testdata/round-*.json, want 5 or more", len(files))
	}
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[f] = data
	}
	return out
}

// FuzzParse checks that reading never fails but with game.ErrRound, and
// that a record read and written again reads as the same round and writes
// the same bytes.
func FuzzParse(f *testing.F) {
	for _, data := range records(f) {
		f.Add(data)
	}
	f.Add([]byte(`{"seats":[{"hands":[{"cards":[{"card":"7S"}],"split_from":-5}]}]}`))
	f.Add([]byte(`{"round":"1","dealer":null,"seats":[{"seat":2,"hands":null}],"doubts":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Parse(data)
		if err != nil {
			if !errors.Is(err, game.ErrRound) {
				t.Fatalf("Parse(%q) error %v does not wrap game.ErrRound", data, err)
			}
			return
		}
		g, err := rec.Round()
		if err != nil && !errors.Is(err, game.ErrRound) {
			t.Fatalf("Round of %q: error %v does not wrap game.ErrRound", data, err)
		}
		written, err2 := json.Marshal(rec)
		if err2 != nil {
			t.Fatalf("writing a record read: %v", err2)
		}
		rec2, g2, err2 := parseRound(written)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("reading %q: %v; written again and read: %v", data, err, err2)
		}
		again, _ := json.Marshal(rec2)
		if !bytes.Equal(again, written) {
			t.Fatalf("written twice:\n%s\n%s", written, again)
		}
		g.ID, g2.ID = "", "" // not valid UTF-8: written with U+FFFD
		if !reflect.DeepEqual(g, g2) {
			t.Fatalf("read %+v, written and read again %+v", g, g2)
		}
	})
}

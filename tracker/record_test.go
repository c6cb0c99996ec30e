package tracker

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/roundrecord"
)

// records are the round records package roundrecord tests its parser on.
const records = "../roundrecord/testdata/"

// TestParseRound reads each record and checks that a Round writes it
// again byte for byte as package roundrecord does, whose tests check its
// writing against the records themselves: every card and its sighting
// went through the Round unchanged. A record roundrecord cannot read is
// an error here too.
func TestParseRound(t *testing.T) {
	files, _ := filepath.Glob(records + "round-*.json")
	if len(files) < 3 {
		t.Fatalf("%d %sround-*.json, want 3 or more", len(files), records)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data := mustRead(t, f)
			r, err := ParseRound(data)
			rec, recErr := roundrecord.Parse(data)
			if recErr == nil {
				_, recErr = rec.Round()
			}
			if (err == nil) != (recErr == nil) {
				t.Fatalf("ParseRound(%s) = %v, but roundrecord reads it with error %v", f, err, recErr)
			}
			if err != nil {
				if !errors.Is(err, game.ErrRound) {
					t.Errorf("ParseRound(%s) = %v, want game.ErrRound", f, err)
				}
				return
			}
			got, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("round written again:\n%s\nwant\n%s", got, want)
			}
		})
	}
	r, err := ParseRound(mustRead(t, records+"round-unread.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		at       game.Place
		want     cards.Card
		faceDown bool
	}{
		{game.Place{Seat: 0, Hand: -1, Card: 1}, cards.Card{}, true}, // XX
		{game.Place{Seat: 2, Hand: 0, Card: 1}, cards.Card{}, false}, // ??
		{game.Place{Seat: 2, Hand: 1, Card: 1}, cards.MustParse("KD"), false},
	}
	for _, tt := range tests {
		c, ok := r.Card(tt.at)
		if !ok || c.Card != tt.want || c.FaceDown != tt.faceDown {
			t.Errorf("Card(%v) = %v face down %v (found %v), want %v face down %v", tt.at, c.Card, c.FaceDown, ok, tt.want, tt.faceDown)
		}
	}
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func FuzzParseRound(f *testing.F) {
	files, _ := filepath.Glob(records + "round-*.json")
	for _, p := range files {
		f.Add(mustRead(f, p))
	}
	f.Add([]byte(`{"seats":[{"hands":[{"cards":[{"card":"7S"}],"split_from":-5}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRound(data)
		if err != nil {
			if !errors.Is(err, game.ErrRound) {
				t.Fatalf("ParseRound error %v does not wrap game.ErrRound", err)
			}
			return
		}
		// A round read must survive everything the monitor does with one.
		g := r.Round
		g.Violations(game.DefaultRules())
		for _, s := range g.Seats {
			s.Received()
			s.FirstTwo()
			s.Lammers()
			for _, h := range s.Hands {
				h.BustCard()
			}
		}
		New(DefaultConfig(25), nil, game.DefaultRules()).settle(&r)
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("writing a round read: %v", err)
		}
	})
}

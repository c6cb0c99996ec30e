package alerts

import (
	"encoding/json"
	"strings"
	"testing"

	"bjmonitor/game"
	"bjmonitor/tracker"
)

func TestEncode(t *testing.T) {
	b, err := Encode(RecordAlert, "bj-7", Alert{ID: "x", Kind: Overpaid, Table: "bj-7"})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if m["type"] != "alert" || m["kind"] != "overpaid" || m["id"] != "x" || m["table"] != "bj-7" {
		t.Errorf("record %s", b)
	}
	if n := strings.Count(string(b), `"table"`); n != 1 {
		t.Errorf("record %s names its table %d times", b, n)
	}
	if _, err := Encode(RecordAlert, "bj-8", Alert{ID: "x", Table: "bj-7"}); err == nil {
		t.Error("an alert of another table was written")
	}
	if b, err := Encode(RecordRound, "t", struct{}{}); err != nil || string(b) != `{"type":"round","table":"t"}` {
		t.Errorf("empty object: %s, %v", b, err)
	}
	if _, err := Encode(RecordRound, "t", []int{1}); err == nil {
		t.Error("a JSON array was accepted as a record")
	}
}

// Empty lists are written [], never null: an alert on no cards, and a
// round with no dealer's card or no seat.
func TestEmptyListsAreNotNull(t *testing.T) {
	for name, v := range map[string]any{
		"alert":       Alert{ID: "x", Kind: Unjudged, Table: "t", Round: "1"},
		"round":       tracker.Round{Round: game.Round{ID: "1"}},
		"empty hand":  tracker.Round{Round: game.Round{ID: "1", Seats: []game.Seat{{Seat: 2, Hands: []game.Hand{{SplitFrom: -1}}}}}},
		"no hands":    tracker.Round{Round: game.Round{ID: "1", Seats: []game.Seat{{Seat: 2}}}},
		"alert cards": Alert{ID: "x", Kind: Overpaid, Table: "t", Round: "1", Cards: []CardRead{{Card: "7S", Confidence: 0.9}}},
	} {
		b, err := Encode(RecordAlert, "t", v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Contains(string(b), "null") {
			t.Errorf("%s: %s", name, b)
		}
	}
	r := tracker.Round{Round: game.Round{ID: "1", Seats: []game.Seat{{Seat: 2}}}}
	if _, err := json.Marshal(r); err != nil || r.Seats[0].Hands != nil {
		t.Errorf("writing a round changed it: %+v (%v)", r, err)
	}
}

// A procedure alert is always for review, and its id names its rule and,
// from the second, its number.
func TestProcedureAlert(t *testing.T) {
	rc := NewReconciler(Config{Table: "t"}, nil)
	a := rc.ProcedureAlert("1842", 100, EarlyGameEnd, 1, "early")
	if a.ID != "t:1842:0::procedure:early_game_end" || a.Severity != Review || a.Round != "1842" || a.Rule != EarlyGameEnd {
		t.Errorf("ProcedureAlert = %+v", a)
	}
	if a := rc.ProcedureAlert("1842", 100, EarlyGameEnd, 2, "early"); a.ID != "t:1842:0::procedure:early_game_end:2" {
		t.Errorf("second ProcedureAlert id %q", a.ID)
	}
}

package alerts

import (
	"encoding/json"
	"strings"
	"testing"
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

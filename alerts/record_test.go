package alerts

import (
	"encoding/json"
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
	if m["type"] != "alert" || m["kind"] != "overpaid" || m["id"] != "x" {
		t.Errorf("record %s", b)
	}
	if b, err := Encode(RecordRound, "t", struct{}{}); err != nil || string(b) != `{"type":"round","table":"t"}` {
		t.Errorf("empty object: %s, %v", b, err)
	}
	if _, err := Encode(RecordRound, "t", []int{1}); err == nil {
		t.Error("a JSON array was accepted as a record")
	}
}

package alerts

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The types of result record, the same on MQTT and in JSONL files.
const (
	RecordRound   = "round"
	RecordOutcome = "outcome"
	RecordAlert   = "alert"
)

// Encode writes one result record: v's JSON object with "type" and
// "table" first, so that a consumer can tell the records apart on one
// stream.
func Encode(typ, table string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("alerts: a %s record must be a JSON object", typ)
	}
	head, err := json.Marshal(struct {
		Type  string `json:"type"`
		Table string `json:"table"`
	}{typ, table})
	if err != nil {
		return nil, err
	}
	out := head[:len(head)-1] // drop the closing brace
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

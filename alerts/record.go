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
// stream. A v that names its table itself (an Alert) keeps its own "table",
// which must be table.
func Encode(typ, table string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("alerts: a %s record must be a JSON object", typ)
	}
	// A record that names its table itself (an alert does) keeps its
	// own "table" key: a JSON object must not say it twice.
	var own struct {
		Table *string `json:"table"`
	}
	if err := json.Unmarshal(body, &own); err != nil {
		return nil, err
	}
	var head []byte
	switch {
	case own.Table == nil:
		head, err = json.Marshal(struct {
			Type  string `json:"type"`
			Table string `json:"table"`
		}{typ, table})
	case *own.Table != table:
		return nil, fmt.Errorf("alerts: a %s record of table %q written for table %q", typ, *own.Table, table)
	default:
		head, err = json.Marshal(struct {
			Type string `json:"type"`
		}{typ})
	}
	if err != nil {
		return nil, err
	}
	out := head[:len(head)-1] // drop the closing brace
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

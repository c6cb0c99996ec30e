package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"bjmonitor/console/store"
	"bjmonitor/evidence/ship"
	"bjmonitor/roundrecord"
)

// Kinds of message a table publishes, the last part of its topics.
const (
	KindAvailable = "available"
	KindRound     = "round"
	KindOutcome   = "outcome"
	KindAlert     = "alert"
	KindStats     = "stats"
	KindEvidence  = ship.Kind
)

// Kinds lists every kind the console subscribes to.
var Kinds = []string{KindAvailable, KindRound, KindOutcome, KindAlert, KindStats, KindEvidence}

// Message is one parsed MQTT message of a table. Exactly one of its
// record fields is set, as Kind says.
type Message struct {
	Table, Kind  string
	Availability string
	Stats        store.Stats
	Round        store.Round
	Outcome      store.Outcome
	Alert        store.Alert
	Evidence     store.Evidence
}

// ErrMalformed is what Parse's errors wrap for a message that is not what
// docs/mqtt.md describes.
var ErrMalformed = errors.New("malformed message")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// Parse reads a message received on topic under prefix at time now (the
// time the console stores it under).
func Parse(prefix, topic string, payload []byte, now time.Time) (Message, error) {
	rest, ok := strings.CutPrefix(topic, prefix+"/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 2 || parts[0] == "" {
		return Message{}, malformed("topic %q is not %s/<table>/<kind>", topic, prefix)
	}
	m := Message{Table: parts[0], Kind: parts[1]}
	var err error
	switch m.Kind {
	case KindAvailable:
		m.Availability = string(payload)
		if m.Availability != "online" && m.Availability != "stopped" && m.Availability != "offline" {
			err = malformed("availability %q: want online, stopped or offline", clip(payload))
		}
	case KindStats:
		m.Stats, err = parseStats(m.Table, payload, now)
	case KindRound:
		m.Round, err = parseRound(m.Table, payload, now)
	case KindOutcome:
		m.Outcome, err = parseOutcome(m.Table, payload, now)
	case KindAlert:
		m.Alert, err = parseAlert(m.Table, payload, now)
	case KindEvidence:
		m.Evidence, err = parseEvidence(payload, now)
	default:
		err = malformed("unknown kind %q", m.Kind)
	}
	return m, err
}

// clip shortens a payload for a message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// head is what every record starts with.
type head struct {
	Type  string `json:"type"`
	Table string `json:"table"`
}

// decode reads a record's JSON into v and checks that it is a record of
// typ for table.
func decode(typ, table string, payload []byte, v any) error {
	var h head
	if err := json.Unmarshal(payload, &h); err != nil {
		return malformed("%s: %v", typ, err)
	}
	if h.Type != typ {
		return malformed("a %q record on the %s topic", h.Type, typ)
	}
	if h.Table != table {
		return malformed("a record of table %q on table %q's topic", h.Table, table)
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return malformed("%s: %v", typ, err)
	}
	return nil
}

func parseStats(table string, payload []byte, now time.Time) (store.Stats, error) {
	var r struct {
		TS      string  `json:"ts"`
		FPS     float64 `json:"fps"`
		Frames  int64   `json:"frames"`
		Dropped int64   `json:"dropped"`
	}
	if err := decode(KindStats, table, payload, &r); err != nil {
		return store.Stats{}, err
	}
	at := now
	if r.TS != "" {
		t, err := time.Parse(time.RFC3339, r.TS)
		if err != nil {
			return store.Stats{}, malformed("stats ts %q: %v", r.TS, err)
		}
		// A box's clock ahead of the console's is trusted no further than
		// now, so its stats are not stuck in the future.
		at = earlier(t, now)
	}
	return store.Stats{Table: table, At: at, FPS: r.FPS, Frames: r.Frames, Dropped: r.Dropped, Body: payload}, nil
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func parseRound(table string, payload []byte, now time.Time) (store.Round, error) {
	var r roundrecord.Record
	if err := decode(KindRound, table, payload, &r); err != nil {
		return store.Round{}, err
	}
	if r.ID == "" {
		return store.Round{}, malformed("round record without a round")
	}
	return store.Round{Table: table, Round: r.ID, Received: now, Body: payload}, nil
}

func parseOutcome(table string, payload []byte, now time.Time) (store.Outcome, error) {
	var r struct {
		Round string `json:"round"`
		Seat  int    `json:"seat"`
		Bet   string `json:"bet"`
	}
	if err := decode(KindOutcome, table, payload, &r); err != nil {
		return store.Outcome{}, err
	}
	if r.Round == "" || r.Bet == "" {
		return store.Outcome{}, malformed("outcome record without its round or bet")
	}
	return store.Outcome{Table: table, Round: r.Round, Seat: r.Seat, Bet: r.Bet, Received: now, Body: payload}, nil
}

func parseAlert(table string, payload []byte, now time.Time) (store.Alert, error) {
	var r struct {
		ID       string  `json:"id"`
		Round    string  `json:"round"`
		Seat     int     `json:"seat"`
		Bet      string  `json:"bet"`
		Kind     string  `json:"kind"`
		Severity string  `json:"severity"`
		Expected float64 `json:"expected"`
		Entered  float64 `json:"entered"`
	}
	if err := decode(KindAlert, table, payload, &r); err != nil {
		return store.Alert{}, err
	}
	if r.ID == "" || r.Kind == "" || r.Severity == "" {
		return store.Alert{}, malformed("alert record without its id, kind or severity")
	}
	return store.Alert{ID: r.ID, Table: table, Round: r.Round, Seat: r.Seat, Bet: r.Bet, Kind: r.Kind, Severity: r.Severity,
		Expected: r.Expected, Entered: r.Entered, Received: now, Body: payload}, nil
}

// parseEvidence reads an evidence message (package ship's format).
func parseEvidence(payload []byte, now time.Time) (store.Evidence, error) {
	h, data, err := ship.Decode(payload)
	if err != nil {
		return store.Evidence{}, malformed("%v", err)
	}
	return store.Evidence{AlertID: h.Alert, File: h.File, ContentType: h.ContentType, Received: now, Data: data}, nil
}

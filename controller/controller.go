// Package controller reads and writes the table controller's events: what
// the dealer entered on the table's control panel (game start and end,
// wagers, payouts, progressive awards and meter readings). They arrive as
// one JSON object per MQTT message, or one per line of a replay log.
//
//	{"type":"payout","round":"1842","seat":3,"bet":"21+3","amount":45,"t":21.0,"seq":1207}
//
// seq, when there, numbers the table's events; a repeated seq is a re-send
// (Dedup). A Journal keeps the events a live monitor took on disk until
// their round is judged, so that a restart mid-round loses none.
// An event's time is either t, seconds from the first frame of the video,
// or ts, an RFC 3339 timestamp. A payout amount is the win, not counting
// the wager returned.
package controller

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// The event types.
const (
	GameStart        = "game_start"
	GameEnd          = "game_end"
	Wager            = "wager"
	Payout           = "payout"
	ProgressiveAward = "progressive_award"
	Meter            = "meter"
)

// Event is one controller event.
type Event struct {
	Type string `json:"type"`
	// Seq, when not 0, numbers the event among its table's: the
	// controller increases it with each event, so a repeated Seq is a
	// re-send of an event already taken (Dedup).
	Seq    uint64  `json:"seq,omitempty"`
	Round  string  `json:"round,omitempty"`
	Seat   int     `json:"seat,omitempty"`
	Bet    string  `json:"bet,omitempty"`
	Award  string  `json:"award,omitempty"`
	Amount float64 `json:"amount,omitempty"`
	// T is seconds from the first frame of the video; TS a wall-clock time.
	T  *float64   `json:"t,omitempty"`
	TS *time.Time `json:"ts,omitempty"`
	// HeldOpen marks a game_end taken again from a Journal after a
	// restart whose round the monitor stopped had held open after it: the
	// game_end came while the round was still being dealt, so it was not
	// obeyed, and the round was to end when the table is cleared. It is
	// the restarted monitor's own note, never read from or written to
	// JSON, so no controller message can carry it.
	HeldOpen bool `json:"-"`
}

// Dedup tells re-sent events from new ones by their Seq. It remembers
// the last dedupWindow numbers it saw. The zero Dedup is ready; it is not
// safe for concurrent use.
type Dedup struct {
	seen map[uint64]bool
	ring []uint64 // the numbers in seen, oldest first once full
	next int
}

// dedupWindow is how many event numbers Dedup remembers: hours of a
// table's events, far more than a broker re-sends after a reconnect.
const dedupWindow = 4096

// Repeat reports whether e repeats an event seen already (the same Seq);
// it remembers e's. An event without a Seq is never a repeat.
func (d *Dedup) Repeat(e Event) bool {
	if e.Seq == 0 {
		return false
	}
	if d.seen[e.Seq] {
		return true
	}
	if d.seen == nil {
		d.seen = make(map[uint64]bool, dedupWindow)
	}
	if len(d.ring) < dedupWindow {
		d.ring = append(d.ring, e.Seq)
	} else {
		delete(d.seen, d.ring[d.next])
		d.ring[d.next] = e.Seq
		d.next = (d.next + 1) % dedupWindow
	}
	d.seen[e.Seq] = true
	return false
}

// At returns an event timed t seconds into the video.
func At(t float64, e Event) Event {
	e.T = &t
	return e
}

// ErrMalformed is wrapped by every error Parse returns for a line that is
// not a well-formed event; ErrUnknownType for a well-formed event of a type
// this monitor does not know. Callers log and count both, and go on.
var (
	ErrMalformed   = errors.New("malformed controller event")
	ErrUnknownType = errors.New("unknown controller event type")
)

// Parse decodes and checks one event.
func Parse(data []byte) (Event, error) {
	var e Event
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&e); err != nil {
		return Event{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("%w: more than one JSON value", ErrMalformed)
	}
	if err := e.Validate(); err != nil {
		return Event{}, err
	}
	return e, nil
}

// Validate checks that the event has the fields its type needs.
func (e Event) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrMalformed, e.Type, fmt.Sprintf(format, a...))
	}
	if e.T != nil && (math.IsNaN(*e.T) || math.IsInf(*e.T, 0) || *e.T < 0) {
		return bad("t %v: want seconds from the first frame", *e.T)
	}
	if math.IsNaN(e.Amount) || math.IsInf(e.Amount, 0) || e.Amount < 0 {
		return bad("amount %v: want a non-negative amount", e.Amount)
	}
	switch e.Type {
	case GameStart, GameEnd:
		if e.Round == "" {
			return bad("no round")
		}
	case Wager, Payout:
		if e.Round == "" || e.Seat <= 0 || e.Bet == "" {
			return bad("want round, seat (1 or more) and bet")
		}
		if e.Type == Wager && e.Amount <= 0 {
			return bad("amount %v: a wager is more than 0", e.Amount)
		}
	case ProgressiveAward:
		if e.Round == "" || e.Seat <= 0 || (e.Award != "10%" && e.Award != "100%") {
			return bad(`want round, seat and award "10%%" or "100%%"`)
		}
	case Meter:
		if e.Bet == "" {
			return bad("no bet")
		}
	case "":
		return fmt.Errorf("%w: no type", ErrMalformed)
	default:
		return fmt.Errorf("%w %q", ErrUnknownType, e.Type)
	}
	return nil
}

// Seconds returns the event's time in seconds from the first frame: t, or
// ts less start (the wall-clock time of the first frame). ok is false when
// the event carries neither.
func (e Event) Seconds(start time.Time) (s float64, ok bool) {
	switch {
	case e.T != nil:
		return *e.T, true
	case e.TS != nil:
		return e.TS.Sub(start).Seconds(), true
	}
	return 0, false
}

// SortByTime orders events timed by t, keeping the order of events at the
// same time (a log's own order is the dealer's). Events without t sort
// first.
func SortByTime(events []Event) {
	at := func(e Event) float64 {
		if e.T == nil {
			return math.Inf(-1)
		}
		return *e.T
	}
	slices.SortStableFunc(events, func(a, b Event) int { return cmp.Compare(at(a), at(b)) })
}

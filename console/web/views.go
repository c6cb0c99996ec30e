package web

import (
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"bjmonitor/console/store"
)

// The records' JSON as docs/mqtt.md describes it, read for display. The
// console reads only what it shows, and shows the rest of a record raw; a
// round record is package roundrecord's.

// cardRead is a card an alert rests on, as alerts.CardRead writes it.
type cardRead struct {
	Card       string   `json:"card"`
	Confidence float64  `json:"confidence"`
	Candidates []string `json:"candidates"`
}

type alertBody struct {
	Cards         []cardRead `json:"cards"`
	Detail        string     `json:"detail"`
	Result        string     `json:"result"`
	ExpectedAward string     `json:"expected_award"`
	EnteredAward  string     `json:"entered_award"`
	VideoTime     float64    `json:"video_time"`
	Frame         int        `json:"frame"`
	Snapshot      string     `json:"snapshot"`
	Clip          string     `json:"clip"`
}

type outcomeBody struct {
	Seat   int      `json:"seat"`
	Bet    string   `json:"bet"`
	Wager  float64  `json:"wager"`
	Result string   `json:"result"`
	Pays   float64  `json:"pays"`
	Win    float64  `json:"win"`
	Award  string   `json:"award"`
	Cards  []string `json:"cards"`
}

// parseAlertBody reads what the page shows of an alert; a body it cannot
// read shows as empty (the ingest checked its fields already).
func parseAlertBody(b []byte) alertBody {
	var a alertBody
	_ = json.Unmarshal(b, &a)
	return a
}

func alertURL(id string) string { return "/alert?id=" + url.QueryEscape(id) }

// alertRow is an alert as a list shows it.
type alertRow struct {
	store.Alert
	Body alertBody
	URL  string
}

func rows(as []store.Alert) []alertRow {
	out := make([]alertRow, len(as))
	for i, a := range as {
		out[i] = alertRow{Alert: a, Body: parseAlertBody(a.Body), URL: alertURL(a.ID)}
	}
	return out
}

// entry is one wager as the dealer entered it beside what the cards say.
type entry struct {
	Seat                  int
	Bet, Result           string
	Wager                 float64
	Should, Entered       string
	Alert                 string // the alert's kind, when the entry raised one
	AlertURL              string
	Matches, CurrentAlert bool
}

// entries lines up a round's outcomes with its alerts: where an alert
// names the seat and bet, the dealer entered what it says; elsewhere the
// entry matched the cards (the monitor raises an alert for any other).
func entries(outcomes []store.Outcome, alerts []store.Alert, current string) []entry {
	byWager := map[string]store.Alert{}
	for _, a := range alerts {
		byWager[fmt.Sprint(a.Seat, a.Bet)] = a
	}
	var out []entry
	for _, o := range outcomes {
		var b outcomeBody
		_ = json.Unmarshal(o.Body, &b)
		should := money(b.Win)
		if b.Award != "" {
			should = b.Award + " of the meter"
		}
		e := entry{Seat: o.Seat, Bet: o.Bet, Result: b.Result, Wager: b.Wager, Should: should, Entered: should, Matches: true}
		key := fmt.Sprint(o.Seat, o.Bet)
		if a, ok := byWager[key]; ok {
			e.Entered, e.Matches, e.Alert, e.AlertURL, e.CurrentAlert = enteredText(a), false, a.Kind, alertURL(a.ID), a.ID == current
			delete(byWager, key)
		}
		out = append(out, e)
	}
	// Alerts on entries with no outcome: a payout with no wager, a wager
	// the monitor could not judge.
	for _, a := range alerts {
		if _, ok := byWager[fmt.Sprint(a.Seat, a.Bet)]; ok {
			out = append(out, entry{Seat: a.Seat, Bet: a.Bet, Should: money(a.Expected), Entered: enteredText(a),
				Alert: a.Kind, AlertURL: alertURL(a.ID), CurrentAlert: a.ID == current})
		}
	}
	return out
}

func enteredText(a store.Alert) string {
	if b := parseAlertBody(a.Body); b.EnteredAward != "" {
		return b.EnteredAward + " of the meter"
	}
	return money(a.Entered)
}

func money(v float64) string { return fmt.Sprintf("$%.2f", v) }

func percent(c float64) string { return fmt.Sprintf("%.0f%%", 100*c) }

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

package web

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"bjmonitor/alerts"
	"bjmonitor/console/store"
	"bjmonitor/roundrecord"
)

func (s *Server) parseTemplates() error {
	funcs := template.FuncMap{"money": money, "percent": percent, "when": when, "label": label, "either": either,
		"list": func(s ...string) []string { return s }, "inc": func(i int) int { return i + 1 }}
	s.pages = map[string]*template.Template{}
	for _, name := range []string{"login", "home", "alerts", "alert"} {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return fmt.Errorf("web: template %s: %w", name, err)
		}
		s.pages[name] = t
	}
	return nil
}

// either lists the cards a card read two ways may be: "6C or 9C",
// "6C, 8C or 9C".
func either(cs []string) string {
	if len(cs) < 2 {
		return strings.Join(cs, "")
	}
	return strings.Join(cs[:len(cs)-1], ", ") + " or " + cs[len(cs)-1]
}

// label turns a code (false_alarm) into words (false alarm).
func label(s string) string { return strings.ReplaceAll(s, "_", " ") }

// page is what every page's layout needs.
type page struct {
	Title string
	V     *visitor
	Data  any
}

func (s *Server) render(w http.ResponseWriter, status int, name string, v *visitor, data any) {
	var b bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&b, "layout", page{Title: name, V: v, Data: data}); err != nil {
		s.fail(w, "rendering "+name, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

func (s *Server) fail(w http.ResponseWriter, what string, err error) {
	s.log.Error("console: "+what, "err", err)
	http.Error(w, "the console could not do that: "+what, http.StatusInternalServerError)
}

type homeData struct {
	Tables []store.Table
	Alerts []alertRow
	Counts map[string]int64
	Now    time.Time
}

func (s *Server) home(w http.ResponseWriter, r *http.Request, v *visitor) {
	now := s.cfg.Now()
	tables, err := s.store.Tables(r.Context(), now)
	if err != nil {
		s.fail(w, "listing tables", err)
		return
	}
	alerts, err := s.store.Alerts(r.Context(), store.Filter{Limit: 50})
	if err != nil {
		s.fail(w, "listing alerts", err)
		return
	}
	d := homeData{Tables: tables, Alerts: rows(alerts), Now: now}
	if s.cfg.Counts != nil {
		d.Counts = s.cfg.Counts()
	}
	s.render(w, http.StatusOK, "home", v, d)
}

// pageSize is how many alerts a list page shows.
const pageSize = 100

// filter reads a list's filter from the query; the problem, if any, is
// for the page.
func filter(q url.Values) (store.Filter, string) {
	f := store.Filter{Table: q.Get("table"), Kind: q.Get("kind"), Severity: q.Get("severity"), Status: q.Get("status")}
	var problems []string
	for _, b := range []struct {
		key string
		t   *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := q.Get(b.key); v != "" {
			t, err := time.ParseInLocation("2006-01-02T15:04", v, time.Local)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s %q is not a date and time", b.key, v))
				continue
			}
			*b.t = t
		}
	}
	fmt.Sscan(q.Get("before"), &f.Before)
	return f, strings.Join(problems, "; ")
}

type listData struct {
	Q       url.Values
	Alerts  []alertRow
	Total   int
	Next    string
	CSV     string
	Problem string
}

func (s *Server) alertList(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, problem := filter(r.URL.Query())
	f.Limit = pageSize
	alerts, err := s.store.Alerts(r.Context(), f)
	if err != nil {
		s.fail(w, "listing alerts", err)
		return
	}
	total, err := s.store.CountAlerts(r.Context(), f)
	if err != nil {
		s.fail(w, "counting alerts", err)
		return
	}
	d := listData{Q: r.URL.Query(), Alerts: rows(alerts), Total: total, Problem: problem}
	q := r.URL.Query()
	q.Del("before")
	d.CSV = "/alerts.csv?" + q.Encode()
	if len(alerts) == pageSize {
		q.Set("before", fmt.Sprint(alerts[len(alerts)-1].Seq))
		d.Next = "/alerts?" + q.Encode()
	}
	s.render(w, http.StatusOK, "alerts", v, d)
}

// alertCSV exports the alerts a filter picks (a shift's, with from and
// to), oldest first, each with its resolution and its audit trail.
func (s *Server) alertCSV(w http.ResponseWriter, r *http.Request, _ *visitor) {
	f, problem := filter(r.URL.Query())
	if problem != "" {
		http.Error(w, problem, http.StatusBadRequest)
		return
	}
	alerts, err := s.store.Alerts(r.Context(), f)
	if err != nil {
		s.fail(w, "listing alerts", err)
		return
	}
	ids := make([]string, len(alerts))
	for i, a := range alerts {
		ids[i] = a.ID
	}
	trails, err := s.store.Trails(r.Context(), ids)
	if err != nil {
		s.fail(w, "reading audit trails", err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="alerts-`+s.cfg.Now().Format("20060102-1504")+`.csv"`)
	cw := csv.NewWriter(w)
	cw.Write([]string{"received", "id", "table", "round", "seat", "bet", "kind", "severity", "expected", "entered", "cards", "detail", "status", "trail"})
	for i := len(alerts) - 1; i >= 0; i-- {
		a := alerts[i]
		b := parseAlertBody(a.Body)
		var cards, trail []string
		for _, c := range b.Cards {
			read := c.Card + " " + percent(c.Confidence)
			if len(c.Candidates) > 0 {
				read += " (" + either(c.Candidates) + ")"
			}
			cards = append(cards, read)
		}
		for _, e := range trails[a.ID] {
			trail = append(trail, fmt.Sprintf("%s %s %s %s %s", e.At.UTC().Format(time.RFC3339), e.User, e.Action, e.Resolution, e.Note))
		}
		cw.Write([]string{a.Received.UTC().Format(time.RFC3339), a.ID, a.Table, a.Round, fmt.Sprint(a.Seat), a.Bet, a.Kind, a.Severity,
			fmt.Sprintf("%.2f", a.Expected), fmt.Sprintf("%.2f", a.Entered), strings.Join(cards, " "), b.Detail, a.Status, strings.Join(trail, " | ")})
	}
	cw.Flush()
}

type alertData struct {
	A       alertRow
	Round   *roundrecord.Record
	Entries []entry
	Trail   []store.AuditEntry
	// Snapshot and Clip are the files' addresses while they are kept;
	// SnapshotExpired and ClipExpired when they were pruned.
	Snapshot, Clip               string
	SnapshotExpired, ClipExpired time.Time
	Resolutions                  []string
	Problem                      string
	// Doubts are the round record's doubts that bear on the alert: at
	// its seat (the round's own, and its seat's), or all of them for an
	// alert of no seat, but for those about the dealer's cards alone
	// where the alert does not turn on them (alerts.TurnsOnDealer), which
	// are DealerDoubts. OtherDoubts are those written at other seats only.
	Doubts, DealerDoubts, OtherDoubts []string
}

func (s *Server) alertPage(w http.ResponseWriter, r *http.Request, v *visitor) {
	s.showAlert(w, r, v, r.URL.Query().Get("id"), http.StatusOK, "")
}

func (s *Server) showAlert(w http.ResponseWriter, r *http.Request, v *visitor, id string, status int, problem string) {
	ctx := r.Context()
	a, err := s.store.Alert(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		http.NotFound(w, r)
		return
	} else if err != nil {
		s.fail(w, "reading the alert", err)
		return
	}
	d := alertData{A: rows([]store.Alert{a})[0], Problem: problem, Resolutions: []string{store.ConfirmedError, store.FalseAlarm, store.Other}}
	if rd, err := s.store.Round(ctx, a.Table, a.Round); err == nil {
		if rec, err := roundrecord.Parse(rd.Body); err == nil {
			d.Round = &rec
			d.Doubts = rec.DoubtsOn(a.Seat, alerts.TurnsOnDealer(a.Kind, a.Bet))
			for _, x := range rec.DoubtsAt(0) {
				switch {
				case slices.Contains(d.Doubts, x):
				case slices.Contains(rec.DealerDoubts, x):
					d.DealerDoubts = append(d.DealerDoubts, x)
				default:
					d.OtherDoubts = append(d.OtherDoubts, x)
				}
			}
		}
	}
	outcomes, err1 := s.store.Outcomes(ctx, a.Table, a.Round)
	alerts, err2 := s.store.RoundAlerts(ctx, a.Table, a.Round)
	trail, err3 := s.store.Audit(ctx, a.ID)
	files, err4 := s.store.EvidenceFiles(ctx, a.ID)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		s.fail(w, "reading the alert's round", err)
		return
	}
	d.Entries, d.Trail = entries(outcomes, alerts, a.ID), trail
	for _, f := range files {
		u := "/evidence?id=" + url.QueryEscape(a.ID) + "&file=" + f.File
		if !f.Expired.IsZero() {
			u = ""
		}
		switch f.File {
		case "snapshot":
			d.Snapshot, d.SnapshotExpired = u, f.Expired
		case "clip":
			d.Clip, d.ClipExpired = u, f.Expired
		}
	}
	s.render(w, status, "alert", v, d)
}

// resolve records an officer's acknowledgement or resolution of an alert.
func (s *Server) resolve(w http.ResponseWriter, r *http.Request, v *visitor) {
	id := r.PostFormValue("id")
	if !v.Officer() {
		s.log.Warn("console: a viewer tried to resolve an alert", "user", v.User.Name, "alert", id)
		http.Error(w, "only an officer may acknowledge or resolve alerts", http.StatusForbidden)
		return
	}
	e := store.AuditEntry{AlertID: id, At: s.cfg.Now(), User: v.User.Name, Action: r.PostFormValue("action"),
		Resolution: r.PostFormValue("resolution"), Note: strings.TrimSpace(r.PostFormValue("note"))}
	switch e.Action {
	case store.Acknowledge:
		e.Resolution = ""
	case store.Resolve:
	default:
		http.Error(w, "unknown action", http.StatusBadRequest)
		return
	}
	if len(e.Note) > 2000 {
		s.showAlert(w, r, v, id, http.StatusBadRequest, "The note is longer than 2000 characters.")
		return
	}
	err := s.store.Record(r.Context(), e)
	switch {
	case errors.Is(err, store.ErrNotFound):
		http.NotFound(w, r)
		return
	case err != nil && e.Action == store.Resolve && !store.IsResolution(e.Resolution):
		s.showAlert(w, r, v, id, http.StatusBadRequest, "Choose a resolution: confirmed error, false alarm or other.")
		return
	case err != nil:
		s.fail(w, "recording the resolution", err)
		return
	}
	s.log.Info("console: alert "+e.Action, "alert", id, "user", v.User.Name, "resolution", e.Resolution)
	http.Redirect(w, r, alertURL(id), http.StatusSeeOther)
}

// evidence serves an alert's snapshot or clip; ranges are honoured, so
// the browser can seek in a clip.
func (s *Server) evidence(w http.ResponseWriter, r *http.Request, _ *visitor) {
	q := r.URL.Query()
	e, err := s.store.Evidence(r.Context(), q.Get("id"), q.Get("file"))
	if errors.Is(err, store.ErrNotFound) {
		http.NotFound(w, r)
		return
	} else if errors.Is(err, store.ErrExpired) {
		http.Error(w, "this evidence has expired (console.evidence_days)", http.StatusGone)
		return
	} else if err != nil {
		s.fail(w, "reading evidence", err)
		return
	}
	w.Header().Set("Content-Type", e.ContentType)
	w.Header().Set("Cache-Control", "private, max-age=86400")
	http.ServeContent(w, r, "", e.Received, bytes.NewReader(e.Data))
}

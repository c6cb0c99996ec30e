package web

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"bjmonitor/console/store"
)

// feed finds new alerts in the store and hands them to every open page.
// It reads the store, not the ingest, so that a page sees the alerts every
// console instance stored (with a shared subscription, each instance
// receives only some).
type feed struct {
	db   Store
	poll time.Duration
	log  *slog.Logger
	poke chan struct{}

	mu      sync.Mutex
	clients map[chan feedEvent]struct{}
}

// feedEvent is one alert as the page's script shows it.
type feedEvent struct {
	Seq      int64      `json:"seq"`
	ID       string     `json:"id"`
	Table    string     `json:"table"`
	Round    string     `json:"round"`
	Seat     int        `json:"seat"`
	Bet      string     `json:"bet"`
	Kind     string     `json:"kind"`
	Severity string     `json:"severity"`
	Expected float64    `json:"expected"`
	Entered  float64    `json:"entered"`
	Cards    []cardRead `json:"cards"`
	Received string     `json:"received"`
	Status   string     `json:"status"`
	URL      string     `json:"url"`
}

// clientBuffer is how many alerts a page may fall behind before it is
// disconnected; its EventSource reconnects with the last id it saw and
// is sent the rest from the store, so nothing is lost.
const clientBuffer = 256

// window is how far back, in Seq, each poll looks again: PostgreSQL hands
// out sequence numbers before commit, so with several writers a lower
// Seq can become visible after a higher one.
const window = 64

func newFeed(db Store, poll time.Duration) *feed {
	return &feed{db: db, poll: poll, poke: make(chan struct{}, 1), clients: map[chan feedEvent]struct{}{}}
}

func (f *feed) wake() {
	select {
	case f.poke <- struct{}{}:
	default:
	}
}

func (f *feed) run(ctx context.Context) {
	cursor, err := f.db.LastSeq(ctx)
	if err != nil {
		f.log.Error("console feed: reading the newest alert", "err", err)
	}
	// sent holds the Seqs of the window shown already; those stored before
	// the feed started count as shown.
	sent := map[int64]bool{}
	if old, err := f.db.AlertsAfter(ctx, max(0, cursor-window), 1000); err == nil {
		for _, a := range old {
			sent[a.Seq] = true
		}
	}
	tick := time.NewTicker(f.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-f.poke:
		}
		alerts, err := f.db.AlertsAfter(ctx, max(0, cursor-window), 1000)
		if err != nil {
			if ctx.Err() == nil {
				f.log.Error("console feed: reading new alerts", "err", err)
			}
			continue
		}
		for _, a := range alerts {
			if sent[a.Seq] || a.Seq <= cursor-window {
				continue
			}
			sent[a.Seq] = true
			cursor = max(cursor, a.Seq)
			f.broadcast(toEvent(a))
		}
		for seq := range sent {
			if seq <= cursor-window {
				delete(sent, seq)
			}
		}
	}
}

func (f *feed) broadcast(e feedEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.clients {
		select {
		case c <- e:
		default: // a page too far behind: it reconnects and catches up
			delete(f.clients, c)
			close(c)
		}
	}
}

func (f *feed) subscribe() chan feedEvent {
	c := make(chan feedEvent, clientBuffer)
	f.mu.Lock()
	f.clients[c] = struct{}{}
	f.mu.Unlock()
	return c
}

func (f *feed) unsubscribe(c chan feedEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.clients[c]; ok {
		delete(f.clients, c)
		close(c)
	}
}

func toEvent(a store.Alert) feedEvent {
	b := parseAlertBody(a.Body)
	return feedEvent{Seq: a.Seq, ID: a.ID, Table: a.Table, Round: a.Round, Seat: a.Seat, Bet: a.Bet, Kind: a.Kind,
		Severity: a.Severity, Expected: a.Expected, Entered: a.Entered, Cards: b.Cards,
		Received: a.Received.Format("15:04:05"), Status: a.Status, URL: alertURL(a.ID)}
}

// events streams new alerts to a page (server-sent events). A page that
// reconnects says the last alert it saw (Last-Event-ID), and is sent
// what it missed from the store first.
func (s *Server) events(w http.ResponseWriter, r *http.Request, _ *visitor) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	c := s.feed.subscribe()
	defer s.feed.unsubscribe(c)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
	last, _ := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64)
	if last > 0 {
		missed, err := s.store.AlertsAfter(r.Context(), last, 1000)
		if err != nil {
			s.log.Error("console feed: catching a page up", "err", err)
			return
		}
		for _, a := range missed {
			writeEvent(w, toEvent(a))
			last = a.Seq
		}
	}
	fl.Flush()
	ping := time.NewTicker(20 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case e, ok := <-c:
			if !ok {
				return
			}
			if e.Seq <= last {
				continue
			}
			writeEvent(w, e)
			fl.Flush()
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n") // keeps proxies from closing an idle stream
			fl.Flush()
		}
	}
}

func writeEvent(w http.ResponseWriter, e feedEvent) {
	b, _ := json.Marshal(e)
	fmt.Fprintf(w, "id: %d\nevent: alert\ndata: %s\n\n", e.Seq, b)
}

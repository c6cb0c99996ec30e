package driver

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"

	"bjmonitor/controller"
)

// inbox holds the controller's events between the goroutine that delivers
// them (paho's, live) and the frame loop, which takes them between frames.
// It never blocks the sender and never drops an event.
type inbox struct {
	mu     sync.Mutex
	events []controller.Event
}

func (b *inbox) put(e controller.Event) {
	b.mu.Lock()
	b.events = append(b.events, e)
	b.mu.Unlock()
}

func (b *inbox) empty() bool { return b.len() == 0 }

func (b *inbox) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.events)
}

func (b *inbox) take() []controller.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	es := b.events
	b.events = nil
	return es
}

// timedEvent is a controller event and the video time it arrived at.
type timedEvent struct {
	controller.Event
	arrived float64
}

// MaxEarly bounds how far ahead of its arrival an event timed by ts may be
// held, in seconds: the controller's clock may run ahead of the monitor's.
const MaxEarly = 2.0

// queue holds the events taken from the inbox until their time comes, in
// time order (arrival order among equals).
type queue struct {
	start   time.Time // the wall time of video time 0, for events timed by ts
	max     int       // beyond this many held, the earliest are due at once; 0: no bound
	pending []timedEvent
}

// add takes events that arrived at video time t.
func (q *queue) add(events []controller.Event, t float64) {
	if len(events) == 0 {
		return
	}
	for _, e := range events {
		q.pending = append(q.pending, timedEvent{e, t})
	}
	// A stable sort of events already in order keeps their order: the
	// queue is sorted again only when events come.
	slices.SortStableFunc(q.pending, func(a, b timedEvent) int { return cmp.Compare(q.at(a), q.at(b)) })
}

// at is the video time an event is due: its t, its ts (no more than
// MaxEarly past its arrival), or its arrival.
func (q *queue) at(e timedEvent) float64 {
	switch {
	case e.T != nil:
		return *e.T
	case e.TS != nil:
		return math.Min(e.TS.Sub(q.start).Seconds(), e.arrived+MaxEarly)
	}
	return e.arrived
}

// due removes and returns the events due by video time t, in order.
func (q *queue) due(t float64) []controller.Event {
	var due []controller.Event
	n := 0
	for n < len(q.pending) && (q.at(q.pending[n]) <= t || q.max > 0 && len(q.pending)-n > q.max) {
		due = append(due, q.pending[n].Event)
		n++
	}
	q.pending = q.pending[n:]
	return due
}

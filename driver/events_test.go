package driver

import (
	"slices"
	"testing"
	"time"

	"bjmonitor/controller"
)

// TestQueue: an event is due at its t, at its ts (trusted MaxEarly past
// its arrival at most), or at its arrival; equals keep their order; past
// the bound the earliest are due at once.
func TestQueue(t *testing.T) {
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	ts := func(s float64, round string) controller.Event {
		at := start.Add(time.Duration(s * float64(time.Second)))
		return controller.Event{Type: controller.GameStart, Round: round, TS: &at}
	}
	tt := func(s float64, round string) controller.Event {
		return controller.At(s, controller.Event{Type: controller.GameStart, Round: round})
	}
	plain := func(round string) controller.Event { return controller.Event{Type: controller.GameStart, Round: round} }
	tests := []struct {
		name    string
		max     int
		arrived float64
		events  []controller.Event
		by      []float64  // due by these times, in turn
		want    [][]string // the rounds due each time
	}{
		{"by t, in order", 0, 0, []controller.Event{tt(3, "c"), tt(1, "a"), tt(3, "d"), tt(2, "b")},
			[]float64{0.5, 2, 10}, [][]string{nil, {"a", "b"}, {"c", "d"}}},
		{"by ts", 0, 1, []controller.Event{ts(2, "b"), ts(1.5, "a")},
			[]float64{1.4, 1.5, 2}, [][]string{nil, {"a"}, {"b"}}},
		{"a ts far ahead is trusted MaxEarly", 0, 1, []controller.Event{ts(60, "a")},
			[]float64{2.9, 1 + MaxEarly}, [][]string{nil, {"a"}}},
		{"untimed at arrival", 0, 4, []controller.Event{plain("b"), tt(4, "a"), plain("c")},
			[]float64{3.9, 4}, [][]string{nil, {"b", "a", "c"}}},
		{"bounded", 2, 0, []controller.Event{tt(1, "a"), tt(2, "b"), tt(3, "c"), tt(4, "d")},
			[]float64{0, 3}, [][]string{{"a", "b"}, {"c"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := queue{start: start, max: tc.max}
			q.add(tc.events, tc.arrived)
			for i, by := range tc.by {
				var got []string
				for _, e := range q.due(by) {
					got = append(got, e.Round)
				}
				if !slices.Equal(got, tc.want[i]) {
					t.Errorf("due by %v = %v, want %v", by, got, tc.want[i])
				}
			}
		})
	}
}

// FuzzQueue throws arbitrary controller messages at the event clock:
// every event parsed is due once, in time order, and none is lost.
func FuzzQueue(f *testing.F) {
	for _, s := range []string{
		`{"type":"game_start","round":"1842","t":12.30}`,
		`{"type":"wager","round":"1842","seat":3,"bet":"21+3","amount":5,"ts":"2026-11-29T10:00:00Z"}`,
		`{"type":"payout","round":"1842","seat":3,"bet":"21+3","amount":45,"t":1e308}`,
		`{"type":"meter","bet":"blazing7s","amount":-1}`,
		`{"type":"game_end"}`,
	} {
		f.Add([]byte(s), 2.0)
	}
	start := time.Now()
	f.Fuzz(func(t *testing.T, payload []byte, by float64) {
		e, err := controller.Parse(payload)
		if err != nil {
			return
		}
		q := queue{start: start, max: 3}
		q.add([]controller.Event{e, e, e, e}, 1)
		due := q.due(by)
		if len(due)+len(q.pending) != 4 {
			t.Fatalf("events lost between due (%d) and pending (%d)", len(due), len(q.pending))
		}
		if len(due) == 0 {
			t.Fatal("past the bound, the earliest is due at once")
		}
	})
}

package ingest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"bjmonitor/console/store"
	"bjmonitor/internal/mqtttest"
)

// fakeSink stores through function fields; nil ones store nothing and
// call the record new.
type fakeSink struct {
	addAlert func(store.Alert) (bool, error)
}

var _ Sink = (*fakeSink)(nil)

func (f *fakeSink) AddAlert(_ context.Context, a store.Alert) (bool, error) {
	if f.addAlert != nil {
		return f.addAlert(a)
	}
	return true, nil
}
func (f *fakeSink) AddRound(context.Context, store.Round) (bool, error)              { return true, nil }
func (f *fakeSink) AddOutcome(context.Context, store.Outcome) (bool, error)          { return true, nil }
func (f *fakeSink) AddEvidence(context.Context, store.Evidence) (bool, error)        { return true, nil }
func (f *fakeSink) SetAvailability(context.Context, string, string, time.Time) error { return nil }
func (f *fakeSink) SetStats(context.Context, store.Stats) error                      { return nil }

func TestHandle(t *testing.T) {
	seen := map[string]bool{}
	down := false
	sink := &fakeSink{addAlert: func(a store.Alert) (bool, error) {
		if down {
			return false, errors.New("database gone")
		}
		isNew := !seen[a.ID]
		seen[a.ID] = true
		return isNew, nil
	}}
	var notified []string
	in := New(Config{TopicPrefix: "p", Tables: []string{"t"}, OnAlert: func(a store.Alert) { notified = append(notified, a.ID) }}, sink)
	alert := `{"type":"alert","id":"t:1:3:21+3:overpaid","table":"t","round":"1","seat":3,"bet":"21+3","kind":"overpaid","severity":"mismatch"}`
	steps := []struct {
		name, topic, payload string
		down                 bool
		want                 string
		wantErr              bool
	}{
		{"alert", "p/t/alert", alert, false, Stored, false},
		{"again", "p/t/alert", alert, false, Duplicate, false},
		{"garbage", "p/t/alert", `{"type":`, false, Malformed, false},
		{"other table", "p/u/available", `online`, false, UnknownTable, false},
		{"database down", "p/t/alert", alert, true, StoreError, true},
	}
	for _, s := range steps {
		down = s.down
		got, err := in.Handle(context.Background(), s.topic, []byte(s.payload))
		if got != s.want || (err != nil) != s.wantErr {
			t.Errorf("%s: Handle = %q, %v; want %q (error %v)", s.name, got, err, s.want, s.wantErr)
		}
	}
	want := map[string]int64{Stored: 1, Duplicate: 1, Malformed: 1, UnknownTable: 1, StoreError: 1}
	if got := in.Counts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Counts() = %v, want %v", got, want)
	}
	if len(notified) != 1 {
		t.Errorf("OnAlert called for %v, want the one new alert", notified)
	}
}

func TestFilters(t *testing.T) {
	in := New(Config{TopicPrefix: "site/bj", SharedGroup: "room"}, &fakeSink{})
	got := in.Filters()
	for _, want := range []string{"site/bj/+/available", "site/bj/+/stats", "$share/room/site/bj/+/alert", "$share/room/site/bj/+/round",
		"$share/room/site/bj/+/outcome", "$share/room/site/bj/+/evidence"} {
		if q, ok := got[want]; !ok || q != 1 {
			t.Errorf("Filters() = %v, want %s at QoS 1", got, want)
		}
	}
}

// run runs an Ingester until the returned stop is called.
func run(t *testing.T, in *Ingester) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := in.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}

// waitFor polls cond for up to 30 s (the machine may be busy).
func waitFor(t *testing.T, in *Ingester, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; counts %v", what, in.Counts())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunAgainstMosquitto(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := Config{Broker: b.URL(), ClientID: "console-test", TopicPrefix: "bjmonitor", Tables: []string{"table-7"}}
	in := New(cfg, db)
	stop := run(t, in)
	waitFor(t, in, "the subscription", func() bool {
		mqtttest.Publish(t, b.URL(), "bjmonitor/table-7/available", "online")
		return in.Counts()[Stored] > 0
	})
	var payloads []string
	for _, s := range samples(t) {
		mqtttest.Publish(t, b.URL(), s[0], s[1])
		payloads = append(payloads, s[1])
	}
	// Every record again (a monitor resending after a lost
	// acknowledgement), a malformed one, and another table's.
	for _, s := range samples(t)[3:] {
		mqtttest.Publish(t, b.URL(), s[0], s[1])
	}
	mqtttest.Publish(t, b.URL(), "bjmonitor/table-7/alert", `{"type":"alert"`)
	mqtttest.Publish(t, b.URL(), "bjmonitor/table-9/available", "online")
	waitFor(t, in, "every message", func() bool {
		c := in.Counts()
		return c[Duplicate] == 3 && c[Malformed] == 1 && c[UnknownTable] == 1
	})
	ctx := context.Background()
	if n, _ := db.CountAlerts(ctx, store.Filter{}); n != 1 {
		t.Errorf("%d alerts stored, want 1", n)
	}
	tables, err := db.Tables(ctx, time.Now())
	if err != nil || len(tables) != 1 || tables[0].LastRound != "1842" || tables[0].FPS != 12.5 || tables[0].Availability != "offline" {
		t.Errorf("Tables() = %+v, %v; want table-7 with round 1842, 12.5 fps, offline", tables, err)
	}

	// The console stops; an alert published meanwhile waits in its
	// session at the broker, and is stored when it comes back.
	stop()
	away := `{"type":"alert","id":"table-7:1843:1:blazing7s:underpaid","table":"table-7","round":"1843","seat":1,"bet":"blazing7s","kind":"underpaid","severity":"mismatch","expected":2,"entered":0}`
	mqtttest.Publish(t, b.URL(), "bjmonitor/table-7/alert", away)
	in2 := New(cfg, db)
	run(t, in2)
	waitFor(t, in2, "the alert sent while the console was away", func() bool { return in2.Counts()[Stored] >= 1 })
	if _, err := db.Alert(ctx, "table-7:1843:1:blazing7s:underpaid"); err != nil {
		t.Errorf("the alert sent while away: %v", err)
	}
}

// fakeRoster answers Leave with others and err.
type fakeRoster struct {
	others int
	err    error
}

var _ Roster = (*fakeRoster)(nil)

func (f *fakeRoster) Heartbeat(context.Context, string, string, time.Time) error { return nil }
func (f *fakeRoster) Leave(context.Context, string, string, time.Time) (int, error) {
	return f.others, f.err
}

// TestHandOver: an instance of a shared group that stops hands its share
// to the others only when the roster says another carries on; otherwise
// the broker keeps dealing it its turn.
func TestHandOver(t *testing.T) {
	const n = 6
	tests := []struct {
		name      string
		roster    *fakeRoster
		handedOff bool
	}{
		{"another runs", &fakeRoster{others: 1}, true},
		{"the last", &fakeRoster{others: 0}, false},
		{"roster unreachable", &fakeRoster{others: 1, err: errors.New("database gone")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mqtttest.NewMosquitto(t, "")
			b.Start()
			cfg := Config{Broker: b.URL(), TopicPrefix: "p", SharedGroup: "room", Roster: tt.roster}
			stored := map[string]int{}
			var mu sync.Mutex
			sinkOf := func(id string) *fakeSink {
				return &fakeSink{addAlert: func(store.Alert) (bool, error) { mu.Lock(); stored[id]++; mu.Unlock(); return true, nil }}
			}
			cfg.ClientID = "leaving"
			leaving := New(cfg, sinkOf("leaving"))
			stop := run(t, leaving)
			cfg.ClientID = "staying"
			staying := New(cfg, sinkOf("staying"))
			run(t, staying)
			waitFor(t, staying, "both subscribed", func() bool { return leaving.subscribed.Load() && staying.subscribed.Load() })
			stop()
			for i := range n {
				mqtttest.Publish(t, b.URL(), "p/t/alert", fmt.Sprintf(`{"type":"alert","id":"t:%d:3:21+3:overpaid","table":"t","round":"%d","seat":3,"bet":"21+3","kind":"overpaid","severity":"mismatch"}`, i, i))
			}
			want := n
			if !tt.handedOff {
				want = n / 2 // round-robin: the stopped one's turns wait in its session
			}
			waitFor(t, staying, "the alerts", func() bool { return staying.Counts()[Stored] >= int64(want) })
			time.Sleep(300 * time.Millisecond) // anything more would be wrong
			mu.Lock()
			defer mu.Unlock()
			if stored["staying"] != want {
				t.Errorf("the instance still running stored %d of %d alerts, want %d", stored["staying"], n, want)
			}
		})
	}
}

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bjmonitor/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// eachBackend runs test once on a fresh SQLite file and once on a fresh
// PostgreSQL database.
func eachBackend(t *testing.T, test func(t *testing.T, s *Store)) {
	t.Helper()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			s := open(t, address(t, name))
			test(t, s)
		})
	}
}

func address(t *testing.T, backend string) string {
	t.Helper()
	if backend == "postgres" {
		return pgtest.Start(t).NewDatabase(t)
	}
	return filepath.Join(t.TempDir(), "console.db")
}

func open(t *testing.T, addr string) *Store {
	t.Helper()
	s, err := Open(context.Background(), addr)
	if err != nil {
		t.Fatalf("Open(%s): %v", addr, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var t0 = time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)

func alert(table, round string, seat int, kind string, at time.Time) Alert {
	id := fmt.Sprintf("%s:%s:%d:21+3:%s", table, round, seat, kind)
	return Alert{ID: id, Table: table, Round: round, Seat: seat, Bet: "21+3", Kind: kind, Severity: "mismatch",
		Expected: 0, Entered: 45, Received: at, Body: []byte(`{"id":"` + id + `"}`)}
}

func TestMigrations(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			addr := address(t, backend)
			ctx := context.Background()
			s := open(t, addr)
			want := migrations[len(migrations)-1].version
			if v, err := s.Version(ctx); err != nil || v != want {
				t.Fatalf("Version() = %d, %v; want %d", v, err, want)
			}
			if _, err := s.AddAlert(ctx, alert("t1", "1", 3, "overpaid", t0)); err != nil {
				t.Fatal(err)
			}
			s.Close()
			// Opened again, nothing is migrated twice and nothing lost.
			s = open(t, addr)
			var n int
			if err := s.db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(migrations) {
				t.Errorf("schema_migrations has %d rows (%v), want %d", n, err, len(migrations))
			}
			if got, err := s.CountAlerts(ctx, Filter{}); err != nil || got != 1 {
				t.Errorf("CountAlerts after reopening = %d, %v; want 1", got, err)
			}
		})
	}
}

func TestStoredOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		adds := []struct {
			name string
			add  func() (bool, error)
		}{
			{"alert", func() (bool, error) { return s.AddAlert(ctx, alert("t1", "7", 2, "underpaid", t0)) }},
			{"round", func() (bool, error) {
				return s.AddRound(ctx, Round{Table: "t1", Round: "7", Received: t0, Body: []byte(`{}`)})
			}},
			{"outcome", func() (bool, error) {
				return s.AddOutcome(ctx, Outcome{Table: "t1", Round: "7", Seat: 2, Bet: "21+3", Received: t0, Body: []byte(`{}`)})
			}},
			{"evidence", func() (bool, error) {
				return s.AddEvidence(ctx, Evidence{AlertID: "a", File: "snapshot", ContentType: "image/jpeg", Received: t0, Data: []byte{0xff, 0xd8, 0}})
			}},
		}
		for _, a := range adds {
			for i, want := range []bool{true, false} {
				if got, err := a.add(); err != nil || got != want {
					t.Errorf("%s: add #%d = %v, %v; want %v", a.name, i+1, got, err, want)
				}
			}
		}
		// The same seat's outcome on another bet, and the same round
		// number at another table, are different records.
		if got, err := s.AddOutcome(ctx, Outcome{Table: "t1", Round: "7", Seat: 2, Bet: "blazing7s", Received: t0, Body: []byte(`{}`)}); err != nil || !got {
			t.Errorf("outcome on another bet: %v, %v; want new", got, err)
		}
		if got, err := s.AddRound(ctx, Round{Table: "t2", Round: "7", Received: t0, Body: []byte(`{}`)}); err != nil || !got {
			t.Errorf("round at another table: %v, %v; want new", got, err)
		}
		e, err := s.Evidence(ctx, "a", "snapshot")
		if err != nil || string(e.Data) != "\xff\xd8\x00" || e.ContentType != "image/jpeg" {
			t.Errorf("Evidence = %q %q, %v", e.Data, e.ContentType, err)
		}
		if _, err := s.Evidence(ctx, "a", "clip"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Evidence(clip) error = %v, want ErrNotFound", err)
		}
	})
}

func TestTables(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := t0
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.SetAvailability(ctx, "t1", "online", now.Add(-time.Minute)))
		must(s.SetAvailability(ctx, "t1", "offline", now.Add(-2*time.Minute))) // older: ignored
		must(s.SetStats(ctx, Stats{Table: "t1", At: now, FPS: 12.5, Frames: 125, Dropped: 3, Body: []byte(`{}`)}))
		for i, ago := range []time.Duration{90 * time.Minute, 40 * time.Minute, 20 * time.Minute, time.Minute} {
			if _, err := s.AddRound(ctx, Round{Table: "t1", Round: fmt.Sprint(i + 1), Received: now.Add(-ago), Body: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.AddAlert(ctx, alert("t2", "9", 1, "overpaid", now)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Tables(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != "t1" || got[1].ID != "t2" {
			t.Fatalf("Tables() = %+v, want t1 and t2", got)
		}
		t1 := got[0]
		if t1.Availability != "online" || t1.FPS != 12.5 || t1.Dropped != 3 || t1.LastRound != "4" || t1.RoundsLastHour != 3 {
			t.Errorf("t1 = %+v, want online, 12.5 fps, 3 dropped, last round 4, 3 rounds in the last hour", t1)
		}
		if got[1].OpenAlerts != 1 || got[1].Availability != "" {
			t.Errorf("t2 = %+v, want 1 open alert and no availability yet", got[1])
		}
	})
}

func TestFilters(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		seed := []Alert{
			alert("t1", "1", 1, "overpaid", t0),
			alert("t1", "2", 2, "underpaid", t0.Add(time.Hour)),
			alert("t2", "1", 3, "overpaid", t0.Add(2*time.Hour)),
		}
		seed[1].Severity = "review"
		for _, a := range seed {
			if _, err := s.AddAlert(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Record(ctx, AuditEntry{AlertID: seed[0].ID, At: t0, User: "ana", Action: Resolve, Resolution: FalseAlarm}); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name string
			f    Filter
			want []string // rounds@tables, newest first
		}{
			{"all", Filter{}, []string{"1@t2", "2@t1", "1@t1"}},
			{"table", Filter{Table: "t1"}, []string{"2@t1", "1@t1"}},
			{"kind", Filter{Kind: "overpaid"}, []string{"1@t2", "1@t1"}},
			{"severity", Filter{Severity: "review"}, []string{"2@t1"}},
			{"resolved", Filter{Status: FalseAlarm}, []string{"1@t1"}},
			{"unresolved", Filter{Status: Unresolved}, []string{"1@t2", "2@t1"}},
			{"from", Filter{From: t0.Add(time.Hour)}, []string{"1@t2", "2@t1"}},
			{"to", Filter{To: t0.Add(time.Hour)}, []string{"1@t1"}},
			{"limit", Filter{Limit: 1}, []string{"1@t2"}},
			{"none", Filter{Table: "t3"}, nil},
		}
		for _, c := range cases {
			got, err := s.Alerts(ctx, c.f)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var names []string
			for _, a := range got {
				names = append(names, a.Round+"@"+a.Table)
			}
			if fmt.Sprint(names) != fmt.Sprint(c.want) {
				t.Errorf("%s: Alerts(%+v) = %v, want %v", c.name, c.f, names, c.want)
			}
			n, err := s.CountAlerts(ctx, c.f)
			if c.f.Limit == 0 && (err != nil || n != len(c.want)) {
				t.Errorf("%s: CountAlerts = %d, %v; want %d", c.name, n, err, len(c.want))
			}
		}
		// Paging: the alerts before the newest one.
		all, _ := s.Alerts(ctx, Filter{})
		page, err := s.Alerts(ctx, Filter{Before: all[0].Seq})
		if err != nil || len(page) != 2 || page[0].ID != all[1].ID {
			t.Errorf("Alerts(Before newest) = %d alerts, %v; want the other 2", len(page), err)
		}
		after, err := s.AlertsAfter(ctx, all[2].Seq, 10)
		if err != nil || len(after) != 2 || after[0].ID != all[1].ID || after[1].ID != all[0].ID {
			t.Errorf("AlertsAfter(oldest) = %v, %v; want the two newer, oldest first", after, err)
		}
		if last, err := s.LastSeq(ctx); err != nil || last != all[0].Seq {
			t.Errorf("LastSeq() = %d, %v; want %d", last, err, all[0].Seq)
		}
	})
}

func TestAudit(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		a := alert("t1", "5", 4, "missed_payout", t0)
		if _, err := s.AddAlert(ctx, a); err != nil {
			t.Fatal(err)
		}
		entries := []AuditEntry{
			{AlertID: a.ID, At: t0.Add(time.Minute), User: "ana", Action: Acknowledge},
			{AlertID: a.ID, At: t0.Add(2 * time.Minute), User: "ana", Action: Resolve, Resolution: ConfirmedError, Note: "paid 45 on a lose"},
			{AlertID: a.ID, At: t0.Add(3 * time.Minute), User: "ben", Action: Acknowledge}, // keeps the resolution
		}
		for _, e := range entries {
			if err := s.Record(ctx, e); err != nil {
				t.Fatalf("Record(%+v): %v", e, err)
			}
		}
		got, err := s.Alert(ctx, a.ID)
		if err != nil || got.Status != ConfirmedError {
			t.Errorf("status = %q, %v; want %q", got.Status, err, ConfirmedError)
		}
		trail, err := s.Audit(ctx, a.ID)
		if err != nil || len(trail) != 3 {
			t.Fatalf("Audit() = %d entries, %v; want 3", len(trail), err)
		}
		if e := trail[1]; e.User != "ana" || e.Resolution != ConfirmedError || e.Note != "paid 45 on a lose" || !e.At.Equal(t0.Add(2*time.Minute)) {
			t.Errorf("trail[1] = %+v", e)
		}
		bad := []struct {
			name string
			e    AuditEntry
			is   error
		}{
			{"unknown resolution", AuditEntry{AlertID: a.ID, User: "ana", Action: Resolve, Resolution: "fine"}, nil},
			{"no user", AuditEntry{AlertID: a.ID, Action: Resolve, Resolution: Other}, nil},
			{"unknown action", AuditEntry{AlertID: a.ID, User: "ana", Action: "delete"}, nil},
			{"unknown alert", AuditEntry{AlertID: "nope", User: "ana", Action: Resolve, Resolution: Other}, ErrNotFound},
		}
		for _, b := range bad {
			err := s.Record(ctx, b.e)
			if err == nil || (b.is != nil && !errors.Is(err, b.is)) {
				t.Errorf("%s: Record error = %v, want an error (%v)", b.name, err, b.is)
			}
		}
		if trail, _ := s.Audit(ctx, a.ID); len(trail) != 3 {
			t.Errorf("refused entries changed the trail: %d entries", len(trail))
		}
		ids := []string{"none"}
		for i := range 1200 { // more than one chunk
			ids = append(ids, fmt.Sprint("x", i))
		}
		trails, err := s.Trails(ctx, append(ids, a.ID))
		if err != nil || len(trails) != 1 || len(trails[a.ID]) != 3 || trails[a.ID][1].Resolution != ConfirmedError {
			t.Errorf("Trails = %v, %v; want the alert's 3 entries only", trails, err)
		}
		// The database refuses to rewrite the trail or drop an alert.
		for _, stmt := range []string{`UPDATE audit SET note = 'x'`, `DELETE FROM audit`, `DELETE FROM alerts`} {
			if _, err := s.db.Exec(stmt); err == nil {
				t.Errorf("%s: no error, want the database to refuse it", stmt)
			}
		}
	})
}

func TestUsersAndSessions(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if _, err := s.User(ctx, "ana"); !errors.Is(err, ErrNotFound) {
			t.Errorf("User before PutUser: %v, want ErrNotFound", err)
		}
		for _, role := range []string{"viewer", "officer"} {
			if err := s.PutUser(ctx, User{Name: "ana", Role: role, PasswordHash: "h-" + role, Created: t0}); err != nil {
				t.Fatal(err)
			}
		}
		if u, err := s.User(ctx, "ana"); err != nil || u.Role != "officer" || u.PasswordHash != "h-officer" {
			t.Errorf("User = %+v, %v; want the officer", u, err)
		}
		se := Session{TokenHash: "abc", User: "ana", CSRF: "tok", Expires: t0.Add(time.Hour)}
		if err := s.CreateSession(ctx, se); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Session(ctx, "abc", t0); err != nil || got.User != "ana" || got.CSRF != "tok" {
			t.Errorf("Session = %+v, %v", got, err)
		}
		if _, err := s.Session(ctx, "abc", t0.Add(time.Hour)); !errors.Is(err, ErrNotFound) {
			t.Errorf("expired Session: %v, want ErrNotFound", err)
		}
		if err := s.DeleteExpiredSessions(ctx, t0.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, "abc", t0); !errors.Is(err, ErrNotFound) {
			t.Errorf("Session after its deletion: %v, want ErrNotFound", err)
		}
	})
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	cases := []struct{ name, addr string }{
		{"empty", ""},
		{"folder missing", filepath.Join(t.TempDir(), "no", "such", "dir", "c.db")},
		{"postgres refused", "postgres://nobody:secret@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"},
	}
	for _, c := range cases {
		s, err := Open(ctx, c.addr)
		if err == nil {
			s.Close()
			t.Errorf("%s: Open(%q) succeeded, want an error", c.name, c.addr)
			continue
		}
		if c.name == "postgres refused" && (strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "xxxxx")) {
			t.Errorf("%s: error %q should hide the password", c.name, err)
		}
	}
}

func TestLeave(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, h := range []struct {
			group, id string
			at        time.Time
		}{
			{"room", "a", t0}, {"room", "b", t0.Add(-10 * time.Second)}, {"room", "c", t0.Add(-time.Hour)}, {"other", "d", t0},
			{"room", "a", t0.Add(time.Second)}, // a heartbeat again: still one row
		} {
			if err := s.Heartbeat(ctx, h.group, h.id, h.at); err != nil {
				t.Fatal(err)
			}
		}
		since := t0.Add(-30 * time.Second)
		steps := []struct {
			id   string
			want int
		}{
			{"a", 1}, // b is alive; c went silent an hour ago; d is another group's
			{"a", 1}, // leaving twice changes nothing
			{"b", 0}, // the last one
		}
		for _, st := range steps {
			if got, err := s.Leave(ctx, "room", st.id, since); err != nil || got != st.want {
				t.Errorf("Leave(room, %s) = %d, %v; want %d others", st.id, got, err, st.want)
			}
		}
	})
}

// TestLeaveTogether: of instances leaving at once, exactly one finds
// itself the last, whichever the order.
func TestLeaveTogether(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		const n = 4
		for i := range n {
			if err := s.Heartbeat(ctx, "room", fmt.Sprint(i), t0); err != nil {
				t.Fatal(err)
			}
		}
		results := make(chan int, n)
		for i := range n {
			go func() {
				others, err := s.Leave(ctx, "room", fmt.Sprint(i), t0.Add(-time.Minute))
				if err != nil {
					t.Error(err)
				}
				results <- others
			}()
		}
		last := 0
		for range n {
			if <-results == 0 {
				last++
			}
		}
		if last != 1 {
			t.Errorf("%d instances found themselves the last, want 1", last)
		}
	})
}

// TestPruneEvidence: evidence older than the retention loses its data and
// is marked expired; newer evidence, the alerts and their trails stay.
func TestPruneEvidence(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		const old = 2*pruneBatch + 7 // several batches
		for i := range old + 1 {
			at := t0.Add(-100 * 24 * time.Hour)
			if i == old {
				at = t0.Add(-time.Hour) // the one kept
			}
			a := alert("t1", fmt.Sprint(i), 3, "overpaid", at)
			if _, err := s.AddAlert(ctx, a); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"snapshot", "clip"} {
				if _, err := s.AddEvidence(ctx, Evidence{AlertID: a.ID, File: f, ContentType: "image/jpeg", Received: at, Data: []byte("data of " + a.ID)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		oldID, keptID := alert("t1", "0", 3, "overpaid", t0).ID, alert("t1", fmt.Sprint(old), 3, "overpaid", t0).ID
		if err := s.Record(ctx, AuditEntry{AlertID: oldID, At: t0, User: "ana", Action: Resolve, Resolution: ConfirmedError, Note: "seen"}); err != nil {
			t.Fatal(err)
		}
		now := t0.Add(time.Minute)
		cutoff := t0.Add(-90 * 24 * time.Hour)
		for i, want := range []int{2 * old, 0} { // pruning again finds nothing
			if got, err := s.PruneEvidence(ctx, cutoff, now); err != nil || got != want {
				t.Errorf("PruneEvidence #%d = %d, %v; want %d", i+1, got, err, want)
			}
		}
		if _, err := s.Evidence(ctx, oldID, "clip"); !errors.Is(err, ErrExpired) {
			t.Errorf("Evidence(old clip) error = %v, want ErrExpired", err)
		}
		if e, err := s.Evidence(ctx, keptID, "clip"); err != nil || string(e.Data) != "data of "+keptID {
			t.Errorf("Evidence(kept clip) = %q, %v; want its data", e.Data, err)
		}
		files, err := s.EvidenceFiles(ctx, oldID)
		if err != nil || len(files) != 2 || !files[0].Expired.Equal(now.Truncate(time.Millisecond)) || files[0].File != "clip" {
			t.Errorf("EvidenceFiles(old) = %+v, %v; want clip and snapshot expired at %v", files, err, now)
		}
		if files, err := s.EvidenceFiles(ctx, keptID); err != nil || len(files) != 2 || !files[1].Expired.IsZero() {
			t.Errorf("EvidenceFiles(kept) = %+v, %v; want both kept", files, err)
		}
		// The monitor sending the file again does not bring it back.
		if isNew, err := s.AddEvidence(ctx, Evidence{AlertID: oldID, File: "clip", ContentType: "video/mp4", Received: now, Data: []byte("again")}); err != nil || isNew {
			t.Errorf("AddEvidence(pruned file) = %v, %v; want a duplicate", isNew, err)
		}
		var size int
		if err := s.db.QueryRow(`SELECT COALESCE(SUM(LENGTH(data)), 0) FROM evidence WHERE expired_at <> 0`).Scan(&size); err != nil || size != 0 {
			t.Errorf("expired evidence still holds %d bytes (%v), want none", size, err)
		}
		if n, err := s.CountAlerts(ctx, Filter{}); err != nil || n != old+1 {
			t.Errorf("CountAlerts = %d, %v; want every alert, %d", n, err, old+1)
		}
		if trail, err := s.Audit(ctx, oldID); err != nil || len(trail) != 1 || trail[0].User != "ana" {
			t.Errorf("Audit(old) = %+v, %v; want ana's resolution", trail, err)
		}
	})
}

func TestLoginFailures(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		window := time.Hour
		steps := []struct {
			name    string
			subject string
			at      time.Time
			want    int
		}{
			{"first", "user:ana", t0, 1},
			{"second", "user:ana", t0.Add(time.Second), 2},
			{"another subject", "addr:10.0.0.7", t0.Add(time.Second), 1},
			{"third", "user:ana", t0.Add(2 * time.Second), 3},
			{"after a quiet hour", "user:ana", t0.Add(2*time.Second + window + time.Millisecond), 1},
		}
		for _, st := range steps {
			if got, err := s.AddLoginFailure(ctx, st.subject, st.at, st.at.Add(-window)); err != nil || got != st.want {
				t.Errorf("%s: AddLoginFailure(%s) = %d, %v; want %d", st.name, st.subject, got, err, st.want)
			}
		}
		if n, last, err := s.LoginFailures(ctx, "user:ana"); err != nil || n != 1 || !last.Equal(steps[4].at) {
			t.Errorf("LoginFailures(user:ana) = %d, %v, %v; want 1 at %v", n, last, err, steps[4].at)
		}
		if err := s.ClearLoginFailures(ctx, "user:ana"); err != nil {
			t.Fatal(err)
		}
		if n, _, err := s.LoginFailures(ctx, "user:ana"); err != nil || n != 0 {
			t.Errorf("LoginFailures after clearing = %d, %v; want 0", n, err)
		}
		if err := s.ForgetLoginFailures(ctx, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if n, _, err := s.LoginFailures(ctx, "addr:10.0.0.7"); err != nil || n != 0 {
			t.Errorf("LoginFailures of a forgotten run = %d, %v; want 0", n, err)
		}
	})
}

func TestDisableUser(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.PutUser(ctx, User{Name: "ana", Role: "officer", PasswordHash: "h1", Created: t0}); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateSession(ctx, Session{TokenHash: "x", User: "ana", CSRF: "c", Expires: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		for i, at := range []time.Time{t0.Add(time.Minute), t0.Add(time.Hour)} { // the second keeps the first date
			if err := s.DisableUser(ctx, "ana", at); err != nil {
				t.Fatalf("DisableUser #%d: %v", i+1, err)
			}
		}
		if u, err := s.User(ctx, "ana"); err != nil || !u.Disabled.Equal(t0.Add(time.Minute)) {
			t.Errorf("User(ana) = %+v, %v; want disabled at %v", u, err, t0.Add(time.Minute))
		}
		if _, err := s.Session(ctx, "x", t0); !errors.Is(err, ErrNotFound) {
			t.Errorf("ana's session after disabling: %v, want ErrNotFound", err)
		}
		if err := s.DisableUser(ctx, "eve", t0); !errors.Is(err, ErrNotFound) {
			t.Errorf("DisableUser(eve) = %v, want ErrNotFound", err)
		}
		// Added again, ana may log in.
		if err := s.PutUser(ctx, User{Name: "ana", Role: "viewer", PasswordHash: "h2", Created: t0}); err != nil {
			t.Fatal(err)
		}
		if u, err := s.User(ctx, "ana"); err != nil || !u.Disabled.IsZero() || u.Role != "viewer" {
			t.Errorf("User(ana) added again = %+v, %v; want an enabled viewer", u, err)
		}
	})
}

package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"bjmonitor/console/store"
	"bjmonitor/internal/pgtest"
)

// listAlerts is how many alerts BenchmarkAlertList stores first.
const listAlerts = 100_000

// BenchmarkAlertList measures the pages an officer loads with 100,000
// alerts stored, on SQLite and on PostgreSQL: the tables page with the
// feed, the alert list (first page and its count), filtered lists and an
// alert's page. The bar is 300 ms for the list.
//
//	go test -run XXX -bench AlertList -benchtime 20x ./console/web/
func BenchmarkAlertList(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			addr := filepath.Join(b.TempDir(), "list.db")
			if backend == "postgres" {
				addr = pgtest.Start(b).NewDatabase(b)
			}
			db, err := store.Open(context.Background(), addr)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			start := time.Now()
			seedAlerts(b, db, listAlerts)
			b.Logf("%s: %d alerts stored in %v", backend, listAlerts, time.Since(start).Round(time.Millisecond))
			srv, err := New(Config{}, db)
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			c := loginAs(b, db, ts.URL, "officer")
			pages := []struct{ name, path string }{
				{"tables_and_feed", "/"},
				{"list", "/alerts"},
				{"list_page_500", "/alerts?before=" + fmt.Sprint(listAlerts-500*100)},
				{"unresolved", "/alerts?status=unresolved"},
				{"one_table", "/alerts?table=t042"},
				{"rare_kind", "/alerts?kind=wrong_award&severity=review"},
				{"shift", "/alerts?from=" + time.Now().Add(-8*time.Hour).Format("2006-01-02T15:04")},
				{"alert", alertURL("t042:1042:2:21+3:overpaid")},
			}
			for _, p := range pages {
				b.Run(p.name, func(b *testing.B) {
					for b.Loop() {
						resp, err := c.Get(ts.URL + p.path)
						if err != nil {
							b.Fatal(err)
						}
						n, _ := io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK || n < 1000 {
							b.Fatalf("GET %s = %d, %d bytes", p.path, resp.StatusCode, n)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/load")
				})
			}
		})
	}
}

// seedAlerts stores n alerts over 200 tables, received over the last
// week, one in ten resolved.
func seedAlerts(b *testing.B, db *store.Store, n int) {
	b.Helper()
	ctx := context.Background()
	kinds := []string{"overpaid", "underpaid", "missed_payout", "paid_without_wager", "wrong_award", "meter_mismatch", "over_limit", "unjudged"}
	now := time.Now()
	for i := range n {
		table := fmt.Sprintf("t%03d", i%200)
		round := fmt.Sprint(1000 + i/200)
		kind := kinds[i%len(kinds)]
		sev := "mismatch"
		if i%7 == 0 {
			sev = "review"
		}
		id := fmt.Sprintf("%s:%s:2:21+3:%s", table, round, kind)
		if i == 42+200*42 {
			id = "t042:1042:2:21+3:overpaid"
		}
		body := fmt.Sprintf(`{"type":"alert","id":%q,"table":%q,"round":%q,"seat":2,"bet":"21+3","kind":%q,"severity":%q,"expected":0,"entered":45,"cards":[{"card":"7S","confidence":0.93},{"card":"4D","confidence":0.97},{"card":"KH","confidence":0.91}],"detail":"seat 2 21+3: paid $45.00, but lose pays $0.00"}`, id, table, round, kind, sev)
		at := now.Add(-7 * 24 * time.Hour * time.Duration(n-i) / time.Duration(n))
		if _, err := db.AddAlert(ctx, store.Alert{ID: id, Table: table, Round: round, Seat: 2, Bet: "21+3", Kind: kind, Severity: sev, Entered: 45, Received: at, Body: []byte(body)}); err != nil {
			b.Fatal(err)
		}
		if i%10 == 0 {
			if err := db.Record(ctx, store.AuditEntry{AlertID: id, At: at, User: "ana", Action: store.Resolve, Resolution: store.FalseAlarm}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

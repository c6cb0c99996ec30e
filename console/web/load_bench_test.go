package web

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"bjmonitor/console/ingest"
	"bjmonitor/console/store"
	"bjmonitor/internal/mqtttest"
)

// The site the load benchmark simulates: 200 tables, a round a minute
// each, for 10 minutes, every round with 5 outcomes, one round in 5 with
// an alert, stats every 10 s.
const (
	loadTables   = 200
	loadMinutes  = 10
	loadOutcomes = 5
	alertEvery   = 5
	statsPerMin  = 6
)

// BenchmarkConsoleLoad publishes a site's traffic to a real Mosquitto
// while the console ingests it and an open page follows the live feed. It
// reports messages stored a second, records lost (must be 0), the feed's
// latency from publish to the page, and the speed against real time.
//
// "unpaced" publishes as fast as the publishers go, far faster than the
// console stores: it measures how many messages a second the console
// stores, and the feed's latency there includes the queue at the broker.
// "10x" publishes at ten times real time (about 400 messages a second,
// within what the console stores): the latency an officer sees.
//
//	go test -run XXX -bench ConsoleLoad -benchtime 1x ./console/web/
func BenchmarkConsoleLoad(b *testing.B) {
	for _, speed := range []struct {
		name string
		x    float64
	}{{"unpaced", 0}, {"10x", 10}} {
		b.Run(speed.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				l := newLoadSite(b)
				l.speed = speed.x
				b.StartTimer()
				l.run(b)
			}
		})
	}
}

type loadSite struct {
	broker *mqtttest.Mosquitto
	db     *store.Store
	raw    *sql.DB // the same database, for counting rows
	in     *ingest.Ingester
	url    string
	client *http.Client
	speed  float64 // times real time; 0 publishes as fast as it goes

	mu        sync.Mutex
	published map[string]time.Time // alert id → when its publish was acknowledged
	latencies []time.Duration
}

func newLoadSite(b *testing.B) *loadSite {
	b.Helper()
	// The console must not lose a message while it catches up: the broker
	// queues without limit for its session (docs/console.md).
	br := mqtttest.NewMosquitto(b, "max_queued_messages 0\nmax_inflight_messages 100\n")
	br.Start()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	path := filepath.Join(b.TempDir(), "load.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close() })
	l := &loadSite{broker: br, db: db, raw: raw, published: map[string]time.Time{}}
	srv, err := New(Config{}, db)
	if err != nil {
		b.Fatal(err)
	}
	l.in = ingest.New(ingest.Config{Broker: br.URL(), ClientID: "load-console", TopicPrefix: "site", OnAlert: func(store.Alert) { srv.Wake() }}, db)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); srv.Feed(ctx) }()
	go func() { defer wg.Done(); l.in.Run(ctx) }()
	b.Cleanup(func() { cancel(); wg.Wait() })
	ts := httptest.NewServer(srv)
	b.Cleanup(ts.Close)
	l.url = ts.URL
	l.client = loginAs(b, db, ts.URL, "officer")
	return l
}

// loginAs adds a user and returns an HTTP client logged in as them.
func loginAs(tb testing.TB, db *store.Store, u, name string) *http.Client {
	tb.Helper()
	hash, _ := HashPassword("load test password")
	if err := db.PutUser(context.Background(), store.User{Name: name, Role: Officer, PasswordHash: hash}); err != nil {
		tb.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(u + "/login")
	if err != nil {
		tb.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		tb.Fatal("no login form")
	}
	resp, err = c.PostForm(u+"/login", url.Values{"csrf": {string(m[1])}, "name": {name}, "password": {"load test password"}})
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	return c
}

func (l *loadSite) run(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	feedDone := l.follow(b, ctx)

	pubs := make([]mqtt.Client, 8)
	for i := range pubs {
		pubs[i] = mqtt.NewClient(mqtt.NewClientOptions().AddBroker(l.broker.URL()).SetClientID(fmt.Sprintf("load-box-%d", i)))
		if tok := pubs[i].Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			b.Fatalf("publisher: %v", tok.Error())
		}
		defer pubs[i].Disconnect(100)
	}
	start := time.Now()
	records, alerts := l.publish(b, pubs)
	published := time.Since(start)
	stored := l.waitStored(b, records, alerts)
	took := time.Since(start)
	cancel() // the page closes
	<-feedDone

	c := l.in.Counts()
	total := c[ingest.Stored] + c[ingest.Duplicate]
	lost := records - l.count(b)
	b.ReportMetric(float64(total)/took.Seconds(), "stored_msgs/s")
	b.ReportMetric(float64(lost), "lost")
	b.ReportMetric(float64(loadMinutes*60)/took.Seconds(), "x_realtime")
	b.ReportMetric(published.Seconds(), "publish_s")
	l.mu.Lock()
	lat := append([]time.Duration(nil), l.latencies...)
	l.mu.Unlock()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(ms(lat[len(lat)/2]), "feed_p50_ms")
		b.ReportMetric(ms(lat[len(lat)*99/100]), "feed_p99_ms")
		b.ReportMetric(ms(lat[len(lat)-1]), "feed_max_ms")
	}
	b.Logf("%d messages (%d records, %d alerts) in %v (published in %v), %d stored; %d lost; %d of %d alerts seen on the page; counts %v",
		total, records, alerts, took.Round(time.Millisecond), published.Round(time.Millisecond), stored, lost, len(lat), alerts, c)
	if lost != 0 || len(lat) != alerts {
		b.Errorf("lost %d records, and the page saw %d of %d alerts", lost, len(lat), alerts)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// publish sends the site's traffic, minute by minute, each table on one of
// the publishers, and returns how many records (rounds, outcomes, alerts)
// and alerts it sent.
func (l *loadSite) publish(b *testing.B, pubs []mqtt.Client) (records, alerts int) {
	b.Helper()
	var tokens []mqtt.Token
	wait := func() {
		for _, t := range tokens {
			if !t.WaitTimeout(60*time.Second) || t.Error() != nil {
				b.Fatalf("publish: %v", t.Error())
			}
		}
		tokens = tokens[:0]
	}
	for tb := range loadTables {
		tokens = append(tokens, pubs[tb%len(pubs)].Publish(fmt.Sprintf("site/t%03d/available", tb), 1, true, "online"))
	}
	start := time.Now()
	for minute := range loadMinutes {
		if l.speed > 0 {
			wait()
			time.Sleep(time.Until(start.Add(time.Duration(float64(minute) * float64(time.Minute) / l.speed))))
		}
		for tb := range loadTables {
			if l.speed > 0 && tb%20 == 0 { // spread the minute's traffic
				time.Sleep(time.Until(start.Add(time.Duration((float64(minute) + float64(tb)/loadTables) * float64(time.Minute) / l.speed))))
			}
			p := pubs[tb%len(pubs)]
			table := fmt.Sprintf("t%03d", tb)
			round := fmt.Sprint(1000 + minute)
			for s := range statsPerMin {
				stats := fmt.Sprintf(`{"type":"stats","table":%q,"fps":12.5,"frames":125,"dropped":%d}`, table, s%2)
				tokens = append(tokens, p.Publish("site/"+table+"/stats", 0, false, stats))
			}
			tokens = append(tokens, p.Publish("site/"+table+"/round", 1, false, fmt.Sprintf(
				`{"type":"round","table":%q,"round":%q,"dealer":[{"card":"TD","confidence":0.97},{"card":"7C","confidence":0.95}],"seats":[{"seat":2,"hands":[{"cards":[{"card":"7S","confidence":0.93},{"card":"4D","confidence":0.97}],"split_from":-1,"total":11}]}]}`, table, round)))
			records++
			for seat := 1; seat <= loadOutcomes; seat++ {
				tokens = append(tokens, p.Publish("site/"+table+"/outcome", 1, false, fmt.Sprintf(
					`{"type":"outcome","table":%q,"round":%q,"seat":%d,"bet":"21+3","wager":5,"result":"lose","pays":0,"win":0,"cards":["7S","4D","TD"]}`, table, round, seat)))
				records++
			}
			if (tb+minute)%alertEvery == 0 {
				id := fmt.Sprintf("%s:%s:2:21+3:overpaid", table, round)
				t := p.Publish("site/"+table+"/alert", 1, false, fmt.Sprintf(
					`{"type":"alert","id":%q,"table":%q,"round":%q,"seat":2,"bet":"21+3","kind":"overpaid","severity":"mismatch","expected":0,"entered":45,"cards":[{"card":"7S","confidence":0.93}]}`, id, table, round))
				records++
				alerts++
				// The publish time is when the broker has the alert.
				t.WaitTimeout(60 * time.Second)
				l.mu.Lock()
				l.published[id] = time.Now()
				l.mu.Unlock()
			}
			if len(tokens) > 2000 {
				wait()
			}
		}
	}
	wait()
	return records, alerts
}

// follow reads the live feed as a page does, and records each alert's
// latency from its publish; the channel closes when the feed ends.
func (l *loadSite) follow(b *testing.B, ctx context.Context) <-chan struct{} {
	req, _ := http.NewRequestWithContext(ctx, "GET", l.url+"/events", nil)
	resp, err := l.client.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("the feed: %v %v", resp, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			at := time.Now()
			var e struct{ ID string }
			json.Unmarshal([]byte(data), &e)
			l.mu.Lock()
			// An alert seen before its publish was acknowledged is seen at
			// once: its latency is 0.
			if p, ok := l.published[e.ID]; ok {
				l.latencies = append(l.latencies, max(0, at.Sub(p)))
			} else {
				l.latencies = append(l.latencies, 0)
			}
			l.mu.Unlock()
		}
	}()
	return done
}

// waitStored waits until every record is stored and the page has seen
// every alert, or for a minute without progress; it returns the records
// stored.
func (l *loadSite) waitStored(b *testing.B, records, alerts int) int {
	last, since := -1, time.Now()
	for {
		n := l.count(b)
		l.mu.Lock()
		seen := len(l.latencies)
		l.mu.Unlock()
		if n >= records && seen >= alerts {
			time.Sleep(300 * time.Millisecond) // any duplicate alert on the feed would show now
			return n
		}
		if n != last {
			last, since = n, time.Now()
		}
		if time.Since(since) > time.Minute {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// count is the records stored: rounds, outcomes and alerts, counted in
// the database itself.
func (l *loadSite) count(b *testing.B) int {
	n := 0
	for _, table := range []string{"rounds", "outcomes", "alerts"} {
		var k int
		if err := l.raw.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&k); err != nil {
			b.Fatal(err)
		}
		n += k
	}
	return n
}

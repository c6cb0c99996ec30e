package web

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"bjmonitor/console/store"
)

// console is a console on a fresh SQLite store, with an officer "ana"
// and a viewer "vic", served by httptest.
type console struct {
	db  *store.Store
	srv *Server
	ts  *httptest.Server
	mu  sync.Mutex
	now time.Time
}

const password = "correct horse"

func newConsole(t *testing.T) *console {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	hash, err := HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	for name, role := range map[string]string{"ana": Officer, "vic": Viewer} {
		if err := db.PutUser(ctx, store.User{Name: name, Role: role, PasswordHash: hash}); err != nil {
			t.Fatal(err)
		}
	}
	c := &console{db: db, now: time.Now()}
	c.srv, err = New(Config{SessionTTL: time.Hour, Now: c.clock, FeedPoll: 20 * time.Millisecond}, db)
	if err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { c.srv.Feed(fctx); close(done) }()
	c.ts = httptest.NewServer(c.srv)
	t.Cleanup(func() { c.ts.Close(); cancel(); <-done })
	return c
}

func (c *console) clock() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *console) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// browser is an HTTP client with cookies that does not follow redirects.
type browser struct {
	t  *testing.T
	c  *http.Client
	ts *httptest.Server
}

func (c *console) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, ts: c.ts, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) get(path string) (*http.Response, string) {
	b.t.Helper()
	resp, err := b.c.Get(b.ts.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func (b *browser) post(path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	resp, err := b.c.PostForm(b.ts.URL+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the page:\n%s", page)
	}
	return m[1]
}

// login logs in and returns the session's CSRF token.
func (b *browser) login(name, pw string) (*http.Response, string) {
	b.t.Helper()
	_, page := b.get("/login")
	resp, body := b.post("/login", url.Values{"csrf": {csrfOf(b.t, page)}, "name": {name}, "password": {pw}, "next": {"/"}})
	if resp.StatusCode != http.StatusSeeOther {
		return resp, ""
	}
	_, home := b.get("/")
	return resp, csrfOf(b.t, home) + body[:0]
}

func (c *console) addAlert(t *testing.T, table, round string, seat int, kind string) store.Alert {
	t.Helper()
	return c.addBetAlert(t, table, round, seat, "21+3", kind)
}

// addBetAlert adds an alert of kind on bet at seat, as addAlert does.
func (c *console) addBetAlert(t *testing.T, table, round string, seat int, bet, kind string) store.Alert {
	t.Helper()
	id := fmt.Sprintf("%s:%s:%d:%s:%s", table, round, seat, bet, kind)
	body := fmt.Sprintf(`{"type":"alert","id":%q,"table":%q,"round":%q,"seat":%d,"bet":%q,"kind":%q,"severity":"mismatch","expected":0,"entered":45,"result":"lose","cards":[{"card":"7S","confidence":0.93},{"card":"4D","confidence":0.97},{"card":"KH","confidence":0.91}],"detail":"seat %d %s: paid $45.00, but lose pays $0.00"}`, id, table, round, seat, bet, kind, seat, bet)
	a := store.Alert{ID: id, Table: table, Round: round, Seat: seat, Bet: bet, Kind: kind, Severity: "mismatch", Expected: 0, Entered: 45, Received: c.clock(), Body: []byte(body)}
	if _, err := c.db.AddAlert(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	got, err := c.db.Alert(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestNothingWithoutSession(t *testing.T) {
	c := newConsole(t)
	a := c.addAlert(t, "table-7", "1842", 3, "overpaid")
	c.db.AddEvidence(context.Background(), store.Evidence{AlertID: a.ID, File: "snapshot", ContentType: "image/jpeg", Data: []byte("jpeg"), Received: c.clock()})
	b := c.browser(t)
	for _, path := range []string{"/", "/alerts", "/alerts.csv", alertURL(a.ID), "/nope"} {
		resp, body := b.get(path)
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") || strings.Contains(body, "7S") || strings.Contains(body, "45.00") {
			t.Errorf("GET %s without a session = %d to %q, want a redirect to the login page and nothing else", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	for _, path := range []string{"/events", "/evidence?id=" + url.QueryEscape(a.ID) + "&file=snapshot"} {
		if resp, body := b.get(path); resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, "jpeg") {
			t.Errorf("GET %s without a session = %d, want 401", path, resp.StatusCode)
		}
	}
	if resp, _ := b.post("/alert", url.Values{"id": {a.ID}, "action": {"resolve"}, "resolution": {"false_alarm"}}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /alert without a session = %d, want 401", resp.StatusCode)
	}
	if resp, body := b.get("/login"); resp.StatusCode != http.StatusOK || !strings.Contains(body, `name="password"`) {
		t.Errorf("GET /login = %d, want the login form", resp.StatusCode)
	}
	if resp, _ := b.get("/static/console.css"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /static/console.css = %d, want the login page's stylesheet", resp.StatusCode)
	}
	if a, _ := c.db.Alert(context.Background(), a.ID); a.Status != store.StatusOpen {
		t.Errorf("status after requests without a session = %q, want open", a.Status)
	}
}

func TestLogin(t *testing.T) {
	c := newConsole(t)
	cases := []struct {
		name, user, pw string
		want           int
	}{
		{"wrong password", "ana", "wrong password", http.StatusUnauthorized},
		{"no such user", "eve", password, http.StatusUnauthorized},
		{"officer", "ana", password, http.StatusSeeOther},
		{"viewer", "vic", password, http.StatusSeeOther},
	}
	for _, tc := range cases {
		b := c.browser(t)
		resp, _ := b.login(tc.user, tc.pw)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: login = %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	// A login form posted without its token (from another site) is refused.
	b := c.browser(t)
	if resp, _ := b.post("/login", url.Values{"name": {"ana"}, "password": {password}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("login without the form's token = %d, want 403", resp.StatusCode)
	}
	// Sessions expire.
	b = c.browser(t)
	b.login("ana", password)
	if resp, _ := b.get("/"); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / logged in = %d", resp.StatusCode)
	}
	c.advance(61 * time.Minute)
	if resp, _ := b.get("/"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / after the session expired = %d, want a redirect to log in", resp.StatusCode)
	}
	// A redirect after login stays on this site.
	for next, want := range map[string]string{"/alerts?x=1": "/alerts?x=1", "//evil.example": "/", "https://evil.example/": "/", "/\\evil": "/"} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	c := newConsole(t)
	a := c.addAlert(t, "table-7", "1842", 3, "overpaid")
	officer, viewer := c.browser(t), c.browser(t)
	_, csrf := officer.login("ana", password)
	_, vcsrf := viewer.login("vic", password)
	steps := []struct {
		name       string
		b          *browser
		form       url.Values
		want       int
		wantStatus string
	}{
		{"no token", officer, url.Values{"id": {a.ID}, "action": {"resolve"}, "resolution": {"false_alarm"}}, http.StatusForbidden, "open"},
		{"viewer", viewer, url.Values{"csrf": {vcsrf}, "id": {a.ID}, "action": {"resolve"}, "resolution": {"false_alarm"}}, http.StatusForbidden, "open"},
		{"no resolution", officer, url.Values{"csrf": {csrf}, "id": {a.ID}, "action": {"resolve"}}, http.StatusBadRequest, "open"},
		{"unknown alert", officer, url.Values{"csrf": {csrf}, "id": {"nope"}, "action": {"resolve"}, "resolution": {"other"}}, http.StatusNotFound, "open"},
		{"acknowledge", officer, url.Values{"csrf": {csrf}, "id": {a.ID}, "action": {"acknowledge"}}, http.StatusSeeOther, "acknowledged"},
		{"resolve", officer, url.Values{"csrf": {csrf}, "id": {a.ID}, "action": {"resolve"}, "resolution": {"confirmed_error"}, "note": {"paid 45 on a lose; pit boss told"}}, http.StatusSeeOther, "confirmed_error"},
	}
	for _, s := range steps {
		resp, _ := s.b.post("/alert", s.form)
		got, _ := c.db.Alert(context.Background(), a.ID)
		if resp.StatusCode != s.want || got.Status != s.wantStatus {
			t.Errorf("%s: POST /alert = %d, status %q; want %d, %q", s.name, resp.StatusCode, got.Status, s.want, s.wantStatus)
		}
	}
	_, page := officer.get(alertURL(a.ID))
	for _, want := range []string{"ana</span> acknowledged", "ana</span> resolved: <strong>confirmed error</strong>", "paid 45 on a lose; pit boss told"} {
		if !strings.Contains(page, want) {
			t.Errorf("the alert's page lacks %q in its trail", want)
		}
	}
	if _, page := viewer.get(alertURL(a.ID)); strings.Contains(page, `id="resolve"`) || !strings.Contains(page, `id="readonly"`) {
		t.Errorf("a viewer's alert page offers the resolve form")
	}
}

func TestAlertPage(t *testing.T) {
	c := newConsole(t)
	ctx := context.Background()
	a := c.addAlert(t, "table-7", "1842", 3, "overpaid")
	c.db.AddRound(ctx, store.Round{Table: "table-7", Round: "1842", Received: c.clock(), Body: []byte(
		`{"type":"round","table":"table-7","round":"1842","dealer":[{"card":"KH","confidence":0.91}],"seats":[{"seat":3,"hands":[{"cards":[{"card":"7S","confidence":0.93},{"card":"4D","confidence":0.7,"candidates":["4D","4H"]}],"split_from":-1,"total":11}],"doubts":["seat 2 hand 0: 1 card(s), but every hand takes two"]},{"seat":5,"hands":[{"cards":[{"card":"9C","confidence":0.95},{"card":"??","confidence":0}],"split_from":-1,"total":9}],"doubts":["seat 5 hand 0: card 2 lies face up but was never read"]}],"doubts":["the dealer stopped on 15"]}`)})
	for _, o := range []string{
		`{"type":"outcome","table":"table-7","round":"1842","seat":3,"bet":"21+3","wager":5,"result":"lose","pays":0,"win":0,"cards":["7S","4D","KH"]}`,
		`{"type":"outcome","table":"table-7","round":"1842","seat":3,"bet":"blazing7s","wager":1,"result":"one_seven","pays":2,"win":2,"cards":["7S","4D"]}`,
	} {
		bet := "21+3"
		if strings.Contains(o, "blazing7s") {
			bet = "blazing7s"
		}
		c.db.AddOutcome(ctx, store.Outcome{Table: "table-7", Round: "1842", Seat: 3, Bet: bet, Received: c.clock(), Body: []byte(o)})
	}
	jpeg := strings.Repeat("J", 1000)
	c.db.AddEvidence(ctx, store.Evidence{AlertID: a.ID, File: "snapshot", ContentType: "image/jpeg", Data: []byte(jpeg), Received: c.clock()})
	b := c.browser(t)
	b.login("vic", password)
	resp, page := b.get(alertURL(a.ID))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the alert = %d", resp.StatusCode)
	}
	for _, want := range []string{`id="snapshot"`, `id="no-clip"`, "paid $45.00, but lose pays", "7S <small>93%</small>", `4D <small>70%</small> <small class="candidates">(4D or 4H)</small>`, "one seven", "$45.00", "matches",
		"Doubt: the dealer stopped on 15", "Doubt: seat 2 hand 0: 1 card(s), but every hand takes two",
		"Doubt at another seat: seat 5 hand 0: card 2 lies face up but was never read"} {
		if !strings.Contains(page, want) {
			t.Errorf("the alert's page lacks %q", want)
		}
	}
	req, _ := http.NewRequest("GET", b.ts.URL+"/evidence?id="+url.QueryEscape(a.ID)+"&file=snapshot", nil)
	req.Header.Set("Range", "bytes=10-19")
	r2, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r2.Body)
	r2.Body.Close()
	if r2.StatusCode != http.StatusPartialContent || string(body) != jpeg[10:20] || r2.Header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("a range of the snapshot = %d %q %q, want 206 and 10 bytes of image/jpeg", r2.StatusCode, body, r2.Header.Get("Content-Type"))
	}
	if resp, _ := b.get("/alert?id=nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET an unknown alert = %d, want 404", resp.StatusCode)
	}
}

// TestAlertPageDealerDoubts: a doubt about the dealer's cards alone (the
// record's dealer_doubts) is shown as a doubt on an alert that turns on
// them, and apart, as one the alert does not turn on, on the others.
func TestAlertPageDealerDoubts(t *testing.T) {
	c := newConsole(t)
	ctx := context.Background()
	c.db.AddRound(ctx, store.Round{Table: "table-7", Round: "1843", Received: c.clock(), Body: []byte(
		`{"type":"round","table":"table-7","round":"1843","dealer":[{"card":"KH","confidence":0.91},{"card":"5C","confidence":0.95}],"seats":[{"seat":3,"hands":[{"cards":[{"card":"7S","confidence":0.93},{"card":"7D","confidence":0.97}],"split_from":-1,"total":14}]}],"doubts":["the dealer stopped on 15"],"dealer_doubts":["the dealer stopped on 15"]}`)})
	b := c.browser(t)
	b.login("vic", password)
	const doubt, apart = "Doubt: the dealer stopped on 15", "Doubt about the dealer's cards, which this alert does not turn on: the dealer stopped on 15"
	for _, tt := range []struct {
		bet, kind  string
		want, lack string
	}{
		{"21+3", "overpaid", doubt, apart},
		{"push22", "missed_payout", doubt, apart},
		{"blazing7s", "underpaid", apart, doubt},
		{"potofgold", "overpaid", apart, doubt},
		{"21+3", "over_limit", apart, doubt}, // judged on no cards
	} {
		a := c.addBetAlert(t, "table-7", "1843", 3, tt.bet, tt.kind)
		_, page := b.get(alertURL(a.ID))
		if !strings.Contains(page, tt.want) || strings.Contains(page, tt.lack) {
			t.Errorf("%s %s: the page shows %q: %v, %q: %v; want only the first", tt.bet, tt.kind, tt.want, strings.Contains(page, tt.want), tt.lack, strings.Contains(page, tt.lack))
		}
	}
}

func TestListAndCSV(t *testing.T) {
	c := newConsole(t)
	a := c.addAlert(t, "table-7", "1", 3, "overpaid")
	c.addAlert(t, "table-8", "2", 1, "underpaid")
	c.db.Record(context.Background(), store.AuditEntry{AlertID: a.ID, At: c.clock(), User: "ana", Action: store.Resolve, Resolution: store.FalseAlarm, Note: "a 7, not a 1"})
	b := c.browser(t)
	b.login("vic", password)
	_, page := b.get("/alerts?table=table-7")
	if !strings.Contains(page, "1 alerts.") || strings.Contains(page, "table-8") {
		t.Errorf("the list filtered by table-7 shows:\n%s", page)
	}
	if resp, _ := b.get("/alerts?from=yesterday"); resp.StatusCode != http.StatusOK {
		t.Errorf("a bad date = %d, want the page with a problem", resp.StatusCode)
	}
	resp, body := b.get("/alerts.csv")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("CSV content type %q", ct)
	}
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("CSV = %d records, %v; want a header and 2 alerts", len(recs), err)
	}
	first := strings.Join(recs[1], ",")
	if recs[1][1] != a.ID || !strings.Contains(first, "false_alarm") || !strings.Contains(first, "ana resolve false_alarm a 7, not a 1") || !strings.Contains(first, "7S 93%") {
		t.Errorf("CSV's first alert = %v", recs[1])
	}
}

// TestListShowsCandidates: a card whose corners were read as two cards
// shows in the list of alerts and its CSV export with the cards it may
// be, as on the alert's page.
func TestListShowsCandidates(t *testing.T) {
	c := newConsole(t)
	id := "table-7:1:3:21+3:overpaid"
	body := fmt.Sprintf(`{"type":"alert","id":%q,"table":"table-7","round":"1","seat":3,"bet":"21+3","kind":"overpaid","severity":"review","expected":0,"entered":45,"result":"lose","cards":[{"card":"7S","confidence":0.93},{"card":"4D","confidence":0.7,"candidates":["4D","4H"]}],"detail":"seat 3 21+3: paid $45.00, but lose pays $0.00"}`, id)
	a := store.Alert{ID: id, Table: "table-7", Round: "1", Seat: 3, Bet: "21+3", Kind: "overpaid", Severity: "review", Entered: 45, Received: c.clock(), Body: []byte(body)}
	if _, err := c.db.AddAlert(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	b := c.browser(t)
	b.login("vic", password)
	_, page := b.get("/alerts")
	if want := `4D <small>70%</small> <small class="candidates">(4D or 4H)</small>`; !strings.Contains(page, want) {
		t.Errorf("the list does not show %s:\n%s", want, page)
	}
	_, body = b.get("/alerts.csv")
	if want := "7S 93% 4D 70% (4D or 4H)"; !strings.Contains(body, want) {
		t.Errorf("the CSV does not show %s:\n%s", want, body)
	}
}

func TestFeed(t *testing.T) {
	c := newConsole(t)
	old := c.addAlert(t, "table-7", "1", 1, "overpaid") // before the page opened: not sent
	b := c.browser(t)
	b.login("vic", password)
	events := func(lastID string) (*bufio.Reader, func()) {
		req, _ := http.NewRequest("GET", b.ts.URL+"/events", nil)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := b.c.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /events: %v %v", resp, err)
		}
		return bufio.NewReader(resp.Body), func() { resp.Body.Close() }
	}
	r, done := events("")
	defer done()
	time.Sleep(100 * time.Millisecond) // the feed is subscribed
	start := time.Now()
	a := c.addAlert(t, "table-7", "2", 3, "underpaid")
	c.srv.Wake()
	got := nextAlert(t, r)
	if !strings.Contains(got, `"id":"`+a.ID+`"`) || strings.Contains(got, old.ID) {
		t.Errorf("the feed sent %s, want %s", got, a.ID)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the alert took %v to reach the feed, want under 1 s", d)
	}
	// A page that reconnects is sent what it missed.
	r2, done2 := events(fmt.Sprint(old.Seq))
	defer done2()
	if got := nextAlert(t, r2); !strings.Contains(got, a.ID) {
		t.Errorf("a page reconnecting after %d got %s, want %s", old.Seq, got, a.ID)
	}
}

// nextAlert reads the feed up to its next alert event and returns its
// data line.
func nextAlert(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line := make(chan string, 1)
	go func() {
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				line <- "error: " + err.Error()
				return
			}
			if strings.HasPrefix(l, "data: ") {
				line <- l
				return
			}
		}
	}()
	select {
	case l := <-line:
		return l
	case <-time.After(5 * time.Second):
		t.Fatal("no alert on the feed within 5 s")
		return ""
	}
}

// TestLoginPageTwice: a browser that loads the login page again (a
// redirected favicon request) can still post the first form.
func TestLoginPageTwice(t *testing.T) {
	c := newConsole(t)
	b := c.browser(t)
	_, first := b.get("/login")
	b.get("/login?next=/favicon.ico")
	resp, _ := b.post("/login", url.Values{"csrf": {csrfOf(t, first)}, "name": {"ana"}, "password": {password}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("posting the first login form after a second load = %d, want 303", resp.StatusCode)
	}
}

// TestExpiredEvidence: once pruned, an alert's page says its evidence
// expired, and the files are gone (410), the alert and its facts stay.
func TestExpiredEvidence(t *testing.T) {
	c := newConsole(t)
	ctx := context.Background()
	a := c.addAlert(t, "table-7", "1842", 3, "overpaid")
	for _, f := range []string{"snapshot", "clip"} {
		c.db.AddEvidence(ctx, store.Evidence{AlertID: a.ID, File: f, ContentType: "image/jpeg", Data: []byte("J"), Received: c.clock()})
	}
	b := c.browser(t)
	b.login("vic", password)
	if _, page := b.get(alertURL(a.ID)); !strings.Contains(page, `id="snapshot"`) || !strings.Contains(page, `id="clip"`) {
		t.Fatalf("the alert's page does not show its evidence before it expires")
	}
	if n, err := c.db.PruneEvidence(ctx, c.clock().Add(time.Second), c.clock()); err != nil || n != 2 {
		t.Fatalf("PruneEvidence = %d, %v; want 2", n, err)
	}
	resp, page := b.get(alertURL(a.ID))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the alert = %d", resp.StatusCode)
	}
	for _, want := range []string{`id="snapshot-expired"`, `id="clip-expired"`, "The snapshot has expired", "paid $45.00"} {
		if !strings.Contains(page, want) {
			t.Errorf("the alert's page lacks %q", want)
		}
	}
	if strings.Contains(page, `id="snapshot"`) || strings.Contains(page, `id="no-clip"`) {
		t.Errorf("the alert's page shows expired evidence as there, or as not yet arrived")
	}
	if resp, _ := b.get("/evidence?id=" + url.QueryEscape(a.ID) + "&file=clip"); resp.StatusCode != http.StatusGone {
		t.Errorf("GET the expired clip = %d, want 410 Gone", resp.StatusCode)
	}
}

// attempt posts a login for name with pw from the remote address addr,
// straight to the server, and returns the status.
func (c *console) attempt(t *testing.T, name, pw, addr string) int {
	t.Helper()
	rec := httptest.NewRecorder()
	c.srv.ServeHTTP(rec, httptest.NewRequest("GET", "/login", nil))
	token := csrfOf(t, rec.Body.String())
	req := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{"csrf": {token}, "name": {name}, "password": {pw}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: loginCookie, Value: token})
	req.RemoteAddr = addr + ":40000"
	rec = httptest.NewRecorder()
	c.srv.ServeHTTP(rec, req)
	return rec.Code
}

// TestLoginRateLimit: after 5 failed logins in a row for a user, or from
// an address, each attempt waits a delay that doubles; the refusals are
// logged.
func TestLoginRateLimit(t *testing.T) {
	c := newConsole(t)
	var logs syncBuf
	c.srv.log = slog.New(slog.NewTextHandler(&logs, nil))
	const wrong, tooMany, in = http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusSeeOther
	steps := []struct {
		name, user, pw, addr string
		advance              time.Duration
		want                 int
	}{
		{"1st wrong", "ana", "guess 1", "10.0.0.1", 0, wrong},
		{"2nd wrong", "ana", "guess 2", "10.0.0.2", 0, wrong},
		{"3rd wrong", "ana", "guess 3", "10.0.0.3", 0, wrong},
		{"4th wrong", "ana", "guess 4", "10.0.0.4", 0, wrong},
		{"5th wrong", "ana", "guess 5", "10.0.0.5", 0, wrong},
		{"the user waits, from any address", "ana", password, "10.0.0.9", 0, tooMany},
		{"another user is not slowed", "vic", password, "10.0.0.9", 0, in},
		{"a second later", "ana", "guess 6", "10.0.0.6", time.Second, wrong},
		{"the delay doubled", "ana", password, "10.0.0.9", time.Second, tooMany},
		{"after 2 s", "ana", password, "10.0.0.9", time.Second, in},
		{"success forgets the user's failures", "ana", "guess 7", "10.0.0.7", 0, wrong},
		// One address guessing several names.
		{"a 1st", "eve", "x", "10.0.1.1", 0, wrong},
		{"a 2nd", "mallory", "x", "10.0.1.1", 0, wrong},
		{"a 3rd", "trudy", "x", "10.0.1.1", 0, wrong},
		{"a 4th", "oscar", "x", "10.0.1.1", 0, wrong},
		{"a 5th", "ana", "x", "10.0.1.1", 0, wrong},
		{"the address waits, for any user", "vic", password, "10.0.1.1", 0, tooMany},
		{"another address does not", "vic", password, "10.0.1.2", 0, in},
		{"an hour later all is forgotten", "vic", password, "10.0.1.1", time.Hour, in},
	}
	for _, st := range steps {
		c.advance(st.advance)
		if got := c.attempt(t, st.user, st.pw, st.addr); got != st.want {
			t.Errorf("%s: login as %s from %s = %d, want %d", st.name, st.user, st.addr, got, st.want)
		}
	}
	for _, want := range []string{"repeated failed logins; slowing down", "subject=user:ana failures=5", "subject=addr:10.0.1.1 failures=5",
		"too many failed logins", "retry_in_s=1"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q", want)
		}
	}
}

func TestLoginDelay(t *testing.T) {
	for n, want := range map[int]time.Duration{0: 0, 4: 0, 5: time.Second, 6: 2 * time.Second, 9: 16 * time.Second, 14: 512 * time.Second,
		15: maxLoginDelay, 70: maxLoginDelay} {
		if got := loginDelay(n); got != want {
			t.Errorf("loginDelay(%d) = %v, want %v", n, got, want)
		}
	}
}

// syncBuf is a log buffer safe for the server's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDisabledUser: a disabled officer is logged out and cannot log in
// again; what they resolved stays in the trail under their name.
func TestDisabledUser(t *testing.T) {
	c := newConsole(t)
	ctx := context.Background()
	a := c.addAlert(t, "table-7", "1842", 3, "overpaid")
	officer := c.browser(t)
	_, csrf := officer.login("ana", password)
	if resp, _ := officer.post("/alert", url.Values{"csrf": {csrf}, "id": {a.ID}, "action": {"resolve"}, "resolution": {"false_alarm"}, "note": {"dealer right"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("resolving = %d", resp.StatusCode)
	}
	if err := c.db.DisableUser(ctx, "ana", c.clock()); err != nil {
		t.Fatal(err)
	}
	if resp, _ := officer.get("/"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / by a user disabled since logging in = %d, want a redirect to log in", resp.StatusCode)
	}
	if resp, _ := c.browser(t).login("ana", password); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a disabled user logging in = %d, want 401", resp.StatusCode)
	}
	viewer := c.browser(t)
	viewer.login("vic", password)
	if _, page := viewer.get(alertURL(a.ID)); !strings.Contains(page, "ana</span> resolved: <strong>false alarm</strong>") {
		t.Errorf("the trail lost the disabled officer's resolution")
	}
}

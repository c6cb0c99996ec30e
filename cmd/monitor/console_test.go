package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"bjmonitor/console/store"
	"bjmonitor/internal/mqtttest"
)

func TestConsoleConfigErrors(t *testing.T) {
	tests := []struct {
		name, yaml, field, value string
	}{
		{"listen", "console:\n  listen: everywhere\n", "console.listen", "everywhere"},
		{"no database", "console:\n  database: \"\"\n", "console.database", `""`},
		{"prefix", "console:\n  topic_prefix: a/#\n", "console.topic_prefix", "a/#"},
		{"group", "console:\n  shared_group: a/b\n", "console.shared_group", "a/b"},
		{"table", "console:\n  tables: [\"table 1\"]\n", "console.tables", "table 1"},
		{"short session", "console:\n  session_ttl: 1s\n", "console.session_ttl", "1s"},
		{"evidence days", "console:\n  evidence_days: -1\n", "console.evidence_days", "-1"},
		{"cert without key", "console:\n  tls_cert: c.pem\n", "console.tls_cert", "c.pem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadConfig(writeConfig(t, tt.yaml), nil, nil)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tt.field || !strings.Contains(err.Error(), tt.value) {
				t.Errorf("loadConfig = %v, want a ConfigError on %s naming %s", err, tt.field, tt.value)
			}
			if got := exitCode(err); got != 2 {
				t.Errorf("exit status %d, want 2", got)
			}
		})
	}
	// The console needs a broker.
	_, _, err := run(t, "console", "--config", writeConfig(t, "console:\n  database: "+filepath.Join(t.TempDir(), "c.db")+"\n"))
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "mqtt.broker" {
		t.Errorf("console without a broker: %v, want a ConfigError on mqtt.broker", err)
	}
}

// startConsole runs monitor console on a free port with a fresh SQLite
// database, against broker, watching prefix, with an officer ana and a
// viewer vic (password "correct horse"); it returns the console's URL.
func startConsole(t *testing.T, broker, prefix string) string {
	t.Helper()
	dir := t.TempDir()
	port := mqtttest.FreePort(t)
	config := filepath.Join(dir, "console.yaml")
	text := fmt.Sprintf("mqtt:\n  broker: %s\nconsole:\n  listen: 127.0.0.1:%d\n  database: console.db\n  topic_prefix: %s\n  client_id: console-%d\n", broker, port, prefix, port)
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	addConsoleUsers(t, config)
	if _, err := os.Stat(filepath.Join(dir, "console.db")); err != nil {
		t.Fatalf("the database is not beside the configuration: %v", err)
	}
	u := fmt.Sprintf("http://127.0.0.1:%d", port)
	runTestConsole(t, config, u, http.DefaultClient)
	return u
}

// addConsoleUsers adds, with monitor console adduser, an officer ana and
// a viewer vic (password "correct horse") to config's database.
func addConsoleUsers(t *testing.T, config string) {
	t.Helper()
	for name, role := range map[string]string{"ana": "officer", "vic": "viewer"} {
		var out, errOut bytes.Buffer
		m := &Main{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader("correct horse\n")}
		if err := m.Run(context.Background(), []string{"console", "adduser", name, "--role", role, "--config", config}); err != nil {
			t.Fatalf("console adduser %s: %v\n%s", name, err, errOut.String())
		}
	}
}

// runTestConsole runs monitor console --config config until stop is
// called (or the test ends), and returns once its page answers at u
// through c. stop fails the test if the console does not stop cleanly
// within 40 s (a hand-over may take a while on a busy machine).
func runTestConsole(t *testing.T, config, u string, c *http.Client) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var runErr error
	var stderr syncBuffer
	go func() {
		defer close(done)
		runErr = (&Main{Stdout: io.Discard, Stderr: &stderr}).Run(ctx, []string{"console", "--config", config})
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
				if runErr != nil {
					t.Errorf("console: %v", runErr)
				}
			case <-time.After(40 * time.Second):
				t.Errorf("the console did not stop within 40 s of its context")
			}
			if t.Failed() {
				t.Logf("console %s's log:\n%s", u, stderr.String())
			}
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := c.Get(u + "/login"); err == nil {
			resp.Body.Close()
			return stop
		}
		select {
		case <-done:
			t.Fatalf("the console ended before serving: %v; log:\n%s", runErr, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the console did not serve within 30 s; log:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConsoleCommand: monitor console stores what a table publishes and
// serves it to a logged-in officer, and nothing to anyone else.
func TestConsoleCommand(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	u := startConsole(t, b.URL(), "bjmonitor")
	if resp, err := http.Get(u + "/"); err != nil {
		t.Fatal(err)
	} else if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), `name="password"`) {
		t.Fatalf("without a session the console shows:\n%s", body)
	}
	c := loggedIn(t, u, "ana")
	get := func(path string) string {
		resp, err := c.Get(u + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	alert := `{"type":"alert","id":"table-7:1842:3:21+3:overpaid","table":"table-7","round":"1842","seat":3,"bet":"21+3","kind":"overpaid","severity":"mismatch","expected":0,"entered":45,"cards":[{"card":"7S","confidence":0.93}]}`
	deadline := time.Now().Add(30 * time.Second)
	for {
		mqtttest.Publish(t, b.URL(), "bjmonitor/table-7/alert", alert)
		if page := get("/alerts"); strings.Contains(page, "table-7") && strings.Contains(page, "overpaid") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the alert published never reached the console's list")
		}
		time.Sleep(200 * time.Millisecond)
	}
	mqtttest.Publish(t, b.URL(), "bjmonitor/table-7/alert", `{"type":"alert"`) // malformed: counted, skipped
	time.Sleep(300 * time.Millisecond)
	if page := get("/"); !strings.Contains(page, "1 malformed") || !strings.Contains(page, "online") && !strings.Contains(page, "table-7") {
		t.Errorf("the tables page does not count the malformed message:\n%s", page)
	}
}

// loggedIn returns an HTTP client logged in to the console at u.
func loggedIn(t *testing.T, u, name string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(u + "/login")
	if err != nil {
		t.Fatal(err)
	}
	login, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(login)
	if csrf == nil {
		t.Fatalf("no login form:\n%s", login)
	}
	resp, err = c.PostForm(u+"/login", url.Values{"csrf": {string(csrf[1])}, "name": {name}, "password": {"correct horse"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/" {
		t.Fatalf("logging in as %s ended on %s", name, resp.Request.URL)
	}
	return c
}

func urlQuery(s string) string { return url.QueryEscape(s) }

// TestPruneEvidenceLoop: the console deletes evidence past
// console.evidence_days as it starts, and the loop ends with its context.
func TestPruneEvidenceLoop(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	for id, age := range map[string]time.Duration{"old": 91 * 24 * time.Hour, "new": 89 * 24 * time.Hour} {
		if _, err := db.AddEvidence(ctx, store.Evidence{AlertID: id, File: "clip", ContentType: "video/mp4", Received: now.Add(-age), Data: []byte(id)}); err != nil {
			t.Fatal(err)
		}
	}
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		pruneEvidence(lctx, db, 90*24*time.Hour, slog.New(slog.DiscardHandler))
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := db.Evidence(ctx, "old", "clip"); errors.Is(err, store.ErrExpired) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the evidence 91 days old was not deleted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := db.Evidence(ctx, "new", "clip"); err != nil {
		t.Errorf("the evidence 89 days old: %v, want it kept", err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Error("the pruning loop did not end with its context")
	}
}

// TestConsoleDelUser: monitor console deluser disables a user, who can
// then no longer log in; an unknown name is an error.
func TestConsoleDelUser(t *testing.T) {
	config := writeConfig(t, "console:\n  database: "+filepath.Join(t.TempDir(), "c.db")+"\n")
	addConsoleUsers(t, config)
	stdout, _, err := run(t, "console", "deluser", "ana", "--config", config)
	if err != nil || !strings.Contains(stdout, "user ana disabled") {
		t.Fatalf("console deluser ana = %q, %v", stdout, err)
	}
	if _, _, err := run(t, "console", "deluser", "eve", "--config", config); !errors.Is(err, store.ErrNotFound) || exitCode(err) != 1 {
		t.Errorf("console deluser eve = %v (exit %d), want ErrNotFound, exit 1", err, exitCode(err))
	}
	if _, _, err := run(t, "console", "deluser", "--config", config); exitCode(err) != 2 {
		t.Errorf("console deluser without a name: exit %d, want 2", exitCode(err))
	}
	cfg, err := loadConfig(config, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), cfg.Console.Database)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if u, err := db.User(context.Background(), "ana"); err != nil || u.Disabled.IsZero() {
		t.Errorf("ana after deluser: %+v, %v; want disabled", u, err)
	}
	if u, err := db.User(context.Background(), "vic"); err != nil || !u.Disabled.IsZero() {
		t.Errorf("vic after deluser ana: %+v, %v; want still enabled", u, err)
	}
}

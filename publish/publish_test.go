package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bjmonitor/internal/backoff"
	"bjmonitor/internal/mqtttest"
)

func testConfig(tb testing.TB, url, dir string) Config {
	return Config{
		Broker:         url,
		ClientID:       "test-" + strings.ReplaceAll(tb.Name(), "/", "-"),
		Table:          "t1",
		TopicPrefix:    "test",
		OutboxDir:      dir,
		ConnectTimeout: 2 * time.Second,
		AckTimeout:     2 * time.Second,
		// Short, so the tests do not wait out the production schedule.
		Backoff: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond},
	}
}

func alertPayload(i int) []byte { return fmt.Appendf(nil, `{"id":"alert-%03d","kind":"overpaid"}`, i) }

func alertID(tb testing.TB, payload string) string {
	tb.Helper()
	var a struct{ ID string }
	if err := json.Unmarshal([]byte(payload), &a); err != nil {
		tb.Fatalf("alert payload %q: %v", payload, err)
	}
	return a.ID
}

// waitFor polls cond until it holds or d passes.
func waitFor(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// retained returns the retained message on topic, seen by a fresh subscriber.
func retained(tb testing.TB, url, topic string) mqtttest.Message {
	tb.Helper()
	s := mqtttest.Subscribe(tb, url, fmt.Sprintf("probe-%d", time.Now().UnixNano()), topic, true)
	return s.Next(tb, 5*time.Second)
}

func TestPublishTopicsAndAvailability(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	sub := mqtttest.Subscribe(t, b.URL(), "sub-topics", "test/t1/#", true)

	p, err := New(testConfig(t, b.URL(), t.TempDir()))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if !p.Connected() {
		t.Error("Connected() = false right after New with a live broker")
	}
	ctx := context.Background()
	sent := map[string]string{
		"test/t1/round":   `{"round":"1842"}`,
		"test/t1/outcome": `{"round":"1842","bet":"21+3"}`,
		"test/t1/alert":   `{"id":"a1"}`,
	}
	for _, kind := range []string{KindRound, KindOutcome, KindAlert} {
		if err := p.Publish(ctx, kind, []byte(sent["test/t1/"+kind])); err != nil {
			t.Fatalf("Publish(%s): %v", kind, err)
		}
	}
	if err := p.Publish(ctx, KindStats, []byte(`{"fps":25}`)); err != nil {
		t.Errorf("Publish(stats): %v", err)
	}
	if err := p.Publish(ctx, "bogus", nil); err == nil {
		t.Error("Publish(bogus) = nil error, want one")
	}

	got := map[string]string{}
	for len(got) < 5 {
		m := sub.Next(t, 5*time.Second)
		got[m.Topic] = m.Payload
	}
	for topic, want := range sent {
		if got[topic] != want {
			t.Errorf("%s: got %q, want %q", topic, got[topic], want)
		}
	}
	if got["test/t1/available"] != AvailableOnline {
		t.Errorf("available: got %q, want %q", got["test/t1/available"], AvailableOnline)
	}
	if got["test/t1/stats"] != `{"fps":25}` {
		t.Errorf("stats: got %q", got["test/t1/stats"])
	}
	waitFor(t, 5*time.Second, "outbox drained", func() bool { return p.OutboxDepth() == 0 })

	if m := retained(t, b.URL(), "test/t1/available"); m.Payload != AvailableOnline || !m.Retained {
		t.Errorf("retained available = %+v, want retained %q", m, AvailableOnline)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if m := retained(t, b.URL(), "test/t1/available"); m.Payload != AvailableStopped || !m.Retained {
		t.Errorf("retained available after Close = %+v, want retained %q", m, AvailableStopped)
	}
}

func TestBrokerOutageLosesNoAlert(t *testing.T) {
	persist := t.TempDir()
	// The broker keeps the subscriber's persistent session over its restart,
	// so alerts sent after the restart are queued for the subscriber even if
	// it has not reconnected yet.
	b := mqtttest.NewMosquitto(t, fmt.Sprintf("persistence true\npersistence_location %s/\n", persist))
	b.Start()
	sub := mqtttest.Subscribe(t, b.URL(), "sub-outage", "test/t1/alert", false)

	cfg := testConfig(t, b.URL(), t.TempDir())
	log, logs := testLogger()
	cfg.Log = log
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer p.Close()
	ctx := context.Background()

	const before, during = 5, 10
	var received []string
	for i := range before {
		if err := p.Publish(ctx, KindAlert, alertPayload(i)); err != nil {
			t.Fatal(err)
		}
	}
	for len(received) < before {
		received = append(received, alertID(t, sub.Next(t, 5*time.Second).Payload))
	}

	b.Stop()
	waitFor(t, 5*time.Second, "publisher sees the broker gone", func() bool { return !p.Connected() })
	for i := before; i < before+during; i++ {
		start := time.Now()
		if err := p.Publish(ctx, KindAlert, alertPayload(i)); err != nil {
			t.Fatalf("Publish during outage: %v", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Publish during outage took %v; it must not wait for the broker", d)
		}
	}
	if got := p.OutboxDepth(); got != during {
		t.Errorf("outbox depth during outage = %d, want %d", got, during)
	}

	b.Start()
	seen := map[string]bool{}
	var order []string
	for _, id := range received {
		seen[id] = true
		order = append(order, id)
	}
	dups := 0
	deadline := time.After(20 * time.Second)
	for len(order) < before+during {
		select {
		case m := <-sub.C():
			id := alertID(t, m.Payload)
			received = append(received, id)
			if seen[id] {
				dups++ // consumers de-duplicate by id; a resend is allowed
				continue
			}
			seen[id] = true
			order = append(order, id)
		case <-deadline:
			t.Fatalf("after restart only %d of %d alerts arrived: %v", len(order), before+during, order)
		}
	}
	waitFor(t, 5*time.Second, "outbox drained", func() bool { return p.OutboxDepth() == 0 })
	var tried []string
	for i := range before + during {
		tried = append(tried, alertID(t, string(alertPayload(i))))
	}
	t.Logf("tried (%d before the outage, %d during): %v", before, during, tried)
	t.Logf("received %d messages, %d duplicates; unique in order: %v", len(received), dups, order)
	// The broker restarted and kept the session: that is no takeover.
	if text := logs.String(); strings.Contains(text, "session takeover") || !strings.Contains(text, "session_present=true") {
		t.Errorf("a broker restart with persistence read as a session takeover, or the kept session not logged:\n%s", text)
	}
	if fmt.Sprint(order) != fmt.Sprint(tried) {
		t.Errorf("unique alerts in order = %v, want %v", order, tried)
	}
}

func TestPublisherRestartResendsOutbox(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "") // not started: the network is down
	dir := t.TempDir()
	cfg := testConfig(t, b.URL(), dir)

	start := time.Now()
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New with the broker down must succeed (the box must start offline): %v", err)
	}
	if p.Connected() {
		t.Error("Connected() = true with no broker")
	}
	t.Logf("New with the broker down took %v", time.Since(start))
	const n = 4
	for i := range n {
		if err := p.Publish(context.Background(), KindAlert, alertPayload(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	b.Start()
	sub := mqtttest.Subscribe(t, b.URL(), "sub-restart", "test/t1/alert", true)
	p2, err := New(cfg)
	if err != nil {
		t.Fatalf("New on the same outbox: %v", err)
	}
	defer p2.Close()
	for i := range n {
		got := alertID(t, sub.Next(t, 10*time.Second).Payload)
		if want := alertID(t, string(alertPayload(i))); got != want {
			t.Errorf("alert %d after restart = %s, want %s", i, got, want)
		}
	}
	waitFor(t, 5*time.Second, "outbox drained", func() bool { return p2.OutboxDepth() == 0 })
}

func TestAuthentication(t *testing.T) {
	pw, err := exec.LookPath("mosquitto_passwd")
	if err != nil {
		t.Skip("mosquitto_passwd not installed; cannot make a password file")
	}
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "passwd")
	if out, err := exec.Command(pw, "-b", "-c", pwFile, "user", "pass").CombinedOutput(); err != nil {
		t.Fatalf("mosquitto_passwd: %v\n%s", err, out)
	}
	b := mqtttest.NewMosquitto(t, fmt.Sprintf("allow_anonymous false\npassword_file %s\n", pwFile))
	b.Start()

	t.Run("right", func(t *testing.T) {
		cfg := testConfig(t, b.URL(), t.TempDir())
		cfg.Username, cfg.Password = "user", "pass"
		p, err := New(cfg)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		defer p.Close()
		if !p.Connected() {
			t.Error("Connected() = false with the right credentials")
		}
	})
	t.Run("wrong", func(t *testing.T) {
		cfg := testConfig(t, b.URL(), t.TempDir())
		cfg.Username, cfg.Password = "user", "nope"
		p, err := New(cfg)
		if err == nil {
			p.Close()
			t.Fatal("New with a wrong password: no error")
		}
		if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "authentication") {
			t.Errorf("New with a wrong password: %v, want an authentication error", err)
		}
		t.Logf("error: %v", err)
	})
}

func TestBadTLSFiles(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"missing CA", func(c *Config) { c.CAFile = filepath.Join(dir, "nope.pem") }, "TLS CA file"},
		{"CA not PEM", func(c *Config) { c.CAFile = notPEM }, "no PEM certificate"},
		{"missing client key", func(c *Config) { c.CertFile, c.KeyFile = notPEM, filepath.Join(dir, "nope.key") }, "TLS client certificate"},
		{"cert without key", func(c *Config) { c.CertFile = notPEM }, "must be given together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "ssl://127.0.0.1:1", t.TempDir())
			tc.edit(&cfg)
			p, err := New(cfg)
			if err == nil {
				p.Close()
				t.Fatal("New: no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestBackoffSchedule(t *testing.T) {
	// Never more than a second between attempts: the monitor must be back
	// within a second of the broker's return.
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, time.Second, time.Second}
	for n, w := range want {
		if got := backoff.Schedule(DefaultBackoff).Delay(n); got != w {
			t.Errorf("DefaultBackoff's delay %d = %v, want %v", n, got, w)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	good := Config{Broker: "tcp://127.0.0.1:1883", ClientID: "c", Table: "t", OutboxDir: "/tmp/x"}
	if err := good.Validate(); err != nil {
		t.Fatalf("Validate(good) = %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no broker", func(c *Config) { c.Broker = "" }, "broker is empty"},
		{"bad scheme", func(c *Config) { c.Broker = "http://h:1" }, "not tcp or ssl"},
		{"no host", func(c *Config) { c.Broker = "localhost" }, "not a URL"},
		{"no client id", func(c *Config) { c.ClientID = "" }, "client id"},
		{"no table", func(c *Config) { c.Table = "" }, "table"},
		{"no outbox", func(c *Config) { c.OutboxDir = "" }, "outbox"},
		{"handler on a kind we publish", func(c *Config) { c.Handlers = map[string]func(Message){KindAlert: func(Message) {}} }, "handler kind"},
		{"handler on a wildcard", func(c *Config) { c.Handlers = map[string]func(Message){"#": func(Message) {}} }, "handler kind"},
		{"nil handler", func(c *Config) { c.Handlers = map[string]func(Message){KindController: nil} }, "is nil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

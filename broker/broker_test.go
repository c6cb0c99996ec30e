package broker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	mqtt "github.com/mochi-mqtt/server/v2"

	"bjmonitor/publish"
	"bjmonitor/publish/testcert"
)

// logBuffer collects what the broker logs, safely across goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// start runs an embedded broker on a free loopback port, closed at the end
// of the test; the test's log shows what it logged.
func start(tb testing.TB, cfg Config) (*Broker, *logBuffer) {
	tb.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	logs := &logBuffer{}
	b, err := Start(context.Background(), cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		tb.Fatalf("Start: %v", err)
	}
	tb.Cleanup(func() {
		b.Close()
		if tb.Failed() {
			tb.Logf("broker log:\n%s", logs)
		}
	})
	return b, logs
}

type message struct {
	topic, payload string
	retained       bool
}

// subscriber connects a paho client to url and subscribes to filter at QoS 1.
func subscriber(tb testing.TB, url, filter string, tune func(*paho.ClientOptions)) (paho.Client, chan message) {
	tb.Helper()
	msgs := make(chan message, 100)
	opts := paho.NewClientOptions().AddBroker(url).
		SetClientID(fmt.Sprintf("sub-%d", time.Now().UnixNano())).
		SetConnectTimeout(2 * time.Second).
		SetAutoReconnect(false)
	if tune != nil {
		tune(opts)
	}
	c := paho.NewClient(opts)
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		tb.Fatalf("subscriber connect to %s: %v", url, tok.Error())
	}
	tb.Cleanup(func() { c.Disconnect(0) })
	tok := c.Subscribe(filter, 1, func(_ paho.Client, m paho.Message) {
		msgs <- message{m.Topic(), string(m.Payload()), m.Retained()}
	})
	if !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		tb.Fatalf("subscribe %s: %v", filter, tok.Error())
	}
	return c, msgs
}

// next returns the next message, or fails the test after 5 s.
func next(tb testing.TB, msgs <-chan message) message {
	tb.Helper()
	select {
	case m := <-msgs:
		return m
	case <-time.After(5 * time.Second):
		tb.Fatal("no message within 5 s")
		return message{}
	}
}

func publisherConfig(tb testing.TB, url string) publish.Config {
	return publish.Config{
		Broker:         url,
		ClientID:       "monitor-" + strings.ReplaceAll(tb.Name(), "/", "-"),
		Table:          "t1",
		TopicPrefix:    "test",
		OutboxDir:      tb.TempDir(),
		ConnectTimeout: 2 * time.Second,
		AckTimeout:     2 * time.Second,
		Backoff:        []time.Duration{100 * time.Millisecond},
	}
}

func TestPublisherRoundTrip(t *testing.T) {
	b, _ := start(t, Config{})
	if !strings.HasPrefix(b.URL(), "tcp://127.0.0.1:") || strings.HasSuffix(b.URL(), ":0") {
		t.Errorf("URL() = %q, want tcp://127.0.0.1:<bound port>", b.URL())
	}
	_, msgs := subscriber(t, b.URL(), "test/t1/#", nil)

	cfg, ctl := controllerConfig(t, b.URL())
	p, err := publish.New(cfg)
	if err != nil {
		t.Fatalf("publish.New: %v", err)
	}
	if err := p.Publish(context.Background(), publish.KindAlert, []byte(`{"id":"a1"}`)); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for len(got) < 2 {
		m := next(t, msgs)
		got[m.topic] = m.payload
	}
	if got["test/t1/available"] != publish.AvailableOnline || got["test/t1/alert"] != `{"id":"a1"}` {
		t.Errorf("received %v, want available online and the alert", got)
	}

	// The controller's events reach the publisher's handler.
	sub, _ := subscriber(t, b.URL(), "unused/#", nil)
	if tok := sub.Publish("test/t1/controller", 1, false, `{"type":"game_start"}`); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("controller publish: %v", tok.Error())
	}
	select {
	case e := <-ctl:
		if e != `{"type":"game_start"}` {
			t.Errorf("controller event = %s", e)
		}
	case <-time.After(5 * time.Second):
		t.Error("controller event not delivered through the embedded broker")
	}

	// A console that subscribes later still sees the retained state.
	_, late := subscriber(t, b.URL(), "test/t1/available", nil)
	if m := next(t, late); m.payload != publish.AvailableOnline || !m.retained {
		t.Errorf("retained available = %+v, want retained %q", m, publish.AvailableOnline)
	}
	if err := p.Close(); err != nil {
		t.Errorf("publisher Close: %v", err)
	}
	_, late = subscriber(t, b.URL(), "test/t1/available", nil)
	if m := next(t, late); m.payload != publish.AvailableStopped || !m.retained {
		t.Errorf("retained available after Close = %+v, want retained %q", m, publish.AvailableStopped)
	}
}

// TestLastWill cuts the publisher's connection on the broker's side, as when
// the box loses power or its cable: the broker must send the offline will.
func TestLastWill(t *testing.T) {
	b, _ := start(t, Config{})
	_, msgs := subscriber(t, b.URL(), "test/t1/available", nil)
	cfg := publisherConfig(t, b.URL())
	p, err := publish.New(cfg)
	if err != nil {
		t.Fatalf("publish.New: %v", err)
	}
	defer p.Close()
	if m := next(t, msgs); m.payload != publish.AvailableOnline {
		t.Fatalf("available = %q, want %q", m.payload, publish.AvailableOnline)
	}
	// The publisher reconnects at once. On a loaded machine its new
	// connection can take the session over before the broker has handled
	// the cut, and the broker then rightly drops the will as stale
	// (TestStaleWillDropped); so the cable is pulled up to three times,
	// and one of them must show the will, then the publisher back online.
	for try := 1; ; try++ {
		cl, ok := b.srv.Clients.Get(cfg.ClientID)
		if !ok {
			t.Fatalf("the broker has no client %q", cfg.ClientID)
		}
		cl.Stop(errors.New("test: cable pulled"))
		got := untilQuiet(msgs, time.Second)
		if i := slices.Index(got, publish.AvailableOffline); i >= 0 && slices.Contains(got[i+1:], publish.AvailableOnline) {
			return
		}
		if try == 3 {
			t.Fatalf("available after the connection was cut three times = %q, want %q and then %q", got, publish.AvailableOffline, publish.AvailableOnline)
		}
	}
}

// untilQuiet collects the payloads that arrive until none has for quiet.
func untilQuiet(msgs <-chan message, quiet time.Duration) []string {
	var got []string
	for {
		select {
		case m := <-msgs:
			got = append(got, m.payload)
		case <-time.After(quiet):
			return got
		}
	}
}

// TestStaleWillDropped: the will of a connection already replaced by a
// newer one with the same client id is not sent; the current one's is.
func TestStaleWillDropped(t *testing.T) {
	srv := mqtt.New(&mqtt.Options{Logger: slog.New(slog.DiscardHandler)})
	old := srv.NewClient(nil, "l", "monitor", false)
	cur := srv.NewClient(nil, "l", "monitor", false)
	srv.Clients.Add(cur)
	h := &staleWillHook{clients: srv.Clients}
	will := mqtt.Will{TopicName: "test/t1/available", Payload: []byte("offline"), Retain: true, Flag: 1}
	if got, _ := h.OnWill(old, will); got.TopicName != "" || got.Retain {
		t.Errorf("will of a replaced connection = %+v, want none", got)
	}
	if got, _ := h.OnWill(cur, will); got.TopicName != will.TopicName || !got.Retain {
		t.Errorf("will of the current connection = %+v, want %+v", got, will)
	}
}

// TestSessionKeptWhileAway: the embedded broker queues controller events
// for the monitor's persistent session while the monitor restarts.
func TestSessionKeptWhileAway(t *testing.T) {
	b, _ := start(t, Config{})
	cfg, ctl := controllerConfig(t, b.URL())
	p, err := publish.New(cfg)
	if err != nil {
		t.Fatalf("publish.New: %v", err)
	}
	p.Close()
	c, _ := subscriber(t, b.URL(), "unused/#", nil)
	for i := range 3 {
		if tok := c.Publish("test/t1/controller", 1, false, fmt.Sprintf(`{"n":%d}`, i)); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			t.Fatalf("controller publish: %v", tok.Error())
		}
	}
	// mochi acknowledges a publish before it passes it on, and a message
	// passed on while a session is being taken over is lost (see the
	// package comment); so wait until all three are queued.
	waitQueued := time.Now().Add(5 * time.Second)
	for {
		cl, ok := b.srv.Clients.Get(cfg.ClientID)
		if ok && cl.State.Inflight.Len() >= 3 {
			break
		}
		if time.Now().After(waitQueued) {
			t.Fatal("the broker did not queue 3 events for the absent monitor")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p, err = publish.New(cfg)
	if err != nil {
		t.Fatalf("publish.New again: %v", err)
	}
	defer p.Close()
	// mochi resends a session's queued messages sorted by the second they
	// arrived in, so those from one second come in any order (see the
	// package comment): compare as a set.
	got := map[string]bool{}
	for i := range 3 {
		select {
		case e := <-ctl:
			got[e] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of 3 queued events delivered after the monitor came back: %v", i, got)
		}
	}
	for i := range 3 {
		if want := fmt.Sprintf(`{"n":%d}`, i); !got[want] {
			t.Errorf("queued event %s not delivered; got %v", want, got)
		}
	}
}

func TestAuth(t *testing.T) {
	b, logs := start(t, Config{Users: []User{{Name: "monitor", PasswordHash: hash(t, "s3cret"), Role: RoleMonitor}}, TopicPrefix: "test", Table: "t1"})
	for _, tc := range []struct {
		name, user, pass string
		ok               bool
	}{
		{"right", "monitor", "s3cret", true},
		{"wrong password", "monitor", "nope", false},
		{"unknown user", "ghost", "s3cret", false},
		{"anonymous", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := publisherConfig(t, b.URL())
			cfg.Username, cfg.Password = tc.user, tc.pass
			p, err := publish.New(cfg)
			if tc.ok {
				if err != nil {
					t.Fatalf("publish.New: %v", err)
				}
				defer p.Close()
				if !p.Connected() {
					t.Error("Connected() = false with the right password")
				}
				return
			}
			if err == nil {
				p.Close()
				t.Fatal("publish.New: no error")
			}
			if !errors.Is(err, publish.ErrAuth) {
				t.Errorf("publish.New: %v, want ErrAuth", err)
			}
		})
	}
	if !strings.Contains(logs.String(), "bad user name or password") {
		t.Errorf("refused logins not logged at warn; log:\n%s", logs)
	}

	open, _ := start(t, Config{})
	p, err := publish.New(publisherConfig(t, open.URL()))
	if err != nil {
		t.Fatalf("anonymous publish.New with no users configured: %v", err)
	}
	p.Close()
}

func TestTLS(t *testing.T) {
	certs := testcert.Write(t, t.TempDir(), "box")
	b, _ := start(t, Config{CertFile: certs.ServerCert, KeyFile: certs.ServerKey})
	if !strings.HasPrefix(b.URL(), "ssl://127.0.0.1:") {
		t.Fatalf("URL() = %q, want ssl://127.0.0.1:<port>", b.URL())
	}
	cfg := publisherConfig(t, b.URL())
	cfg.CAFile = certs.CA
	p, err := publish.New(cfg)
	if err != nil {
		t.Fatalf("publish.New over TLS: %v", err)
	}
	defer p.Close()
	if !p.Connected() {
		t.Error("Connected() = false over TLS")
	}

	if _, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", CertFile: certs.ServerCert}, nil); err == nil || !strings.Contains(err.Error(), "together") {
		t.Errorf("Start with a certificate and no key: %v, want an error", err)
	}
	if _, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", CertFile: certs.ServerCert, KeyFile: certs.CA}, nil); err == nil || !strings.Contains(err.Error(), "TLS certificate") {
		t.Errorf("Start with a bad key: %v, want an error naming the files", err)
	}
}

func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := l.Addr().String()
	b, err := Start(context.Background(), Config{Addr: addr}, nil)
	if err == nil {
		b.Close()
		t.Fatalf("Start on %s, which is taken: no error", addr)
	}
	t.Logf("error: %v", err)
	for _, want := range []string{addr, "already in use", "Mosquitto"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start: %v, want it to mention %q", err, want)
		}
	}
}

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"127.0.0.1:1883", "127.0.0.1:1883"},
		{"0.0.0.0:1883", "127.0.0.1:1883"},
		{"[::]:1883", "127.0.0.1:1883"},
		{":1883", "127.0.0.1:1883"},
		{"10.1.2.3:8883", "10.1.2.3:8883"},
	} {
		if got := dialable(tc.in); got != tc.want {
			t.Errorf("dialable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	b, _ := start(t, Config{Addr: ":0", Table: "t1", Users: []User{{Name: "officer", PasswordHash: hash(t, "pw"), Role: RoleConsole}}})
	if !strings.HasPrefix(b.URL(), "tcp://127.0.0.1:") {
		t.Errorf("URL() with Addr \":0\" = %q, want tcp://127.0.0.1:<port>", b.URL())
	}
}

// TestCloseEndsEverything: Close drops connected clients, frees the port,
// and leaves no goroutine behind.
func TestCloseEndsEverything(t *testing.T) {
	before := settledGoroutines()
	logs := &logBuffer{}
	b, err := Start(context.Background(), Config{Addr: "127.0.0.1:0"}, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(b.URL(), "tcp://")
	lost := make(chan struct{})
	c, _ := subscriber(t, b.URL(), "#", func(o *paho.ClientOptions) {
		o.SetConnectionLostHandler(func(paho.Client, error) { close(lost) })
	})
	if tok := c.Publish("x/y", 1, true, "retained"); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}

	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	select {
	case <-lost:
	case <-time.After(5 * time.Second):
		t.Error("the client's connection survived Close")
	}
	c.Disconnect(0)
	if l, err := net.Listen("tcp", addr); err != nil {
		t.Errorf("port %s still taken after Close: %v", addr, err)
	} else {
		l.Close()
	}

	// Clients dropped by our own Close are no news for the monitor's log.
	if strings.Contains(logs.String(), "WARN") {
		t.Errorf("Close logged warnings:\n%s", logs)
	}

	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		var buf bytes.Buffer
		pprof.Lookup("goroutine").WriteTo(&buf, 1)
		t.Errorf("%d goroutines after Close, %d before Start:\n%s", n, before, buf.String())
	}
}

// settledGoroutines waits until earlier tests' goroutines have ended (the
// count holds still for 100 ms, or 2 s pass) and returns the count.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			break
		}
		n = m
	}
	return n
}

// controllerConfig is a publisher's configuration whose controller events
// arrive on the channel.
func controllerConfig(t *testing.T, url string) (publish.Config, chan string) {
	ctl := make(chan string, 10)
	cfg := publisherConfig(t, url)
	cfg.Handlers = map[string]func(publish.Message){publish.KindController: func(m publish.Message) { ctl <- string(m.Payload) }}
	return cfg, ctl
}

package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"bjmonitor/internal/mqtttest"
	"bjmonitor/publish/testcert"
)

// logBuffer collects log lines from several goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func testLogger() (*slog.Logger, *logBuffer) {
	buf := &logBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo})), buf
}

// TestReconnectWithinASecond kills the broker (SIGKILL, no persistence),
// keeps it down 6.5 s, and brings it back: the publisher must be connected
// and subscribed again within a second and a bit (4 s allowed, for a
// loaded machine: the old schedule, 1, 5, 10 then 60 s, took 9.5 s here),
// and say so in its log, and the gap must be recorded.
func TestReconnectWithinASecond(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	cfg, got := handlerConfig(t, b.URL(), t.TempDir())
	cfg.Backoff = nil // the production schedule
	log, logs := testLogger()
	cfg.Log = log
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer p.Close()
	if l := p.Link(); !l.Connected || l.Gaps != 0 {
		t.Errorf("Link() after New = %+v, want connected with no gap", l)
	}

	b.Kill()
	waitFor(t, 5*time.Second, "publisher sees the broker gone", func() bool { return !p.Connected() })
	time.Sleep(6500 * time.Millisecond)
	if l := p.Link(); l.Connected || l.Gaps != 1 || l.Last.From.IsZero() || !l.Last.To.IsZero() {
		t.Errorf("Link() while away = %+v, want one open gap", l)
	}
	b.Start()
	back := time.Now()
	waitFor(t, 10*time.Second, "publisher reconnects", p.Connected)
	took := time.Since(back)
	t.Logf("reconnected %v after the broker listened again", took.Round(time.Millisecond))
	if took > 4*time.Second {
		t.Errorf("reconnected %v after the broker's return, want within about 1 s", took)
	}
	l := p.Link()
	if l.Gaps != 1 || l.Last.To.IsZero() || l.Last.To.Before(l.Last.From) {
		t.Errorf("Link() after reconnect = %+v, want one closed gap", l)
	}
	// Resubscribed: the first event sent once the subscription is made
	// arrives (sent until one does, as the subscription follows the
	// connection by a moment).
	ctl := controllerClient(t, b.URL())
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; ; i++ {
		sendEvent(t, ctl, "test/t1/controller", fmt.Sprintf(`{"n":%d}`, i))
		select {
		case <-got:
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no controller event after the broker's restart: not resubscribed")
			}
			continue
		}
		break
	}
	text := logs.String()
	for _, want := range []string{"connected to the broker", "the broker closed the connection", "reconnected to the broker", "session_present=false", "forgotten the monitor's session"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
}

// TestSessionTakeoverLogged connects a second client with the publisher's
// client id: the broker hands it the session and drops the publisher,
// which must say that this is what probably happened.
func TestSessionTakeoverLogged(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	cfg := testConfig(t, b.URL(), t.TempDir())
	log, logs := testLogger()
	cfg.Log = log
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer p.Close()
	// Once in, the intruder is itself pushed out by the publisher's
	// reconnection, and stays out.
	intruder := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID(cfg.ClientID).
		SetCleanSession(false).SetAutoReconnect(false))
	if tok := intruder.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		t.Fatalf("intruder: %v", tok.Error())
	}
	defer intruder.Disconnect(0)
	waitFor(t, 5*time.Second, "the takeover is logged", func() bool { return strings.Contains(logs.String(), "session takeover") })
	waitFor(t, 5*time.Second, "the publisher back", p.Connected)
	t.Logf("log:\n%s", logs.String())
}

// TestPlainURLAtTLSPort points a tcp:// URL at a TLS listener: New must
// fail with ErrTLS, within the connect timeout, saying to use ssl://.
func TestPlainURLAtTLSPort(t *testing.T) {
	certs := testcert.Write(t, t.TempDir(), "good")
	tlsURL, _, _ := tlsBroker(t, certs, false)
	plain := "tcp://" + strings.TrimPrefix(tlsURL, "ssl://")
	cfg := testConfig(t, plain, t.TempDir())
	start := time.Now()
	p, err := New(cfg)
	took := time.Since(start)
	if err == nil {
		p.Close()
		t.Fatal("New: no error")
	}
	t.Logf("New failed after %v: %v", took.Round(time.Millisecond), err)
	if !errors.Is(err, ErrTLS) {
		t.Errorf("New: %v does not wrap ErrTLS", err)
	}
	if !strings.Contains(err.Error(), "ssl://127.0.0.1:") {
		t.Errorf("New: %v does not say to use ssl://", err)
	}
	if took > cfg.ConnectTimeout+time.Second {
		t.Errorf("New took %v, want within the connect timeout %v", took, cfg.ConnectTimeout)
	}
}

// TestSilentPortLogged points the publisher at a port that accepts TCP
// but never answers CONNECT: New still succeeds (the broker may come), but
// the failed attempt is logged, within the connect timeout.
func TestSilentPortLogged(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	cfg := testConfig(t, "tcp://"+ln.Addr().String(), t.TempDir())
	cfg.ConnectTimeout = time.Second
	log, logs := testLogger()
	cfg.Log = log
	start := time.Now()
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer p.Close()
	took := time.Since(start)
	if took > cfg.ConnectTimeout+500*time.Millisecond {
		t.Errorf("New took %v with a silent broker, want about the connect timeout %v", took, cfg.ConnectTimeout)
	}
	if text := logs.String(); !strings.Contains(text, "cannot connect to the broker") || !strings.Contains(text, "no answer to CONNECT within 1s") {
		t.Errorf("no warning for a connect that did not complete:\n%s", text)
	}
	if l := p.Link(); l.Connected || l.Gaps != 1 {
		t.Errorf("Link() = %+v, want one open gap from the start", l)
	}
}

// TestStatsKeptWhileAway publishes stats with the broker down: they must
// arrive, in order, once it is back. The broker queues QoS 0 messages for
// the watcher's persistent session, so that the watcher need not be
// back before the publisher.
func TestStatsKeptWhileAway(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "persistence true\nqueue_qos0_messages true\n")
	b.Start()
	sub := mqtttest.Subscribe(t, b.URL(), "stats-watch", "test/t1/stats", false)
	p, err := New(testConfig(t, b.URL(), t.TempDir()))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer p.Close()
	b.Stop()
	waitFor(t, 5*time.Second, "publisher sees the broker gone", func() bool { return !p.Connected() })
	var want []string
	for i := range 3 {
		want = append(want, fmt.Sprintf(`{"n":%d,"broker_connected":false}`, i))
		if err := p.Publish(context.Background(), KindStats, []byte(want[i])); err != nil {
			t.Fatal(err)
		}
	}
	b.Start()
	var got []string
	for len(got) < len(want) {
		got = append(got, sub.Next(t, 10*time.Second).Payload)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stats after the outage = %v, want %v", got, want)
	}
	if p.StatsDropped() != 0 {
		t.Errorf("StatsDropped = %d, want 0", p.StatsDropped())
	}
}

package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"

	"bjmonitor/internal/mqtttest"
)

// controllerClient connects a paho client that plays the table controller.
func controllerClient(tb testing.TB, url string) mqtt.Client {
	tb.Helper()
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).
		SetClientID(fmt.Sprintf("controller-%d", time.Now().UnixNano())).
		SetAutoReconnect(true).SetMaxReconnectInterval(200 * time.Millisecond).
		SetConnectTimeout(2 * time.Second))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		tb.Fatalf("controller connect: %v", tok.Error())
	}
	tb.Cleanup(func() { c.Disconnect(100) })
	return c
}

func sendEvent(tb testing.TB, c mqtt.Client, topic, payload string) {
	tb.Helper()
	if tok := c.Publish(topic, 1, false, payload); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		tb.Fatalf("controller publish to %s: %v", topic, tok.Error())
	}
}

// handlerConfig is testConfig with a controller handler that feeds the
// returned channel, as the monitor would.
func handlerConfig(tb testing.TB, url, dir string) (Config, chan string) {
	got := make(chan string, 100)
	cfg := testConfig(tb, url, dir)
	cfg.Handlers = map[string]func(Message){KindController: func(m Message) { got <- string(m.Payload) }}
	return cfg, got
}

func expectEvent(tb testing.TB, got <-chan string, want string) {
	tb.Helper()
	select {
	case m := <-got:
		if m != want {
			tb.Errorf("controller event = %s, want %s", m, want)
		}
	case <-time.After(5 * time.Second):
		tb.Fatalf("controller event %s: not delivered within 5 s", want)
	}
}

func TestControllerSubscription(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "") // no persistence: a restart forgets every subscription
	b.Start()
	cfg, got := handlerConfig(t, b.URL(), t.TempDir())
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer p.Close()
	ctl := controllerClient(t, b.URL())

	sendEvent(t, ctl, "live/t1/controller", `{"type":"game_start","round":"0"}`) // another prefix
	sendEvent(t, ctl, "test/t2/controller", `{"type":"game_start","round":"0"}`) // another table
	first := `{"type":"game_start","round":"1842","t":12.30}`
	sendEvent(t, ctl, "test/t1/controller", first)
	expectEvent(t, got, first)

	b.Stop()
	waitFor(t, 5*time.Second, "publisher sees the broker gone", func() bool { return !p.Connected() })
	b.Start()
	waitFor(t, 10*time.Second, "publisher reconnects", p.Connected)
	// The subscription is remade just after the connection opens; until it
	// is, an event has no subscriber and the broker drops it. So send
	// until one arrives: any arrival proves the resubscription.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		sendEvent(t, ctl, "test/t1/controller", fmt.Sprintf(`{"type":"meter","n":%d}`, i))
		select {
		case m := <-got:
			t.Logf("after the restart, event %d of those sent arrived: %s", i, m)
			return
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no controller event delivered after a broker restart: not resubscribed")
		}
	}
}

func TestControllerEventsQueuedWhileAway(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	dir := t.TempDir()
	cfg, got := handlerConfig(t, b.URL(), dir)
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := p.Close(); err != nil { // the monitor goes away; its session stays
		t.Errorf("Close: %v", err)
	}

	ctl := controllerClient(t, b.URL())
	events := []string{
		`{"type":"game_start","round":"1842","t":12.30}`,
		`{"type":"wager","round":"1842","seat":3,"bet":"21+3","amount":5,"t":12.31}`,
		`{"type":"game_end","round":"1842","t":40.0}`,
	}
	for _, e := range events {
		sendEvent(t, ctl, "test/t1/controller", e)
	}
	select {
	case m := <-got:
		t.Fatalf("event %s delivered to a closed publisher", m)
	default:
	}

	cfg2, got2 := handlerConfig(t, b.URL(), dir)
	p2, err := New(cfg2)
	if err != nil {
		t.Fatalf("New again: %v", err)
	}
	defer p2.Close()
	for _, e := range events {
		expectEvent(t, got2, e)
	}
	// Still subscribed after catching up.
	live := `{"type":"game_start","round":"1843","t":50.0}`
	sendEvent(t, ctl, "test/t1/controller", live)
	expectEvent(t, got2, live)
	if err := p2.Publish(context.Background(), KindAlert, alertPayload(1)); err != nil {
		t.Errorf("Publish: %v", err)
	}
}

// denyController lets every client in, and refuses reading the controller.
type denyController struct{ mochi.HookBase }

func (h *denyController) ID() string { return "deny-controller" }
func (h *denyController) Provides(b byte) bool {
	return b == mochi.OnConnectAuthenticate || b == mochi.OnACLCheck
}
func (h *denyController) OnConnectAuthenticate(*mochi.Client, packets.Packet) bool { return true }
func (h *denyController) OnACLCheck(_ *mochi.Client, topic string, write bool) bool {
	return write || !strings.HasSuffix(topic, "/"+KindController)
}

func TestRefusedSubscription(t *testing.T) {
	// Mosquitto grants any subscription and filters on delivery, so the
	// refusal is staged with mochi, which checks the ACL on SUBSCRIBE.
	srv := mochi.New(&mochi.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := srv.AddHook(&denyController{}, nil); err != nil {
		t.Fatal(err)
	}
	l := listeners.NewTCP(listeners.Config{ID: "t", Address: "127.0.0.1:0"})
	if err := srv.AddListener(l); err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := "tcp://" + l.Address()
	sub := mqtttest.Subscribe(t, url, "probe-refused", "test/#", true)

	cfg, _ := handlerConfig(t, url, t.TempDir())
	p, err := New(cfg)
	if err == nil {
		p.Close()
		t.Fatal("New with a subscription the broker refuses: no error")
	}
	t.Logf("error: %v", err)
	if !errors.Is(err, ErrSubscribe) || !strings.Contains(err.Error(), "test/t1/controller") || !strings.Contains(err.Error(), "ACL") {
		t.Errorf("New: %v, want ErrSubscribe naming the topic and the ACL", err)
	}
	select {
	case m := <-sub.C():
		t.Errorf("a refused New published %+v", m)
	case <-time.After(100 * time.Millisecond):
	}
}

// cutter forwards TCP connections to a broker, and cuts them all at once,
// as a monitor killed or a network gone would.
type cutter struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutter(tb testing.TB, broker string) *cutter {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	c := &cutter{ln: ln}
	tb.Cleanup(func() { ln.Close(); c.cut() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", strings.TrimPrefix(broker, "tcp://"))
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns = append(c.conns, in, out)
			c.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	return c
}

func (c *cutter) url() string { return "tcp://" + c.ln.Addr().String() }

func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
}

// TestControllerRedelivered: a controller message the monitor got but did
// not acknowledge (its connection cut while the handler ran, as a monitor
// killed after journaling it) comes again from a real Mosquitto, flagged
// Redelivered; a new message is not flagged.
func TestControllerRedelivered(t *testing.T) {
	b := mqtttest.NewMosquitto(t, "")
	b.Start()
	link := newCutter(t, b.URL())
	got := make(chan Message, 10)
	release := make(chan struct{})
	var once sync.Once
	cfg := testConfig(t, link.url(), t.TempDir())
	cfg.Handlers = map[string]func(Message){KindController: func(m Message) {
		got <- m
		once.Do(func() { <-release }) // the first is not acknowledged before the cut
	}}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer p.Close()
	ctl := controllerClient(t, b.URL())
	payout := `{"type":"payout","round":"1842","seat":3,"bet":"21+3","amount":45}`
	sendEvent(t, ctl, "test/t1/controller", payout)
	next := func() Message {
		t.Helper()
		select {
		case m := <-got:
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("no controller message within 5 s")
		}
		return Message{}
	}
	if m := next(); string(m.Payload) != payout || m.Redelivered {
		t.Errorf("first delivery %s, redelivered %v; want %s, not redelivered", m.Payload, m.Redelivered, payout)
	}
	link.cut()
	close(release)
	if m := next(); string(m.Payload) != payout || !m.Redelivered {
		t.Errorf("after the cut: %s, redelivered %v; want %s again, redelivered", m.Payload, m.Redelivered, payout)
	}
	end := `{"type":"game_end","round":"1842"}`
	sendEvent(t, ctl, "test/t1/controller", end)
	if m := next(); string(m.Payload) != end || m.Redelivered {
		t.Errorf("a new message: %s, redelivered %v; want %s, not redelivered", m.Payload, m.Redelivered, end)
	}
}

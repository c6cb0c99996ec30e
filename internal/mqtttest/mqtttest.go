// Package mqtttest runs a real Mosquitto on a free loopback port, and a
// subscriber that collects what arrives, for tests that talk MQTT.
//
// A test that needs a broker is skipped when Mosquitto is not installed
// (scripts/setup installs it; CI always has it).
//
//	b := mqtttest.NewMosquitto(t, "")
//	b.Start()
//	s := mqtttest.Subscribe(t, b.URL(), "watcher", "bjmonitor/#", false)
//	m := s.Next(t, 5*time.Second)
//	b.Stop() // a broker outage; Start again to bring it back
//	b.Kill() // a crash: SIGKILL, nothing saved
package mqtttest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// MosquittoBin is where Debian's mosquitto package installs the broker.
const MosquittoBin = "/usr/sbin/mosquitto"

// Mosquitto is a real broker on a loopback port. The test's cleanup stops
// it.
type Mosquitto struct {
	tb   testing.TB
	Port int
	Dir  string // its temporary folder: config, log, persistence
	conf string
	cmd  *exec.Cmd
	log  *os.File
}

// FreePort asks the kernel for a free loopback port.
func FreePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// NewMosquitto writes a config (a listener on a free port, anonymous
// access, no persistence, unless extra says otherwise) into a temporary
// folder; Start runs it. "persistence true" in extra keeps sessions and
// queued messages across Stop and Start.
func NewMosquitto(tb testing.TB, extra string) *Mosquitto {
	tb.Helper()
	if _, err := os.Stat(MosquittoBin); err != nil {
		tb.Skipf("mosquitto not installed at %s (scripts/setup installs it): %v", MosquittoBin, err)
	}
	b := &Mosquitto{tb: tb, Port: FreePort(tb), Dir: tb.TempDir()}
	b.conf = filepath.Join(b.Dir, "mosquitto.conf")
	text := fmt.Sprintf("listener %d 127.0.0.1\n", b.Port)
	if !strings.Contains(extra, "allow_anonymous") {
		text += "allow_anonymous true\n"
	}
	if !strings.Contains(extra, "persistence ") {
		text += "persistence false\n"
	} else if !strings.Contains(extra, "persistence_location") {
		text += "persistence_location " + b.Dir + "/\n"
	}
	if os.Geteuid() == 0 {
		// Otherwise Mosquitto drops to user "mosquitto", which cannot read
		// the test's private temporary folder.
		text += "user root\n"
	}
	text += extra
	if err := os.WriteFile(b.conf, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	log, err := os.Create(filepath.Join(b.Dir, "mosquitto.log"))
	if err != nil {
		tb.Fatal(err)
	}
	b.log = log
	tb.Cleanup(func() {
		b.Stop()
		log.Close()
	})
	return b
}

// URL is the broker's tcp:// address.
func (b *Mosquitto) URL() string { return fmt.Sprintf("tcp://127.0.0.1:%d", b.Port) }

// Start runs Mosquitto and waits until every listener in its config
// accepts connections: a client that dials a listener Mosquitto has not
// opened yet is refused, and a test would take that for the broker's
// answer.
func (b *Mosquitto) Start() {
	b.tb.Helper()
	ports, err := b.listenerPorts()
	if err != nil {
		b.tb.Fatal(err)
	}
	cmd := exec.Command(MosquittoBin, "-c", b.conf)
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Start(); err != nil {
		b.tb.Fatalf("start mosquitto: %v", err)
	}
	b.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for _, port := range ports {
		for {
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				b.tb.Fatalf("mosquitto did not listen on %d within 10 s; log:\n%s", port, b.Log())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// listenerPorts lists the port of every "listener PORT [ADDRESS]" line in
// the config.
func (b *Mosquitto) listenerPorts() ([]int, error) {
	text, err := os.ReadFile(b.conf)
	if err != nil {
		return nil, err
	}
	var ports []int
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "listener" {
			continue
		}
		port, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s: listener port %q: %v", b.conf, f[1], err)
		}
		ports = append(ports, port)
	}
	return ports, nil
}

// Log is what Mosquitto has logged so far.
func (b *Mosquitto) Log() string {
	text, _ := os.ReadFile(b.log.Name())
	return string(text)
}

// Stop ends Mosquitto with SIGTERM (a persistent broker saves its
// sessions) and waits for it; a no-op when it is not running.
func (b *Mosquitto) Stop() {
	if b.cmd == nil {
		return
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
	b.cmd = nil
}

// Kill ends Mosquitto with SIGKILL, as a crash or a power cut would: it
// saves nothing, and its clients see their connections drop. Start brings
// it back on the same port.
func (b *Mosquitto) Kill() {
	if b.cmd == nil {
		return
	}
	b.cmd.Process.Kill()
	b.cmd.Wait()
	b.cmd = nil
}

// Message is one message a Subscriber received.
type Message struct {
	Topic    string
	Payload  string
	Retained bool
}

// Subscriber is a paho client that collects every message it receives.
type Subscriber struct {
	Client mqtt.Client
	msgs   chan Message
}

// Subscribe connects a subscriber to url under client id and subscribes to
// filter at QoS 1. With a persistent session (clean false) the broker
// queues messages for it while it is away; it reconnects by itself, and
// subscribes again on every reconnection, for a broker restarted without
// persistence.
func Subscribe(tb testing.TB, url, id, filter string, clean bool) *Subscriber {
	tb.Helper()
	s := &Subscriber{msgs: make(chan Message, 10000)}
	handler := func(_ mqtt.Client, m mqtt.Message) {
		s.msgs <- Message{Topic: m.Topic(), Payload: string(m.Payload()), Retained: m.Retained()}
	}
	connects := 0
	opts := mqtt.NewClientOptions().AddBroker(url).SetClientID(id).
		SetCleanSession(clean).
		SetDefaultPublishHandler(handler). // also gets messages queued while away
		SetOnConnectHandler(func(c mqtt.Client) {
			// The first subscription is made below, where its error fails
			// the test; later ones are remade here.
			if connects++; connects > 1 {
				c.Subscribe(filter, 1, handler)
			}
		}).
		SetAutoReconnect(true).
		SetConnectRetry(true).
		SetMaxReconnectInterval(200 * time.Millisecond).
		SetConnectTimeout(2 * time.Second)
	s.Client = mqtt.NewClient(opts)
	if tok := s.Client.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		tb.Fatalf("subscriber connect: %v", tok.Error())
	}
	if tok := s.Client.Subscribe(filter, 1, handler); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		tb.Fatalf("subscribe %s: %v", filter, tok.Error())
	}
	tb.Cleanup(func() { s.Client.Disconnect(100) })
	return s
}

// Next returns the next message, failing the test after d.
func (s *Subscriber) Next(tb testing.TB, d time.Duration) Message {
	tb.Helper()
	select {
	case m := <-s.msgs:
		return m
	case <-time.After(d):
		tb.Fatalf("no message within %v", d)
		return Message{}
	}
}

// Messages returns the messages that arrive until quiet passes with none.
func (s *Subscriber) Messages(quiet time.Duration) []Message {
	var out []Message
	for {
		select {
		case m := <-s.msgs:
			out = append(out, m)
		case <-time.After(quiet):
			return out
		}
	}
}

// C delivers the messages as they arrive.
func (s *Subscriber) C() <-chan Message { return s.msgs }

// Publish sends payload to topic at QoS 1 from a client of its own.
func Publish(tb testing.TB, url, topic string, payloads ...string) {
	tb.Helper()
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("mqtttest-pub-%d", time.Now().UnixNano())))
	if tok := c.Connect(); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
		tb.Fatalf("publisher connect: %v", tok.Error())
	}
	defer c.Disconnect(100)
	for _, p := range payloads {
		if tok := c.Publish(topic, 1, false, p); !tok.WaitTimeout(5*time.Second) || tok.Error() != nil {
			tb.Fatalf("publish %s: %v", topic, tok.Error())
		}
	}
}

// Reachable reports whether a broker at url (tcp://host:port) accepts
// connections now.
func Reachable(url string) bool {
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "tcp://"), 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

package broker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/listeners"
)

// DefaultAddr keeps the embedded broker private to the box; set Addr to
// ":1883" to serve consoles elsewhere in the room.
const DefaultAddr = "127.0.0.1:1883"

// Config says where the embedded broker listens and whom it lets in.
type Config struct {
	// Addr is the TCP listen address, default DefaultAddr. Port 0 picks a
	// free port (tests); URL reports the one bound.
	Addr string

	// Users are the logins, with bcrypt-hashed passwords, each held to its
	// role's topics under TopicPrefix and Table. Empty: anyone may connect
	// and do anything, which Start allows on a loopback address only. The
	// monitor itself logs in as Login says, whatever is configured.
	Users []User
	// TopicPrefix and Table say the topics the roles are bound to:
	// <prefix>/<table>/<kind>. TopicPrefix defaults to "bjmonitor"; Table
	// is required with Users.
	TopicPrefix string
	Table       string

	// CertFile and KeyFile (PEM), when both are set, make the listener speak
	// TLS only (mqtts). Clients must then verify a certificate whose names
	// include the host they dial.
	CertFile string
	KeyFile  string
}

// Broker is a running embedded MQTT broker. The caller must call Close.
type Broker struct {
	srv      *mqtt.Server
	url      string
	password string // the monitor's own login (Login)
	once     sync.Once
}

const listenerID = "mqtt"

// Start listens on cfg.Addr and serves MQTT until Close. ctx bounds the start
// only; the broker runs until Close, so that a publisher closing after ctx
// ends can still mark its table stopped. mochi's own log lines of level warn
// and above go to log (nil: slog.Default()).
func Start(ctx context.Context, cfg Config, log *slog.Logger) (*Broker, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.TopicPrefix == "" {
		cfg.TopicPrefix = "bjmonitor"
	}
	if len(cfg.Users) > 0 && (cfg.Table == "" || strings.ContainsAny(cfg.Table+cfg.TopicPrefix, "+#")) {
		return nil, fmt.Errorf("broker: users need the table id and topic prefix their roles are bound to, without wildcards (table %q, prefix %q)", cfg.Table, cfg.TopicPrefix)
	}
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return nil, fmt.Errorf("broker: TLS certificate %q and key %q must be given together", cfg.CertFile, cfg.KeyFile)
	}
	var tc *tls.Config
	if cfg.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("broker: TLS certificate %q / key %q: %w", cfg.CertFile, cfg.KeyFile, err)
		}
		tc = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}

	mlog := slog.New(warnHandler{log.Handler()}).With("component", "mqtt-broker")
	srv := mqtt.New(&mqtt.Options{
		Logger: mlog,
		// $SYS statistics every minute rather than every second: nobody
		// watches them on a table box, and each costs a wake-up.
		SysTopicResendInterval: 60,
	})
	auth, password, err := newAuthHook(cfg)
	if err != nil {
		return nil, err
	}
	// mochi refuses every client unless an auth hook lets it in.
	if err := srv.AddHook(auth, nil); err != nil {
		return nil, fmt.Errorf("broker: auth hook: %w", err)
	}
	if err := srv.AddHook(&staleWillHook{clients: srv.Clients}, nil); err != nil {
		return nil, fmt.Errorf("broker: will hook: %w", err)
	}
	l := listeners.NewTCP(listeners.Config{ID: listenerID, Address: cfg.Addr, TLSConfig: tc})
	if err := srv.AddListener(l); err != nil {
		return nil, listenError(cfg.Addr, err)
	}
	if len(cfg.Users) == 0 && !loopback(l.Address()) {
		srv.Close()
		return nil, fmt.Errorf("broker: %w: it would let anyone on the network read the alerts and publish the controller's events; configure users (controller, monitor and console roles) or listen on 127.0.0.1", ErrOpenToNetwork)
	}
	if err := srv.Serve(); err != nil {
		srv.Close()
		return nil, fmt.Errorf("broker: serve: %w", err)
	}
	scheme := "tcp"
	if tc != nil {
		scheme = "ssl"
	}
	b := &Broker{srv: srv, url: scheme + "://" + dialable(l.Address()), password: password}
	log.Info("embedded MQTT broker listening", "url", b.url, "addr", l.Address(), "users", len(cfg.Users), "tls", tc != nil)
	return b, nil
}

// ErrOpenToNetwork is wrapped by the error Start returns for a listen
// address beyond loopback with no users configured.
var ErrOpenToNetwork = errors.New("the embedded broker will not listen beyond loopback without users")

// Login is the user name and password the monitor's own publisher logs in
// with: a monitor-role login made at Start, in memory only.
func (b *Broker) Login() (user, password string) { return internalUser, b.password }

// listenError explains the usual cause of a failed listen to whoever
// installs the box.
func listenError(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("broker: cannot listen on %s: the port is already in use, most likely by another MQTT broker (such as Mosquitto) on this box; stop it, or configure the monitor to publish to that broker instead of starting the embedded one: %w", addr, err)
	}
	return fmt.Errorf("broker: cannot listen on %s: %w", addr, err)
}

// dialable turns a bound address into one a local client can dial: an
// unspecified host (":1883", "0.0.0.0", "[::]") becomes 127.0.0.1.
func dialable(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// loopback reports whether a bound address is reachable from this box only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
}

// URL is the broker's address for publish.Config.Broker: tcp://host:port, or
// ssl://host:port with TLS, with the port actually bound.
func (b *Broker) URL() string { return b.url }

// Close disconnects every client, stops listening and waits for the
// broker's connection goroutines to end. Clients see the connection drop
// (their last wills are sent, to no one). It is safe to call more than once.
func (b *Broker) Close() error {
	var err error
	b.once.Do(func() { err = b.srv.Close() })
	return err
}

// staleWillHook drops the last will of a connection that a newer one with
// the same client id has already replaced. mochi sends a will from the old
// connection's goroutine, which may run after the new connection has
// published: the publisher, reconnecting after a blip, would mark its table
// online and then see the stale "offline" will overwrite it, retained. MQTT 5
// likewise sends no will when the session resumes before the will's delay.
type staleWillHook struct {
	mqtt.HookBase
	clients *mqtt.Clients
}

func (h *staleWillHook) ID() string { return "bjmonitor-stale-will" }

func (h *staleWillHook) Provides(b byte) bool { return b == mqtt.OnWill }

func (h *staleWillHook) OnWill(cl *mqtt.Client, will mqtt.Will) (mqtt.Will, error) {
	if cur, ok := h.clients.Get(cl.ID); ok && cur != cl {
		// An empty topic reaches no subscriber, and is not retained.
		return mqtt.Will{}, nil
	}
	return will, nil
}

// warnHandler passes on only records of level warn and above, so that
// mochi's per-connection info lines do not flood the monitor's log, and
// drops the warnings mochi gives for a connection that simply ended.
type warnHandler struct{ h slog.Handler }

func (w warnHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.h.Enabled(ctx, l)
}

func (w warnHandler) Handle(ctx context.Context, r slog.Record) error {
	ordinary := false
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && (errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)) {
			ordinary = true // a client that went away, or our own Close
			return false
		}
		return true
	})
	if ordinary {
		return nil
	}
	if strings.TrimSpace(r.Message) == "" {
		// mochi logs a failed or ended client connection with no message.
		nr := slog.NewRecord(r.Time, r.Level, "client connection ended with an error", r.PC)
		r.Attrs(func(a slog.Attr) bool { nr.AddAttrs(a); return true })
		r = nr
	}
	return w.h.Handle(ctx, r)
}

func (w warnHandler) WithAttrs(as []slog.Attr) slog.Handler { return warnHandler{w.h.WithAttrs(as)} }
func (w warnHandler) WithGroup(g string) slog.Handler       { return warnHandler{w.h.WithGroup(g)} }

package publish

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"sync"
	"syscall"
	"time"
)

// Gap is a time the publisher was not connected to the broker: the
// controller's events published then may never reach the monitor (a broker
// restarted without persistence has forgotten the monitor's session).
type Gap struct {
	From time.Time
	To   time.Time // zero while the broker is still away
	Why  string    // what ended the connection, or why none was made
}

// Link is the state of the broker connection as the frame loop sees it.
type Link struct {
	Connected bool
	// Gaps counts the gaps begun since New (the first, when New could not
	// connect, included), so that a reader can tell that one began and
	// ended since it last looked.
	Gaps int
	// Last is the latest gap, if any.
	Last Gap
}

// takeoverWindow: a broker that closes our connection, takes us back at
// the first attempt and within this time, and still holds our session,
// has most likely handed the session to another client with our client
// id. A broker that restarted refuses at least one attempt.
const takeoverWindow = 10 * time.Second

// linkLog keeps the connection's history and says what happens to it in
// the log: each connect, disconnect with its reason, reconnect, and a
// suspected session takeover. It is safe for concurrent use (paho's
// connection-lost handler and the sender both report to it).
type linkLog struct {
	log    *slog.Logger
	broker string
	client string

	mu          sync.Mutex
	connected   bool
	everUp      bool
	gaps        int
	last        Gap
	recent      []Gap     // the last maxGaps, closed ones; last is the newest
	lostErr     error     // why the connection dropped, from paho's handler
	closedByEOF bool      // the last drop was the broker closing the connection cleanly
	refused     bool      // an attempt failed during this gap: the broker was away
	failWarned  time.Time // when a failed attempt was last logged as a warning
	failLast    string
	takeovers   []time.Time
}

func newLinkLog(log *slog.Logger, broker, client string) *linkLog {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &linkLog{log: log.With("broker", redactURL(broker)), broker: broker, client: client}
}

// maxGaps bounds the gaps remembered: a round lives through far fewer.
const maxGaps = 32

// state is the connection as the frame loop sees it.
func (l *linkLog) state() Link {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Link{Connected: l.connected, Gaps: l.gaps, Last: l.last}
}

// history is the last gaps, oldest first, the one going on (if any) last.
func (l *linkLog) history() []Gap {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]Gap(nil), l.recent...)
	if l.gaps > 0 && l.last.To.IsZero() {
		out = append(out, l.last)
	}
	return out
}

// up records a completed connection: the end of a gap.
func (l *linkLog) up(sessionPresent bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	first := !l.everUp
	l.connected, l.everUp = true, true
	if l.gaps > 0 && l.last.To.IsZero() {
		l.last.To = now
		l.recent = append(l.recent, l.last)
		if len(l.recent) > maxGaps {
			l.recent = l.recent[1:]
		}
	}
	if first && l.gaps == 0 {
		l.log.Info("connected to the broker", "client_id", l.client, "session_present", sessionPresent)
		return
	}
	away := l.last.To.Sub(l.last.From)
	l.log.Info("reconnected to the broker", "away", away.Round(time.Millisecond), "session_present", sessionPresent,
		"client_id", l.client)
	if !sessionPresent && !first {
		l.log.Warn("the broker had forgotten the monitor's session (it restarted without persistence, or expired it): controller events sent while the monitor was away are lost; the rounds they belong to go out for review",
			"away", away.Round(time.Millisecond))
	}
	if l.closedByEOF && !l.refused && sessionPresent && away < takeoverWindow {
		l.takeovers = append(l.takeovers, now)
		l.takeovers = recent(l.takeovers, now, time.Minute)
		level := slog.LevelWarn
		if len(l.takeovers) >= 3 {
			level = slog.LevelError
		}
		l.log.Log(context.Background(), level, "session takeover: the broker closed our connection but kept our session, so another client probably connected with the same client id; give each monitor its own mqtt.client_id",
			"client_id", l.client, "takeovers_last_minute", len(l.takeovers))
	}
	l.closedByEOF, l.lostErr, l.refused = false, nil, false
}

// lost takes the reason paho gives for a dropped connection. paho calls
// its handler on a goroutine of its own, which may run after the sender
// has already reconnected: a reason that arrives while a connection is
// open (stillOpen) belongs to the one before, whose gap is recorded.
func (l *linkLog) lost(err error, stillOpen bool) {
	if stillOpen {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lostErr == nil {
		l.lostErr = err
	}
}

// reasonWait is how long the sender, having found the connection gone,
// waits for paho's handler to say why.
const reasonWait = 100 * time.Millisecond

// down records a lost connection, found by the sender: the start of a
// gap. The sender alone decides, so that a gap is never opened by a late
// handler after it has reconnected.
func (l *linkLog) down() {
	l.mu.Lock()
	if !l.connected {
		l.mu.Unlock()
		return
	}
	for deadline := time.Now().Add(reasonWait); l.lostErr == nil && time.Now().Before(deadline); {
		l.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		l.mu.Lock()
	}
	defer l.mu.Unlock()
	err := l.lostErr
	l.connected = false
	why := "connection lost"
	if err != nil {
		why = err.Error()
	}
	l.closedByEOF = errors.Is(err, io.EOF)
	l.gaps++
	l.last = Gap{From: time.Now(), Why: why}
	msg := "lost the broker connection; reconnecting"
	if l.closedByEOF {
		msg = "the broker closed the connection (it is stopping, or another client connected with our client id); reconnecting"
	}
	l.log.Warn(msg, "err", err, "client_id", l.client)
}

// failed records a connection attempt that did not complete. The first
// failure starts a gap (New could not connect); the attempt is logged as
// a warning when its error is new or a minute has passed since the last
// warning, and at debug level otherwise, so that a broker down for hours
// does not flood the log.
func (l *linkLog) failed(err error, retryIn time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.refused = true
	if !l.everUp && l.gaps == 0 {
		l.gaps++
		l.last = Gap{From: now, Why: err.Error()}
	}
	level := slog.LevelDebug
	if err.Error() != l.failLast || now.Sub(l.failWarned) >= time.Minute {
		level, l.failWarned, l.failLast = slog.LevelWarn, now, err.Error()
	}
	var since time.Duration
	if l.gaps > 0 {
		since = now.Sub(l.last.From).Round(time.Second)
	}
	l.log.Log(context.Background(), level, "cannot connect to the broker; retrying", "err", err, "retry_in", retryIn, "away", since)
}

func recent(ts []time.Time, now time.Time, d time.Duration) []time.Time {
	i := 0
	for i < len(ts) && now.Sub(ts[i]) > d {
		i++
	}
	return ts[i:]
}

// redactURL hides a password written into the broker URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}

// speaksTLS reports whether addr answers a TLS handshake, within d. It
// tells a tcp:// URL pointed at a TLS port (the broker hangs up on a
// plain CONNECT, or waits for a TLS record that never comes) from a
// broker that is down or not MQTT.
func speaksTLS(addr string, d time.Duration) bool {
	conn, err := net.DialTimeout("tcp", addr, d)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(d))
	tc := tls.Client(conn, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}) //nolint:gosec // only asks whether the port speaks TLS
	err = tc.Handshake()
	// A broker that refuses us without a client certificate still
	// answered in TLS: its refusal is a TLS alert.
	var op *net.OpError
	return err == nil || errors.As(err, &op) && op.Op == "remote error"
}

// noAnswer reports whether a failed connect reached a listener that did not
// answer CONNECT: it hung up, reset, or stayed silent until the deadline.
func noAnswer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, os.ErrDeadlineExceeded)
}

// connectError explains a connect that reached a listener which did not
// answer CONNECT, and returns nil for other failures. A plain tcp:// URL
// aimed at a TLS port wraps ErrTLS, since retrying cannot fix it; a
// listener that hung up or stayed silent is said plainly, and retried.
func (p *Publisher) connectError(err error) error {
	u, perr := url.Parse(p.cfg.Broker)
	if perr != nil || isTLSScheme(u.Scheme) || !noAnswer(err) {
		return nil
	}
	// A TLS listener hangs up on a plain CONNECT at once (its first byte is
	// no TLS record type), so only a hang-up is worth the probe.
	silent := errors.Is(err, os.ErrDeadlineExceeded)
	if !silent && speaksTLS(u.Host, p.cfg.ConnectTimeout) {
		return fmt.Errorf("publish: connect to %s: %w: the broker speaks TLS on this port, but the URL says plain MQTT; use ssl://%s (with the CA file that signed the broker's certificate), or the broker's plain port (often 1883): %v",
			p.cfg.Broker, ErrTLS, u.Host, err)
	}
	if silent {
		return fmt.Errorf("publish: connect to %s: no answer to CONNECT within %v: the port takes connections but does not answer MQTT (is it the broker's port?): %w", p.cfg.Broker, p.cfg.ConnectTimeout, err)
	}
	return fmt.Errorf("publish: connect to %s: the broker closed the connection without answering CONNECT (not an MQTT port, or it refuses this client: see its log): %w", p.cfg.Broker, err)
}

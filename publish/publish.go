package publish

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"

	"bjmonitor/internal/backoff"
)

// Kinds of message, each published on <prefix>/<table>/<kind>.
const (
	KindRound   = "round"
	KindOutcome = "outcome"
	KindAlert   = "alert"
	KindStats   = "stats"
	// KindEvidence carries an alert's snapshot or clip (package
	// evidence/ship). It goes by PublishDirect, never through the outbox:
	// the files are on disk already, and a file of megabytes must not
	// hold up, or crowd out of a full disk, the alerts queued behind it.
	KindEvidence = "evidence"

	// KindController is the table controller's event stream, which the
	// monitor receives (see Config.Handlers) rather than publishes.
	KindController = "controller"
)

// Payloads of the retained <prefix>/<table>/available topic.
const (
	AvailableOnline  = "online"
	AvailableStopped = "stopped"
	AvailableOffline = "offline" // the last will: the broker sends it when the box vanishes
)

// DefaultBackoff is the reconnect schedule; the last step repeats. The
// monitor must be back within a second of the broker's return: a broker
// restarted without persistence has forgotten the monitor's subscription,
// and every controller event published before the monitor subscribes
// again is lost. One connection attempt a second (a refused TCP connect,
// or one that waits out ConnectTimeout) costs a broker nothing.
var DefaultBackoff = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}

// ErrAuth is wrapped by the error New returns when the broker refuses the
// credentials (CONNACK "bad user name or password" or "not authorised").
var ErrAuth = errors.New("broker refused authentication")

// ErrTLS is wrapped by the error New returns when the TLS handshake fails for
// a reason that retrying will not fix: the broker's certificate does not
// verify (unknown CA, another host name, expired), the broker does not speak
// TLS on that port, or the broker rejects our client certificate or its
// absence. The message says which, and names the broker and the files.
var ErrTLS = errors.New("TLS handshake with the broker failed")

// ErrSubscribe is wrapped by the error New returns when the broker refuses a
// subscription asked for in Config.Handlers (usually its ACL).
var ErrSubscribe = errors.New("broker refused the subscription")

// Message is one message a Config.Handlers function receives.
type Message struct {
	Payload []byte
	// Redelivered: the broker sent this message before on this session
	// and had no acknowledgement (MQTT's DUP flag): the monitor may have
	// taken it already, and been killed, or lost the connection, before
	// acknowledging it. A message flagged so may equally be one the
	// monitor never got.
	Redelivered bool
}

// Config says where and how to publish. The zero value is not usable: set at
// least Broker, ClientID, Table and OutboxDir.
type Config struct {
	Broker   string // tcp://host:port or ssl://host:port
	ClientID string // fixed, so that the broker keeps our session across reconnects
	Username string
	Password string

	CAFile             string // PEM bundle to verify the broker; empty: system roots
	CertFile           string // client certificate (PEM), with KeyFile
	KeyFile            string
	InsecureSkipVerify bool // testing only: accepts any broker certificate

	TopicPrefix string // default "bjmonitor"; replays use their own so they never page an officer
	Table       string
	OutboxDir   string // where pending.jsonl and acked live; one directory per publisher

	// Handlers receive what other systems publish for this table: each key
	// is a kind (KindController), and its function gets every message on
	// <prefix>/<table>/<kind>, subscribed at QoS 1. Note that the
	// prefix is TopicPrefix, so a replay's publisher does not hear the live
	// controller.
	//
	// They are set here rather than added later because the session is
	// persistent: the broker queues messages at QoS 1 while the monitor is
	// away and delivers them as soon as it connects, inside New, and they
	// must find their handler there. The subscriptions are made again after
	// every (re)connect, since a restarted broker without persistence has
	// forgotten them.
	//
	// A function is called from paho's goroutine, one message at a time in
	// arrival order, and the message is acknowledged only when it returns
	// (so a crash inside it means the broker delivers it again). It must
	// not block: while it runs, paho reads nothing more from this
	// connection, not even the broker's acknowledgements of our alerts.
	// Hand the payload to a buffered channel and return; the payload is the
	// function's to keep.
	Handlers map[string]func(Message)

	// OnSent, when set, is called with each round, outcome and alert record
	// once the broker has acknowledged it (not when it is queued), from the
	// sender's goroutine; it must return quickly. Metrics of what was sent
	// are counted there.
	OnSent func(kind string, payload []byte)

	// Log receives what happens to the connection: each connect,
	// disconnect with its reason, reconnect, suspected session takeover,
	// and failed attempts (a warning when the error is new, then at most
	// once a minute). nil logs nothing.
	Log *slog.Logger

	ConnectTimeout time.Duration   // default 5 s, per connection attempt
	AckTimeout     time.Duration   // default 10 s: after this, a message still unacknowledged on a live connection is sent again
	Backoff        []time.Duration // default DefaultBackoff
}

func (c *Config) withDefaults() Config {
	d := *c
	if d.TopicPrefix == "" {
		d.TopicPrefix = "bjmonitor"
	}
	if d.ConnectTimeout <= 0 {
		d.ConnectTimeout = 5 * time.Second
	}
	if d.AckTimeout <= 0 {
		d.AckTimeout = 10 * time.Second
	}
	if len(d.Backoff) == 0 {
		d.Backoff = DefaultBackoff
	}
	return d
}

// Validate reports the first missing or malformed field by name.
func (c *Config) Validate() error {
	if c.Broker == "" {
		return errors.New("publish: config: broker is empty")
	}
	u, err := url.Parse(c.Broker)
	if err != nil || u.Host == "" {
		return fmt.Errorf("publish: config: broker %q is not a URL like tcp://host:1883", c.Broker)
	}
	switch u.Scheme {
	case "tcp", "ssl", "tls", "mqtt", "mqtts":
	default:
		return fmt.Errorf("publish: config: broker %q: scheme %q is not tcp or ssl", c.Broker, u.Scheme)
	}
	if c.ClientID == "" {
		return errors.New("publish: config: client id is empty (it must be fixed for a persistent session)")
	}
	if c.Table == "" {
		return errors.New("publish: config: table is empty")
	}
	if c.OutboxDir == "" {
		return errors.New("publish: config: outbox directory is empty")
	}
	for kind, fn := range c.Handlers {
		if kind == "" || strings.ContainsAny(kind, "/+#") || validKind(kind) || kind == "available" {
			return fmt.Errorf("publish: config: handler kind %q must be one topic level and not one we publish", kind)
		}
		if fn == nil {
			return fmt.Errorf("publish: config: handler for %q is nil", kind)
		}
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return fmt.Errorf("publish: config: client cert %q and key %q must be given together", c.CertFile, c.KeyFile)
	}
	return nil
}

func (c *Config) tlsConfig() (*tls.Config, error) {
	if c.CAFile == "" && c.CertFile == "" && !c.InsecureSkipVerify {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.InsecureSkipVerify} //nolint:gosec // opt-in, for test brokers
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("publish: TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("publish: TLS CA file %q holds no PEM certificate", c.CAFile)
		}
		tc.RootCAs = pool
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("publish: TLS client certificate %q / key %q: %w", c.CertFile, c.KeyFile, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// Publisher sends monitor results to an MQTT broker. Round, outcome and
// alert messages go through a durable on-disk outbox and are removed from it
// only when the broker acknowledges them, so none is lost to a broker outage
// or a restart; stats are best effort (QoS 0, dropped and counted when
// offline). The caller must call Close.
type Publisher struct {
	cfg    Config
	client mqtt.Client
	box    *outbox

	wake   chan struct{} // buffered 1: a new record or a lost connection
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	link *linkLog

	statsMu      sync.Mutex
	statsHeld    [][]byte // stats published while the broker was away, oldest first
	statsDropped atomic.Int64
}

// maxHeldStats bounds the stats kept while the broker is away: an hour of
// them at the default 10 s interval. Beyond it the oldest go, counted.
const maxHeldStats = 360

// New opens the outbox in cfg.OutboxDir and connects to the broker. If the
// broker cannot be reached, New still succeeds and keeps retrying in the
// background (the box must start while the network is down). What a retry
// cannot fix makes New fail: unreadable TLS files, a broker that refuses the
// credentials (ErrAuth), a TLS handshake that fails on certificates (ErrTLS),
// or a refused subscription (ErrSubscribe).
func New(cfg Config) (*Publisher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	tc, err := cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	box, err := openOutbox(cfg.OutboxDir, cfg.Log)
	if err != nil {
		return nil, err
	}
	cfg.Handlers = maps.Clone(cfg.Handlers) // the caller may reuse its map
	p := &Publisher{cfg: cfg, box: box, wake: make(chan struct{}, 1), link: newLinkLog(cfg.Log, cfg.Broker, cfg.ClientID)}

	opts := mqtt.NewClientOptions().
		AddBroker(cfg.Broker).
		SetClientID(cfg.ClientID).
		SetUsername(cfg.Username).
		SetPassword(cfg.Password).
		SetCleanSession(false).
		SetConnectTimeout(cfg.ConnectTimeout).
		// MQTT 3.1.1 only: paho would otherwise try 3.1 after every failed
		// attempt, doubling the time a dead broker takes to report.
		SetProtocolVersion(4).
		SetWill(p.topic("available"), AvailableOffline, 1, true).
		// We reconnect ourselves, on the schedule in cfg.Backoff, so that the
		// sender knows when a connection is new and can resend the outbox head.
		SetAutoReconnect(false).
		SetConnectRetry(false).
		SetConnectionLostHandler(func(c mqtt.Client, err error) {
			p.link.lost(err, c.IsConnectionOpen())
			p.poke()
		}).
		// Messages on a topic we no longer handle (a subscription the broker
		// kept in our session from an earlier configuration) are
		// acknowledged and ignored; without a handler paho would never
		// acknowledge them, and the broker would resend them for ever.
		SetDefaultPublishHandler(func(mqtt.Client, mqtt.Message) {})
	if u, _ := url.Parse(cfg.Broker); isTLSScheme(u.Scheme) {
		if tc == nil {
			tc = &tls.Config{MinVersion: tls.VersionTLS12} // system roots
		}
		opts.SetCustomOpenConnectionFn(dialTLS(tc))
	} else if tc != nil {
		opts.SetTLSConfig(tc)
	}
	p.client = mqtt.NewClient(opts)
	for kind, fn := range cfg.Handlers {
		// Routes, unlike subscriptions, live in the client and survive
		// reconnects; they are in place before the first CONNECT so that
		// messages queued in the session find them.
		p.client.AddRoute(p.topic(kind), func(_ mqtt.Client, m mqtt.Message) {
			fn(Message{Payload: m.Payload(), Redelivered: m.Duplicate()})
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	if err := p.connect(ctx, true); err != nil {
		if errors.Is(err, ErrAuth) || errors.Is(err, ErrTLS) || errors.Is(err, ErrSubscribe) {
			cancel()
			p.client.Disconnect(250) // connected when a subscription was refused; cleanly, so no will
			box.close()
			return nil, err
		}
		if !p.client.IsConnectionOpen() {
			p.link.failed(err, backoff.Schedule(cfg.Backoff).Delay(0))
		}
	}
	p.wg.Add(1)
	go p.run(ctx)
	return p, nil
}

func (p *Publisher) topic(kind string) string {
	return p.cfg.TopicPrefix + "/" + p.cfg.Table + "/" + kind
}

func validKind(k string) bool {
	switch k {
	case KindRound, KindOutcome, KindAlert, KindStats:
		return true
	}
	return false
}

// poke wakes the sender without blocking; one pending wake is enough.
func (p *Publisher) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Publish queues payload for <prefix>/<table>/<kind>. For round, outcome and
// alert it returns once the message is fsync'd to the outbox, whether or not
// the broker is up; the background sender delivers it in order. Stats are
// sent at QoS 0 without waiting; while the broker is away they are kept in
// memory (the last maxHeldStats; older ones are dropped and counted, see
// StatsDropped) and sent once it is back, so the outage shows in them.
func (p *Publisher) Publish(ctx context.Context, kind string, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !validKind(kind) {
		return fmt.Errorf("publish: unknown kind %q (want round, outcome, alert or stats)", kind)
	}
	if kind == KindStats {
		p.publishStats(payload)
		return nil
	}
	if err := p.box.append(kind, payload); err != nil {
		return err
	}
	p.poke()
	return nil
}

// PublishDirect sends payload on <prefix>/<table>/<kind> at QoS 1, outside
// the outbox, and waits for the broker's acknowledgement: an error means
// the broker does not have it (not connected, no acknowledgement within
// timeout), and the caller may try again. For evidence files, which stay
// on disk meanwhile.
func (p *Publisher) PublishDirect(ctx context.Context, kind string, payload []byte, timeout time.Duration) error {
	if kind != KindEvidence {
		return fmt.Errorf("publish: %q goes through the outbox (Publish), not PublishDirect", kind)
	}
	if !p.client.IsConnectionOpen() {
		return errors.New("publish: not connected to the broker")
	}
	tok := p.client.Publish(p.topic(kind), 1, false, payload)
	select {
	case <-tok.Done():
		return tok.Error()
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(timeout):
		return fmt.Errorf("publish: no acknowledgement within %v", timeout)
	}
}

// OutboxDepth is the number of messages not yet acknowledged by the broker.
func (p *Publisher) OutboxDepth() int { return p.box.depth() }

// OutboxHeld is the number of messages that wait in memory because the
// disk refused them; they are sent all the same, and written as soon as
// the disk takes them.
func (p *Publisher) OutboxHeld() int { return p.box.heldRecords() }

// OutboxCorrupt is the number of unreadable outbox lines skipped at start.
func (p *Publisher) OutboxCorrupt() int { return p.box.corruptLines() }

// Connected reports whether the broker connection is up now.
func (p *Publisher) Connected() bool { return p.client.IsConnectionOpen() }

// StatsDropped counts stats messages dropped because the broker was away
// longer than maxHeldStats of them cover.
func (p *Publisher) StatsDropped() int64 { return p.statsDropped.Load() }

// Link reports the broker connection and its gaps.
func (p *Publisher) Link() Link { return p.link.state() }

// Gaps returns the last gaps in the connection, oldest first; one still
// going on, with a zero To, comes last.
func (p *Publisher) Gaps() []Gap { return p.link.history() }

// publishStats sends a stats payload now, or keeps it for the next
// connection; the held ones go first, so stats arrive in order. A nil
// payload only sends those held.
func (p *Publisher) publishStats(payload []byte) {
	p.statsMu.Lock()
	defer p.statsMu.Unlock()
	if payload != nil {
		p.statsHeld = append(p.statsHeld, payload)
	}
	if n := len(p.statsHeld) - maxHeldStats; n > 0 {
		p.statsHeld = p.statsHeld[n:]
		p.statsDropped.Add(int64(n))
	}
	if !p.client.IsConnectionOpen() {
		return
	}
	for _, b := range p.statsHeld {
		p.client.Publish(p.topic(KindStats), 0, false, b)
	}
	p.statsHeld = nil
}

// connect makes one connection attempt and, on success, subscribes to the
// handled topics and marks the table online. It wraps ErrAuth when the
// broker refuses the credentials, ErrTLS when the certificates do not
// match, and ErrSubscribe when a subscription is refused. A refused
// subscription on the first connection (from New) returns before the table
// is marked online, since New then fails; on a reconnect the table is
// marked online anyway, as its alerts can still go out.
func (p *Publisher) connect(ctx context.Context, first bool) error {
	tok := p.client.Connect()
	select {
	case <-tok.Done():
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(p.cfg.ConnectTimeout + time.Second):
		return fmt.Errorf("publish: connect to %s: timed out after %v", p.cfg.Broker, p.cfg.ConnectTimeout)
	}
	ct, _ := tok.(*mqtt.ConnectToken)
	if err := tok.Error(); err != nil {
		if ct != nil {
			switch ct.ReturnCode() {
			case packets.ErrRefusedBadUsernameOrPassword, packets.ErrRefusedNotAuthorised:
				return fmt.Errorf("publish: connect to %s as %q: %w: %v", p.cfg.Broker, p.cfg.Username, ErrAuth, err)
			}
		}
		if why := p.tlsProblem(err); why != "" {
			return fmt.Errorf("publish: connect to %s: %w: %s: %v", p.cfg.Broker, ErrTLS, why, err)
		}
		if cerr := p.connectError(err); cerr != nil {
			return cerr
		}
		return fmt.Errorf("publish: connect to %s: %w", p.cfg.Broker, err)
	}
	p.link.up(ct != nil && ct.SessionPresent())
	subErr := p.subscribe()
	if first && errors.Is(subErr, ErrSubscribe) {
		return subErr
	}
	// Retained, so a console that subscribes later still sees the state.
	tok = p.client.Publish(p.topic("available"), 1, true, AvailableOnline)
	if !tok.WaitTimeout(p.cfg.AckTimeout) || tok.Error() != nil {
		return errors.Join(subErr, fmt.Errorf("publish: mark %s online: %v", p.cfg.Table, tok.Error()))
	}
	p.publishStats(nil)
	return subErr
}

// subscribe (re)makes the subscriptions for cfg.Handlers on a fresh
// connection. A persistent session would normally keep them, but a broker
// restarted without persistence, or an embedded one, has forgotten them.
func (p *Publisher) subscribe() error {
	if len(p.cfg.Handlers) == 0 {
		return nil
	}
	filters := make(map[string]byte, len(p.cfg.Handlers))
	for kind := range p.cfg.Handlers {
		filters[p.topic(kind)] = 1
	}
	var refused string
	// A refusal is retried a few times: mochi (the embedded broker) shares
	// packet ids between directions and refuses a SUBSCRIBE whose id is one
	// of the messages it is still delivering to us from our session; once
	// we acknowledge those, the same SUBSCRIBE succeeds.
	for try := range 5 {
		if try > 0 {
			time.Sleep(time.Duration(try) * 100 * time.Millisecond)
		}
		// nil callback: the routes were added once, in New.
		tok := p.client.SubscribeMultiple(filters, nil)
		if !tok.WaitTimeout(p.cfg.AckTimeout) {
			return fmt.Errorf("publish: subscribe on %s: no acknowledgement within %v", p.cfg.Broker, p.cfg.AckTimeout)
		}
		if err := tok.Error(); err != nil {
			return fmt.Errorf("publish: subscribe on %s: %w", p.cfg.Broker, err)
		}
		refused = ""
		if st, ok := tok.(*mqtt.SubscribeToken); ok {
			for topic, code := range st.Result() {
				if code >= 0x80 { // SUBACK failure (MQTT 3.1.1 section 3.9.3)
					refused = topic
				}
			}
		}
		if refused == "" {
			return nil
		}
	}
	return fmt.Errorf("publish: subscribe to %s on %s as %q: %w (check the broker's ACL for this user)", refused, p.cfg.Broker, p.cfg.Username, ErrSubscribe)
}

// run connects, drains the outbox, and waits for more, until ctx ends.
func (p *Publisher) run(ctx context.Context) {
	defer p.wg.Done()
	attempt := 0
	var inflight mqtt.Token // publish token of the outbox head, kept across reconnects
	var inflightSeq uint64
	for {
		p.box.retry() // records the disk refused, while the broker is away too
		if !p.client.IsConnectionOpen() {
			p.link.down()
			if err := p.connect(ctx, false); err != nil {
				if ctx.Err() != nil {
					return
				}
				d := backoff.Schedule(p.cfg.Backoff).Delay(attempt)
				if !p.client.IsConnectionOpen() {
					p.link.failed(err, d)
				}
				attempt++
				if !backoff.Sleep(ctx, d) {
					return
				}
				continue
			}
			attempt = 0
		}
		// Drain in order: one message at a time, the next only after the
		// broker acknowledged the previous one.
		for p.client.IsConnectionOpen() {
			rec, ok := p.box.head()
			if !ok {
				break
			}
			if inflight == nil || inflightSeq != rec.seq {
				inflight, inflightSeq = p.client.Publish(p.topic(rec.kind), 1, false, rec.payload), rec.seq
			}
			t := time.NewTimer(p.cfg.AckTimeout)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-inflight.Done():
				t.Stop()
				failed := inflight.Error() != nil
				inflight = nil
				if !failed && p.box.ack(rec.seq) == nil {
					if p.cfg.OnSent != nil {
						p.cfg.OnSent(rec.kind, rec.payload)
					}
					continue
				}
				// Not sent, or the disk failed to record the ack: the record
				// stays at the head. Pause so a persistent error does not spin.
				if !backoff.Sleep(ctx, 100*time.Millisecond) {
					return
				}
			case <-p.wake:
				t.Stop() // connection lost, or more queued: look again
			case <-t.C:
				// Acknowledgement overdue on a live connection: send again.
				// Consumers de-duplicate by id.
				inflight = nil
			}
		}
		if !p.client.IsConnectionOpen() {
			continue
		}
		if !p.idle(ctx) {
			return
		}
	}
}

// idle waits for more to send, retrying every second to write the records
// that wait in memory for the disk. It reports whether to carry on.
func (p *Publisher) idle(ctx context.Context) bool {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for {
		var retry <-chan time.Time
		if p.box.heldRecords() > 0 {
			t.Reset(time.Second)
			retry = t.C
		}
		select {
		case <-ctx.Done():
			return false
		case <-p.wake:
			return true
		case <-retry:
			p.box.retry()
		}
	}
}

// Close stops the sender, marks the table stopped (retained) and disconnects
// cleanly, so the broker does not send the offline will. Unacknowledged
// messages stay in the outbox for the next New on the same directory.
func (p *Publisher) Close() error {
	var err error
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
		if p.client.IsConnectionOpen() {
			tok := p.client.Publish(p.topic("available"), 1, true, AvailableStopped)
			if !tok.WaitTimeout(2 * time.Second) {
				err = errors.New("publish: marking stopped: no acknowledgement")
			} else {
				err = tok.Error()
			}
		}
		p.client.Disconnect(250)
		err = errors.Join(err, p.box.close())
	})
	return err
}

package ingest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"bjmonitor/console/store"
)

// Sink stores what the console receives. The Add methods report whether
// the record was new (false: a duplicate, already stored).
type Sink interface {
	AddAlert(ctx context.Context, a store.Alert) (bool, error)
	AddRound(ctx context.Context, r store.Round) (bool, error)
	AddOutcome(ctx context.Context, o store.Outcome) (bool, error)
	AddEvidence(ctx context.Context, e store.Evidence) (bool, error)
	SetAvailability(ctx context.Context, table, state string, at time.Time) error
	SetStats(ctx context.Context, st store.Stats) error
}

var _ Sink = (*store.Store)(nil)

// Roster keeps the instances of a shared group that are running, so that
// one stopping knows whether another carries on.
type Roster interface {
	// Heartbeat records that instance id of group is running and
	// subscribed, as of at.
	Heartbeat(ctx context.Context, group, id string, at time.Time) error
	// Leave removes id from group and returns how many others were heard
	// from after since; of instances leaving together, one finds itself
	// the last.
	Leave(ctx context.Context, group, id string, since time.Time) (others int, err error)
}

var _ Roster = (*store.Store)(nil)

// Config is where the console takes the tables' messages from.
type Config struct {
	// Broker is tcp://host:1883 or ssl://host:8883.
	Broker string
	// ClientID is fixed, so the broker keeps the console's session (and
	// the messages that arrive while it is away).
	ClientID           string
	Username, Password string
	// CAFile, CertFile and KeyFile set up TLS for an ssl:// broker.
	CAFile, CertFile, KeyFile string
	// TopicPrefix is the tables' prefix (mqtt.topic_prefix).
	TopicPrefix string
	// SharedGroup, when set, shares records with the other consoles of
	// the group ($share/<group>/…).
	SharedGroup string
	// Roster, with SharedGroup, lets an instance that stops hand its share
	// over to the others (see Run); nil: it keeps its share.
	Roster Roster
	// Tables, when given, are the tables the console watches; messages of
	// any other are counted (unknown_table) and skipped. Empty: every
	// table under the prefix.
	Tables []string
	// Logger logs what is skipped, and the connection; nil discards.
	Logger *slog.Logger
	// Now is the clock records are stored under; nil is time.Now.
	Now func() time.Time
	// OnAlert, when set, is called with each new alert once stored.
	OnAlert func(store.Alert)
}

// Results of a message, the keys of Counts.
const (
	Stored       = "stored"
	Duplicate    = "duplicate"
	Malformed    = "malformed"
	UnknownTable = "unknown_table"
	StoreError   = "store_error"
)

// Ingester stores the tables' messages. Run connects it to the broker;
// Handle is the same work for one message, without one.
type Ingester struct {
	cfg    Config
	sink   Sink
	log    *slog.Logger
	tables map[string]bool

	mu     sync.Mutex
	counts map[string]int64

	// subscribed is set once the broker has accepted the subscriptions;
	// leaving once Run has begun to stop, so that a reconnection then
	// neither subscribes again nor reports the instance alive.
	subscribed, leaving atomic.Bool
	// handling counts the messages being stored; lastDone is when the
	// latest one was handed over (UnixNano). A hand-over drains by them.
	handling atomic.Int64
	lastDone atomic.Int64
}

// New returns an Ingester storing into sink.
func New(cfg Config, sink Sink) *Ingester {
	in := &Ingester{cfg: cfg, sink: sink, log: cfg.Logger, counts: map[string]int64{}}
	if in.log == nil {
		in.log = slog.New(slog.DiscardHandler)
	}
	if in.cfg.Now == nil {
		in.cfg.Now = time.Now
	}
	if len(cfg.Tables) > 0 {
		in.tables = map[string]bool{}
		for _, t := range cfg.Tables {
			in.tables[t] = true
		}
	}
	return in
}

// Counts returns how many messages came to each result so far (Stored,
// Duplicate, Malformed, UnknownTable, StoreError).
func (in *Ingester) Counts() map[string]int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make(map[string]int64, len(in.counts))
	for k, v := range in.counts {
		out[k] = v
	}
	return out
}

func (in *Ingester) count(result string) {
	in.mu.Lock()
	in.counts[result]++
	in.mu.Unlock()
}

// Handle parses and stores one message and returns its result. A store
// error is returned, and the message must be offered again; anything
// wrong with the message itself is logged and counted, and returns nil.
func (in *Ingester) Handle(ctx context.Context, topic string, payload []byte) (string, error) {
	m, err := Parse(in.cfg.TopicPrefix, topic, payload, in.cfg.Now())
	switch {
	case err != nil:
		in.log.Warn("console: malformed message skipped", "topic", topic, "bytes", len(payload), "err", err)
		in.count(Malformed)
		return Malformed, nil
	case in.tables != nil && !in.tables[m.Table]:
		in.log.Warn("console: message for a table not watched skipped (console.tables)", "topic", topic, "table", m.Table)
		in.count(UnknownTable)
		return UnknownTable, nil
	}
	isNew, err := in.store(ctx, m)
	if err != nil {
		in.count(StoreError)
		return StoreError, fmt.Errorf("storing %s: %w", topic, err)
	}
	if !isNew {
		in.count(Duplicate)
		return Duplicate, nil
	}
	in.count(Stored)
	if m.Kind == KindAlert && in.cfg.OnAlert != nil {
		in.cfg.OnAlert(m.Alert)
	}
	return Stored, nil
}

// store stores m and reports whether it was new; a table's state is
// always new.
func (in *Ingester) store(ctx context.Context, m Message) (bool, error) {
	switch m.Kind {
	case KindAvailable:
		return true, in.sink.SetAvailability(ctx, m.Table, m.Availability, in.cfg.Now())
	case KindStats:
		return true, in.sink.SetStats(ctx, m.Stats)
	case KindRound:
		return in.sink.AddRound(ctx, m.Round)
	case KindOutcome:
		return in.sink.AddOutcome(ctx, m.Outcome)
	case KindAlert:
		return in.sink.AddAlert(ctx, m.Alert)
	case KindEvidence:
		return in.sink.AddEvidence(ctx, m.Evidence)
	}
	return false, fmt.Errorf("no store for kind %q", m.Kind)
}

// Filters are the subscriptions the console makes, with the QoS of each.
func (in *Ingester) Filters() map[string]byte {
	out := map[string]byte{}
	for _, k := range Kinds {
		f := in.cfg.TopicPrefix + "/+/" + k
		if in.cfg.SharedGroup != "" && k != KindAvailable && k != KindStats {
			f = "$share/" + in.cfg.SharedGroup + "/" + f
		}
		out[f] = 1
	}
	return out
}

// retry is how long Handle waits before storing a message again after a
// store error (a database that went away): 1 s, 5 s, 10 s, then every 30 s.
var retry = []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second}

// Heartbeats and hand-over: an instance of a shared group tells the
// Roster it is alive every heartbeatEvery; one not heard from for
// heartbeatFresh counts as gone. Handing over, it waits for its session's
// last messages until none came for drainQuiet, at most drainMax.
const (
	heartbeatEvery = 10 * time.Second
	heartbeatFresh = 3 * heartbeatEvery
	drainQuiet     = time.Second
	drainMax       = 30 * time.Second
)

// Run connects to the broker, subscribes, and stores every message until
// ctx ends. It returns an error only for a TLS setting it cannot use; an
// unreachable broker, or one that refuses the console, is retried (and
// logged) until ctx ends.
//
// An instance of a shared group keeps its subscription when it stops, so
// that the broker keeps its share of the messages until it is back. With a
// Roster, an instance that stops while another of its group runs hands
// its share over instead: it unsubscribes, stores what the broker had
// already queued for it, and only then disconnects; the last one to stop
// keeps its subscription, so nothing published while the whole group is
// down is lost.
func (in *Ingester) Run(ctx context.Context) error {
	// Storing goes on past ctx while a hand-over drains the session.
	hctx, stopHandling := context.WithCancel(context.WithoutCancel(ctx))
	defer stopHandling()
	opts, err := in.options(hctx)
	if err != nil {
		return err
	}
	client := mqtt.NewClient(opts)
	tok := client.Connect()
	select {
	case <-tok.Done():
	case <-ctx.Done():
	}
	if err := tok.Error(); err != nil && !errors.Is(err, context.Canceled) {
		client.Disconnect(0)
		return fmt.Errorf("console: broker %s: %w", in.cfg.Broker, err)
	}
	if in.roster() != nil {
		in.heartbeats(ctx)
	} else {
		<-ctx.Done()
	}
	if in.handOver(client) {
		in.drain()
	}
	stopHandling()
	client.Disconnect(500)
	return nil
}

// roster is the Roster when this instance is one of a shared group.
func (in *Ingester) roster() Roster {
	if in.cfg.SharedGroup == "" {
		return nil
	}
	return in.cfg.Roster
}

// heartbeats tells the roster this instance is alive, once subscribed,
// until ctx ends.
func (in *Ingester) heartbeats(ctx context.Context) {
	tick := time.NewTicker(heartbeatEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			in.heartbeat(ctx)
		}
	}
}

func (in *Ingester) heartbeat(ctx context.Context) {
	r := in.roster()
	if r == nil || !in.subscribed.Load() || in.leaving.Load() {
		return
	}
	if err := r.Heartbeat(ctx, in.cfg.SharedGroup, in.cfg.ClientID, time.Now()); err != nil && ctx.Err() == nil {
		in.log.Warn("console: cannot record this instance as alive", "group", in.cfg.SharedGroup, "err", err)
	}
}

// handOver leaves the shared group and, when another instance carries
// on, unsubscribes, so that the broker sends the others what it would
// have kept for this one. It reports whether it unsubscribed.
func (in *Ingester) handOver(client mqtt.Client) bool {
	in.leaving.Store(true)
	r := in.roster()
	if r == nil || !in.subscribed.Load() {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	others, err := r.Leave(ctx, in.cfg.SharedGroup, in.cfg.ClientID, time.Now().Add(-heartbeatFresh))
	if err != nil {
		in.log.Warn("console: cannot tell whether another instance carries on; the broker keeps this one's share until it is back",
			"group", in.cfg.SharedGroup, "err", err)
		return false
	}
	if others == 0 {
		in.log.Info("console: last instance of the group to stop; the broker keeps what arrives until one is back", "group", in.cfg.SharedGroup)
		return false
	}
	var filters []string
	for f := range in.Filters() {
		filters = append(filters, f)
	}
	tok := client.Unsubscribe(filters...)
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		in.log.Warn("console: cannot hand over to the group; the broker keeps this instance's share until it is back",
			"group", in.cfg.SharedGroup, "err", tok.Error())
		return false
	}
	in.log.Info("console: stopping; the group's other instances take its share", "group", in.cfg.SharedGroup, "others", others)
	return true
}

// drain stores what the broker had queued for this instance before it
// unsubscribed: it returns once no message came for drainQuiet, or after
// drainMax.
func (in *Ingester) drain() {
	in.lastDone.Store(time.Now().UnixNano())
	deadline := time.Now().Add(drainMax)
	for time.Now().Before(deadline) {
		quiet := time.Since(time.Unix(0, in.lastDone.Load()))
		if in.handling.Load() == 0 && quiet >= drainQuiet {
			return
		}
		time.Sleep(drainQuiet / 10)
	}
	in.log.Warn("console: stopped before storing all its queued messages; the broker keeps them until it is back", "waited", drainMax)
}

// options are paho's options: a persistent session, messages handed over
// in order and acknowledged once stored, subscriptions made on every
// (re)connection.
func (in *Ingester) options(ctx context.Context) (*mqtt.ClientOptions, error) {
	opts := mqtt.NewClientOptions().AddBroker(in.cfg.Broker).SetClientID(in.cfg.ClientID).
		SetUsername(in.cfg.Username).SetPassword(in.cfg.Password).
		SetCleanSession(false).SetOrderMatters(true).SetAutoAckDisabled(true).
		SetAutoReconnect(true).SetConnectRetry(true).SetConnectRetryInterval(5 * time.Second).
		SetMaxReconnectInterval(60 * time.Second).SetKeepAlive(30 * time.Second)
	u, err := url.Parse(in.cfg.Broker)
	if err != nil {
		return nil, fmt.Errorf("console: broker %q: %w", in.cfg.Broker, err)
	}
	if u.Scheme == "ssl" || u.Scheme == "tls" || u.Scheme == "mqtts" {
		tc, err := in.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts.SetTLSConfig(tc)
	}
	handler := func(_ mqtt.Client, msg mqtt.Message) { in.deliver(ctx, msg) }
	// Messages queued in the session while the console was away arrive
	// right after CONNACK, before the subscriptions below add their routes;
	// without a default handler paho would leave them unacknowledged until
	// the next connection. Handle sorts every message by its topic anyway.
	opts.SetDefaultPublishHandler(handler)
	opts.SetOnConnectHandler(func(c mqtt.Client) {
		in.log.Info("console: connected to the broker", "broker", in.cfg.Broker)
		if in.leaving.Load() {
			return // the session keeps what it had; a hand-over must not undo its unsubscribing
		}
		tok := c.SubscribeMultiple(in.Filters(), handler)
		switch {
		case !tok.WaitTimeout(10 * time.Second):
			in.log.Error("console: the broker did not answer the subscription within 10 s")
		case tok.Error() != nil:
			in.log.Error("console: subscribing", "err", tok.Error())
		case len(refused(tok)) > 0:
			in.log.Error("console: the broker refused subscriptions (0x80: not allowed, or $share not supported)", "filters", refused(tok))
		default:
			in.subscribed.Store(true)
			in.heartbeat(ctx)
		}
	})
	opts.SetConnectionLostHandler(func(_ mqtt.Client, err error) {
		in.log.Warn("console: lost the broker; reconnecting", "broker", in.cfg.Broker, "err", err)
	})
	return opts, nil
}

// refused lists the filters the broker refused in its SUBACK.
func refused(tok mqtt.Token) []string {
	st, ok := tok.(*mqtt.SubscribeToken)
	if !ok {
		return nil
	}
	var out []string
	for f, code := range st.Result() {
		if code >= 0x80 {
			out = append(out, f)
		}
	}
	return out
}

// deliver stores msg, retrying while the store fails, and acknowledges it
// once stored (or skipped as malformed). Given up when ctx ends, it is not
// acknowledged: the broker delivers it again to the next session.
func (in *Ingester) deliver(ctx context.Context, msg mqtt.Message) {
	in.handling.Add(1)
	defer func() {
		in.lastDone.Store(time.Now().UnixNano())
		in.handling.Add(-1)
	}()
	for n := 0; ; n++ {
		_, err := in.Handle(ctx, msg.Topic(), msg.Payload())
		if err == nil {
			msg.Ack()
			return
		}
		wait := retry[min(n, len(retry)-1)]
		in.log.Error("console: cannot store a message; trying again", "topic", msg.Topic(), "in", wait, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

func (in *Ingester) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if in.cfg.CAFile != "" {
		pem, err := os.ReadFile(in.cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("console: mqtt.ca_file: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("console: mqtt.ca_file %s holds no PEM certificate", in.cfg.CAFile)
		}
	}
	if in.cfg.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(in.cfg.CertFile, in.cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("console: mqtt.cert_file/key_file: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

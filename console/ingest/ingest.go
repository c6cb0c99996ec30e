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

// Run connects to the broker, subscribes, and stores every message until
// ctx ends. It returns an error only for a TLS setting it cannot use; an
// unreachable broker, or one that refuses the console, is retried (and
// logged) until ctx ends.
func (in *Ingester) Run(ctx context.Context) error {
	opts, err := in.options(ctx)
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
	<-ctx.Done()
	client.Disconnect(500)
	return nil
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
		if tok := c.SubscribeMultiple(in.Filters(), handler); tok.WaitTimeout(10*time.Second) && tok.Error() != nil {
			in.log.Error("console: subscribing", "err", tok.Error())
		}
	})
	opts.SetConnectionLostHandler(func(_ mqtt.Client, err error) {
		in.log.Warn("console: lost the broker; reconnecting", "broker", in.cfg.Broker, "err", err)
	})
	return opts, nil
}

// deliver stores msg, retrying while the store fails, and acknowledges it
// once stored (or skipped as malformed). Given up when ctx ends, it is not
// acknowledged: the broker delivers it again to the next session.
func (in *Ingester) deliver(ctx context.Context, msg mqtt.Message) {
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

// Package publish sends the monitor's results to an MQTT broker without ever
// losing an alert.
//
// Messages go to <prefix>/<table>/<kind>, where kind is round, outcome, alert
// or stats; <prefix>/<table>/available is retained and reads "online" while
// connected, "stopped" after a clean Close, and "offline" (the last will) when
// the box vanishes.
//
// Round, outcome and alert messages are first appended to an outbox file in
// Config.OutboxDir and fsync'd, then sent at QoS 1 by a background sender,
// one at a time and in order. A record leaves the outbox only when the broker
// has acknowledged it, so a broker outage or a restart of the process delays
// messages but never drops them; the next New on the same directory resends
// what is pending first. A message may arrive twice (after a crash, or a lost
// acknowledgement): consumers de-duplicate by the alert id. A record the
// disk refuses (full, failing) waits in memory, is sent all the same, and
// is written as soon as the disk takes it (OutboxHeld counts them). Stats
// are QoS 0; while offline they are kept in memory (the last few hundred)
// and sent once the broker is back, so the outage shows in them.
//
// The publisher also receives: Config.Handlers subscribes, at QoS 1 and on
// the same connection, to <prefix>/<table>/<kind> for each kind given, such
// as KindController for the table controller's events. The session is
// persistent (a fixed client id, clean session off), so the broker queues
// those messages while the monitor is away and delivers them when it comes
// back; the subscriptions are made again on every connection, for brokers
// that forgot them. Handlers run on paho's goroutine and must return quickly.
//
// Publish never waits for the broker: it returns once the record is on disk.
// The connection is retried after 250 ms, 500 ms, then every second, so that
// the monitor is back within a second of the broker's return; Config.Log
// hears each connect, disconnect with its reason, reconnect and suspected
// session takeover, and Link reports the gaps, during which controller
// events may have been lost. New fails
// only when it cannot work at all (bad config or TLS files, the outbox
// unwritable, the broker refusing the credentials, a TLS certificate that
// does not verify or is refused, a tcp:// URL at a TLS port, a refused
// subscription), with a message
// that names the broker and the fix; an unreachable broker is not an error,
// because the box must start while the network is down.
//
// Usage:
//
//	p, err := publish.New(publish.Config{
//		Broker:    "tcp://broker.local:1883",
//		ClientID:  "bjmonitor-table7",
//		Table:     "table7",
//		OutboxDir: "/var/lib/bjmonitor/outbox",
//		Handlers: map[string]func(publish.Message){
//			// A buffered channel: a handler that blocks stalls the whole
//			// connection, acknowledgements of our alerts included.
//			publish.KindController: func(m publish.Message) { events <- m },
//		},
//	})
//	if err != nil {
//		return err
//	}
//	defer p.Close() // the caller owns p and must Close it
//	err = p.Publish(ctx, publish.KindAlert, alertJSON)
package publish

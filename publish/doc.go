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
// acknowledgement): consumers de-duplicate by the alert id. Stats are best
// effort, QoS 0, and dropped and counted while offline, because a stale fps
// figure is worth nothing.
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
// The connection is retried after 1 s, 5 s, 10 s, then every 60 s. New fails
// only when it cannot work at all (bad config or TLS files, the outbox
// unwritable, the broker refusing the credentials, a TLS certificate that
// does not verify or is refused, a refused subscription), with a message
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
//		Handlers: map[string]func([]byte){
//			// A buffered channel: a handler that blocks stalls the whole
//			// connection, acknowledgements of our alerts included.
//			publish.KindController: func(b []byte) { events <- b },
//		},
//	})
//	if err != nil {
//		return err
//	}
//	defer p.Close() // the caller owns p and must Close it
//	err = p.Publish(ctx, publish.KindAlert, alertJSON)
package publish

// Package broker runs the embedded MQTT broker that a monitor starts when no
// broker is configured, so that a single box works as it comes: the monitor
// publishes to it, and a console on the same box (or, with Addr ":1883" and
// users, on the room's network) subscribes to it.
//
// It wraps mochi-mqtt v2 and speaks MQTT 3.1.1 and 5, on one TCP listener,
// optionally TLS. Without Users anyone may connect and do anything, so
// Start refuses to listen beyond loopback. With Users (bcrypt-hashed
// passwords) anonymous clients are refused and each user is held to its
// Role on <prefix>/<table>/…: only a controller may publish on controller,
// a console may only read, and the monitor, which logs in with Login,
// publishes the results.
//
// Retained messages and persistent sessions live in memory only. The broker
// runs inside the monitor's process, so when the monitor restarts, the
// broker forgets the retained "available" state and every session it was
// queuing for a console that was away: that console misses those messages.
// The monitor's own alerts are still never lost on the way to the broker,
// because its publisher keeps each in the on-disk outbox until the broker
// acknowledges it; and the publisher remakes its own subscriptions on every
// connection. A site whose consoles must catch up across a restart of the
// box runs Mosquitto with persistence and configures the monitor to use it.
//
// mochi habits to know, none of which costs the monitor an alert:
//   - When a client with a persistent session comes back, the messages
//     queued for it are resent sorted only by the second they arrived in,
//     so several from one second may arrive out of order (the controller's
//     events carry their own times).
//   - A message passed on to a session at the very moment its client
//     reconnects can be lost. The monitor's publisher connects to its own
//     embedded broker once per process, so this matters only to consoles.
//   - Packet ids are shared between directions, so a SUBSCRIBE can be
//     refused while queued messages are still unacknowledged; the publisher
//     retries it.
//   - The will of a connection replaced by a newer one could be sent after
//     the newer one's first messages, marking a live table offline; the
//     broker drops such stale wills.
//
// Usage:
//
//	b, err := broker.Start(ctx, broker.Config{Table: "table-7"}, log) // 127.0.0.1:1883
//	if err != nil {
//		return err
//	}
//	defer b.Close() // the caller owns b and must Close it, after the publisher
//	user, password := b.Login()
//	p, err := publish.New(publish.Config{Broker: b.URL(), Username: user, Password: password, ...})
package broker

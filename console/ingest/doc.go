// Package ingest takes what the table monitors publish over MQTT and
// stores it for the console: every table's availability, stats, rounds,
// outcomes, alerts and the alerts' evidence files.
//
// Parse turns one MQTT message into a Message, or reports why it cannot
// (a malformed payload, a topic that is not a table's). An Ingester
// subscribes to every table under the topic prefix, stores each message
// through a Sink, and counts what became of it: stored, duplicate (a
// record may arrive twice; the Sink de-duplicates), malformed, or for a
// table the console does not watch. Nothing a table sends stops it.
//
// Messages are acknowledged to the broker only once stored, and the
// console keeps a persistent session (a fixed client id, clean session
// off), so a console that stops, or a database that fails for a while,
// delays messages but loses none: the broker keeps them.
//
// Several console instances share the work through a shared subscription
// ($share/<group>/…): each round, outcome, alert and evidence file then
// reaches one instance only. Availability and stats are small, retained or
// frequent, and idempotent to store, so every instance takes them all
// (brokers do not send retained messages to shared subscriptions). A
// broker deals the group's messages to stopped members too, so with a
// Roster an instance that stops while others run hands its share over
// (Run says how).
//
//	in := ingest.New(ingest.Config{Broker: "tcp://broker:1883", TopicPrefix: "bjmonitor"}, db)
//	err := in.Run(ctx) // until ctx ends
package ingest

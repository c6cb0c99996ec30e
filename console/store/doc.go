// Package store keeps what the surveillance console receives and decides:
// every table's state, the rounds, outcomes and alerts the table monitors
// publish, the alerts' evidence files, the officers' resolutions (an
// append-only audit trail), and the console's users and sessions.
//
// Two databases are supported behind one type. SQLite (modernc.org/sqlite,
// pure Go) is the embedded default: a file next to the configuration, no
// setup. PostgreSQL (through pgx) serves a room where several console
// instances share one database. Open picks by the address: a postgres:// or
// postgresql:// URL is PostgreSQL, anything else a SQLite file.
//
// The schema is versioned: Open applies, in order and in one transaction
// each, every migration the database has not had yet, and records it in
// schema_migrations. On PostgreSQL an advisory lock keeps two instances
// starting together from migrating at once.
//
// Records are stored once: an alert by its id, a round by table and round,
// an outcome by table, round, seat and bet (as docs/mqtt.md tells consumers
// to de-duplicate), and the Add methods report whether the record was new.
// Alerts and the audit trail are never deleted or rewritten; the database
// itself refuses it (triggers).
//
//	s, err := store.Open(ctx, "console.db")
//	defer s.Close() // the caller must close it
//	isNew, err := s.AddAlert(ctx, store.Alert{ID: "table-7:1842:3:21+3:overpaid", ...})
package store

package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// migration is one version of the schema: the statements that take the
// database from the version before to this one, for each dialect.
type migration struct {
	version  int
	name     string
	sqlite   []string
	postgres []string
}

// both is a statement written once for both dialects: {{serial}} is an
// auto-incrementing integer primary key and {{blob}} a byte string.
func both(stmts ...string) (sqlite, postgres []string) {
	for _, s := range stmts {
		sqlite = append(sqlite, strings.NewReplacer("{{serial}}", "INTEGER PRIMARY KEY AUTOINCREMENT", "{{blob}}", "BLOB").Replace(s))
		postgres = append(postgres, strings.NewReplacer("{{serial}}", "BIGSERIAL PRIMARY KEY", "{{blob}}", "BYTEA").Replace(s))
	}
	return sqlite, postgres
}

// migrations is the schema's history, oldest first. A migration once
// released is never edited: a change is a new version.
var migrations = func() []migration {
	var ms []migration
	v1lite, v1pg := both(
		`CREATE TABLE tables (
			id TEXT PRIMARY KEY,
			availability TEXT NOT NULL DEFAULT '',
			availability_at BIGINT NOT NULL DEFAULT 0,
			fps DOUBLE PRECISION NOT NULL DEFAULT 0,
			frames BIGINT NOT NULL DEFAULT 0,
			dropped BIGINT NOT NULL DEFAULT 0,
			stats_at BIGINT NOT NULL DEFAULT 0,
			stats TEXT NOT NULL DEFAULT '',
			last_round TEXT NOT NULL DEFAULT '',
			last_round_at BIGINT NOT NULL DEFAULT 0)`,
		`CREATE TABLE rounds (
			table_id TEXT NOT NULL,
			round TEXT NOT NULL,
			received_at BIGINT NOT NULL,
			body TEXT NOT NULL,
			PRIMARY KEY (table_id, round))`,
		`CREATE INDEX rounds_received ON rounds (table_id, received_at)`,
		`CREATE TABLE outcomes (
			table_id TEXT NOT NULL,
			round TEXT NOT NULL,
			seat INTEGER NOT NULL,
			bet TEXT NOT NULL,
			received_at BIGINT NOT NULL,
			body TEXT NOT NULL,
			PRIMARY KEY (table_id, round, seat, bet))`,
		`CREATE TABLE alerts (
			seq {{serial}},
			id TEXT NOT NULL UNIQUE,
			table_id TEXT NOT NULL,
			round TEXT NOT NULL,
			seat INTEGER NOT NULL,
			bet TEXT NOT NULL,
			kind TEXT NOT NULL,
			severity TEXT NOT NULL,
			expected DOUBLE PRECISION NOT NULL,
			entered DOUBLE PRECISION NOT NULL,
			received_at BIGINT NOT NULL,
			status TEXT NOT NULL DEFAULT 'open',
			body TEXT NOT NULL)`,
		`CREATE INDEX alerts_received ON alerts (received_at)`,
		`CREATE INDEX alerts_table ON alerts (table_id, seq)`,
		`CREATE INDEX alerts_round ON alerts (table_id, round)`,
		`CREATE INDEX alerts_status ON alerts (status, seq)`,
		`CREATE TABLE audit (
			seq {{serial}},
			alert_id TEXT NOT NULL,
			at BIGINT NOT NULL,
			user_name TEXT NOT NULL,
			action TEXT NOT NULL,
			resolution TEXT NOT NULL,
			note TEXT NOT NULL)`,
		`CREATE INDEX audit_alert ON audit (alert_id, seq)`,
		`CREATE TABLE evidence (
			alert_id TEXT NOT NULL,
			file TEXT NOT NULL,
			content_type TEXT NOT NULL,
			received_at BIGINT NOT NULL,
			data {{blob}} NOT NULL,
			PRIMARY KEY (alert_id, file))`,
		`CREATE TABLE users (
			name TEXT PRIMARY KEY,
			role TEXT NOT NULL,
			password_hash TEXT NOT NULL,
			created_at BIGINT NOT NULL)`,
		`CREATE TABLE sessions (
			token_hash TEXT PRIMARY KEY,
			user_name TEXT NOT NULL,
			csrf TEXT NOT NULL,
			expires_at BIGINT NOT NULL)`,
	)
	ms = append(ms, migration{version: 1, name: "tables, records, audit, evidence, users, sessions", sqlite: v1lite, postgres: v1pg})
	// The database itself keeps alerts and the audit trail: an UPDATE of
	// the trail, or a DELETE of either, fails whoever issues it.
	ms = append(ms, migration{version: 2, name: "alerts and audit are append-only",
		sqlite: []string{
			`CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END`,
			`CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END`,
			`CREATE TRIGGER alerts_no_delete BEFORE DELETE ON alerts BEGIN SELECT RAISE(ABORT, 'alerts are never deleted'); END`,
		},
		postgres: []string{
			`CREATE FUNCTION append_only() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN RAISE EXCEPTION '% on %: append-only', TG_OP, TG_TABLE_NAME; END $$`,
			`CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit FOR EACH ROW EXECUTE FUNCTION append_only()`,
			`CREATE TRIGGER alerts_no_delete BEFORE DELETE ON alerts FOR EACH ROW EXECUTE FUNCTION append_only()`,
		}})
	// The tables page counts each table's unresolved alerts, and filters
	// by kind count their alerts: with 100,000 alerts stored, each took a
	// scan of them all (BenchmarkAlertList in console/web).
	v3lite, v3pg := both(
		`CREATE INDEX alerts_table_status ON alerts (table_id, status)`,
		`CREATE INDEX alerts_kind ON alerts (kind, severity, seq)`,
	)
	ms = append(ms, migration{version: 3, name: "indexes for the tables page and filters by kind", sqlite: v3lite, postgres: v3pg})
	// Console instances of a shared group, and when each was last heard
	// from (Heartbeat, Leave).
	v4lite, v4pg := both(
		`CREATE TABLE console_instances (
			grp TEXT NOT NULL,
			client_id TEXT NOT NULL,
			seen_at BIGINT NOT NULL,
			PRIMARY KEY (grp, client_id))`,
	)
	ms = append(ms, migration{version: 4, name: "console instances of a shared group", sqlite: v4lite, postgres: v4pg})
	// Evidence is kept for a while (PruneEvidence): an expired file keeps
	// its row, with no data, so the alert's page can say it expired.
	v5lite, v5pg := both(
		`ALTER TABLE evidence ADD COLUMN expired_at BIGINT NOT NULL DEFAULT 0`,
		`CREATE INDEX evidence_age ON evidence (expired_at, received_at)`,
	)
	ms = append(ms, migration{version: 5, name: "evidence expires", sqlite: v5lite, postgres: v5pg})
	// Failed logins in a row, by user name and by remote address
	// ("user:ana", "addr:10.0.0.7"), so that every instance slows down
	// the same guesser.
	v6lite, v6pg := both(
		`CREATE TABLE login_failures (
			subject TEXT PRIMARY KEY,
			failures INTEGER NOT NULL,
			last_at BIGINT NOT NULL)`,
	)
	ms = append(ms, migration{version: 6, name: "failed logins", sqlite: v6lite, postgres: v6pg})
	// A user is disabled, never deleted: their name stays in the trail.
	v7lite, v7pg := both(
		`ALTER TABLE users ADD COLUMN disabled_at BIGINT NOT NULL DEFAULT 0`,
	)
	ms = append(ms, migration{version: 7, name: "users can be disabled", sqlite: v7lite, postgres: v7pg})
	return ms
}()

// pgMigrationLock is the advisory lock key console instances take while
// they migrate a shared PostgreSQL database.
const pgMigrationLock = 0x626a6d6f6e // "bjmon"

// migrate applies every migration newer than the database's version, each
// in a transaction of its own.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("store: schema_migrations: %w", err)
	}
	for _, m := range migrations {
		if err := s.apply(ctx, m); err != nil {
			return fmt.Errorf("store: migration %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}

// apply runs one migration unless the database has it already.
func (s *Store) apply(ctx context.Context, m migration) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := m.sqlite
	if s.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, pgMigrationLock); err != nil {
			return err
		}
		stmts = m.postgres
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), m.version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`), m.version, m.name, time.Now().UnixMilli()); err != nil {
		return err
	}
	return tx.Commit()
}

// Version is the newest migration the database has.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v)
	return int(v.Int64), err
}

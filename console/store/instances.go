package store

import (
	"context"
	"time"
)

// pgLeaveLock is the advisory lock key instances take while one of them
// leaves its group, so that two leaving at once are taken one by one.
const pgLeaveLock = 0x626a6c65617665 // "bjleave"

// Heartbeat records that the console instance id of the shared group is
// running and subscribed, as of at.
func (s *Store) Heartbeat(ctx context.Context, group, id string, at time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO console_instances (grp, client_id, seen_at) VALUES (?, ?, ?)
		ON CONFLICT (grp, client_id) DO UPDATE SET seen_at = excluded.seen_at`), group, id, at.UnixMilli())
	return err
}

// Leave removes the instance id from its group and returns how many other
// instances of the group were heard from after since. Instances leaving
// together are taken one at a time, so that of two leaving at once the
// second finds the first gone: one of them is always the last.
func (s *Store) Leave(ctx context.Context, group, id string, since time.Time) (others int, err error) {
	tx, err := s.db.BeginTx(ctx, nil) // SQLite: BEGIN IMMEDIATE, one writer at a time
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if s.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, pgLeaveLock); err != nil {
			return 0, err
		}
	}
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM console_instances WHERE grp = ? AND client_id = ?`), group, id); err != nil {
		return 0, err
	}
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM console_instances WHERE grp = ? AND seen_at > ?`), group, since.UnixMilli()).Scan(&others); err != nil {
		return 0, err
	}
	return others, tx.Commit()
}

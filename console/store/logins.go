package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// LoginFailures returns how many logins failed in a row for subject (a
// user name or a remote address, as the caller keys them), and when the
// last one failed; 0 when none is recorded.
func (s *Store) LoginFailures(ctx context.Context, subject string) (n int, last time.Time, err error) {
	var at int64
	err = s.db.QueryRowContext(ctx, s.q(`SELECT failures, last_at FROM login_failures WHERE subject = ?`), subject).Scan(&n, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, nil
	}
	return n, ms(at), err
}

// AddLoginFailure counts a failed login for subject at at, forgetting
// first the failures of a run that ended before since, and returns the
// failures in a row now.
func (s *Store) AddLoginFailure(ctx context.Context, subject string, at, since time.Time) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.q(`INSERT INTO login_failures (subject, failures, last_at) VALUES (?, 1, ?)
		ON CONFLICT (subject) DO UPDATE SET
			failures = CASE WHEN login_failures.last_at < ? THEN 1 ELSE login_failures.failures + 1 END,
			last_at = excluded.last_at
		RETURNING failures`), subject, at.UnixMilli(), since.UnixMilli()).Scan(&n)
	return n, err
}

// ClearLoginFailures forgets subject's failures (after a login that
// succeeded).
func (s *Store) ClearLoginFailures(ctx context.Context, subject string) error {
	_, err := s.db.ExecContext(ctx, s.q(`DELETE FROM login_failures WHERE subject = ?`), subject)
	return err
}

// ForgetLoginFailures deletes the runs of failures that ended before
// before.
func (s *Store) ForgetLoginFailures(ctx context.Context, before time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q(`DELETE FROM login_failures WHERE last_at < ?`), before.UnixMilli())
	return err
}

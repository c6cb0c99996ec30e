package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// User is someone who may log in to the console.
type User struct {
	Name string
	// Role is "viewer" (reads) or "officer" (reads and resolves).
	Role string
	// PasswordHash is a bcrypt hash; the password itself is never stored.
	PasswordHash string
	Created      time.Time
	// Disabled is when the user was disabled (DisableUser); zero while
	// they may log in.
	Disabled time.Time
}

// PutUser adds u, or replaces the role and password of the user of that
// name, enabling them again if they were disabled.
func (s *Store) PutUser(ctx context.Context, u User) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO users (name, role, password_hash, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET role = excluded.role, password_hash = excluded.password_hash, disabled_at = 0`),
		u.Name, u.Role, u.PasswordHash, u.Created.UnixMilli())
	return err
}

// User returns the user of name.
func (s *Store) User(ctx context.Context, name string) (User, error) {
	u := User{Name: name}
	var at, disabled int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT role, password_hash, created_at, disabled_at FROM users WHERE name = ?`), name).Scan(&u.Role, &u.PasswordHash, &at, &disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return u, ErrNotFound
	}
	u.Created, u.Disabled = ms(at), ms(disabled)
	return u, err
}

// DisableUser disables the user of name as of at and ends their
// sessions; a user already disabled keeps the first date. The user is
// kept, so their name stays in the trail. ErrNotFound: no such user.
func (s *Store) DisableUser(ctx context.Context, name string, at time.Time) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, s.q(`UPDATE users SET disabled_at = CASE WHEN disabled_at = 0 THEN ? ELSE disabled_at END WHERE name = ?`), at.UnixMilli(), name)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE user_name = ?`), name); err != nil {
		return err
	}
	return tx.Commit()
}

// Session is a logged-in browser. Only a hash of its cookie's token is
// stored, so a copy of the database logs nobody in.
type Session struct {
	TokenHash string
	User      string
	// CSRF is the token every form of the session carries.
	CSRF    string
	Expires time.Time
}

// CreateSession stores a new session.
func (s *Store) CreateSession(ctx context.Context, se Session) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO sessions (token_hash, user_name, csrf, expires_at) VALUES (?, ?, ?, ?)`),
		se.TokenHash, se.User, se.CSRF, se.Expires.UnixMilli())
	return err
}

// Session returns the session of the token hash, unless it expired
// before now.
func (s *Store) Session(ctx context.Context, tokenHash string, now time.Time) (Session, error) {
	se := Session{TokenHash: tokenHash}
	var at int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT user_name, csrf, expires_at FROM sessions WHERE token_hash = ? AND expires_at > ?`), tokenHash, now.UnixMilli()).Scan(&se.User, &se.CSRF, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return se, ErrNotFound
	}
	se.Expires = ms(at)
	return se, err
}

// DeleteSession ends a session (logout).
func (s *Store) DeleteSession(ctx context.Context, tokenHash string) error {
	_, err := s.db.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE token_hash = ?`), tokenHash)
	return err
}

// DeleteExpiredSessions removes the sessions expired before now.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE expires_at <= ?`), now.UnixMilli())
	return err
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	_ "modernc.org/sqlite"             // the "sqlite" driver
)

// ErrNotFound is returned when what was asked for is not stored.
var ErrNotFound = errors.New("store: not found")

// Store is the console's database. It is safe for concurrent use; Close
// releases it.
type Store struct {
	db       *sql.DB
	postgres bool
}

// IsPostgres reports whether address names a PostgreSQL database rather
// than a SQLite file.
func IsPostgres(address string) bool {
	return strings.HasPrefix(address, "postgres://") || strings.HasPrefix(address, "postgresql://")
}

// Open opens the database at address, a postgres:// URL or a SQLite file
// path (created if missing), and migrates it to the newest schema.
func Open(ctx context.Context, address string) (*Store, error) {
	if address == "" {
		return nil, errors.New("store: no database address")
	}
	s := &Store{postgres: IsPostgres(address)}
	var err error
	if s.postgres {
		s.db, err = sql.Open("pgx", address)
	} else {
		s.db, err = sql.Open("sqlite", sqliteDSN(address))
		// One writer at a time is all SQLite allows; WAL lets readers go on
		// meanwhile, and busy_timeout makes a second writer wait, not fail.
		s.db.SetMaxOpenConns(8)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("store: cannot reach the database %s: %w", redact(address), err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// sqliteDSN is the modernc driver's address for a file path.
func sqliteDSN(path string) string {
	v := url.Values{}
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "synchronous(NORMAL)")
	v.Add("_pragma", "foreign_keys(1)")
	v.Set("_txlock", "immediate")
	return "file:" + path + "?" + v.Encode()
}

// redact hides a URL's password for messages.
func redact(address string) string {
	u, err := url.Parse(address)
	if err != nil || u.User == nil {
		return address
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Dialect is "sqlite" or "postgres".
func (s *Store) Dialect() string {
	if s.postgres {
		return "postgres"
	}
	return "sqlite"
}

// q rewrites a query's ? placeholders as PostgreSQL's $1, $2, … where
// needed. No query here has a ? inside a string literal.
func (s *Store) q(query string) string {
	if !s.postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// insertOnce runs an INSERT … ON CONFLICT DO NOTHING and reports whether
// it added a row.
func (s *Store) insertOnce(ctx context.Context, query string, args ...any) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.q(query), args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

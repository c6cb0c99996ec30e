package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Filter picks alerts. Empty fields pick every alert.
type Filter struct {
	Table, Kind, Severity string
	// Status is a status, or "unresolved" for open and acknowledged ones.
	Status string
	// From and To bound when the console received the alert: From
	// included, To excluded.
	From, To time.Time
	// Before lists only alerts stored before the one of this Seq (the
	// next page); 0 starts at the newest.
	Before int64
	// Limit is the most alerts listed; 0 lists every one.
	Limit int
}

// Unresolved is the Filter.Status of alerts nobody has resolved.
const Unresolved = "unresolved"

// where is the filter's WHERE clause and its arguments.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		conds = append(conds, cond)
		args = append(args, arg)
	}
	if f.Table != "" {
		add("table_id = ?", f.Table)
	}
	if f.Kind != "" {
		add("kind = ?", f.Kind)
	}
	if f.Severity != "" {
		add("severity = ?", f.Severity)
	}
	switch f.Status {
	case "":
	case Unresolved:
		conds = append(conds, "status IN ('open', 'acknowledged')")
	default:
		add("status = ?", f.Status)
	}
	if !f.From.IsZero() {
		add("received_at >= ?", f.From.UnixMilli())
	}
	if !f.To.IsZero() {
		add("received_at < ?", f.To.UnixMilli())
	}
	if f.Before > 0 {
		add("seq < ?", f.Before)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

const alertColumns = `seq, id, table_id, round, seat, bet, kind, severity, expected, entered, received_at, status, body`

func scanAlert(row interface{ Scan(...any) error }) (Alert, error) {
	var a Alert
	var at int64
	var body string
	err := row.Scan(&a.Seq, &a.ID, &a.Table, &a.Round, &a.Seat, &a.Bet, &a.Kind, &a.Severity, &a.Expected, &a.Entered, &at, &a.Status, &body)
	a.Received, a.Body = ms(at), []byte(body)
	return a, err
}

func (s *Store) queryAlerts(ctx context.Context, query string, args ...any) ([]Alert, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Alert
	for rows.Next() {
		a, err := scanAlert(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Alerts lists the alerts f picks, newest first.
func (s *Store) Alerts(ctx context.Context, f Filter) ([]Alert, error) {
	where, args := f.where()
	query := `SELECT ` + alertColumns + ` FROM alerts` + where + ` ORDER BY seq DESC`
	if f.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return s.queryAlerts(ctx, query, args...)
}

// CountAlerts counts the alerts f picks (Before and Limit aside).
func (s *Store) CountAlerts(ctx context.Context, f Filter) (int, error) {
	f.Before, f.Limit = 0, 0
	where, args := f.where()
	var n int
	err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM alerts`+where), args...).Scan(&n)
	return n, err
}

// AlertsAfter lists up to limit alerts stored after the one of seq, oldest
// first: what the live feed has not shown yet.
func (s *Store) AlertsAfter(ctx context.Context, seq int64, limit int) ([]Alert, error) {
	return s.queryAlerts(ctx, fmt.Sprintf(`SELECT `+alertColumns+` FROM alerts WHERE seq > ? ORDER BY seq LIMIT %d`, limit), seq)
}

// LastSeq is the Seq of the newest alert, 0 when none is stored.
func (s *Store) LastSeq(ctx context.Context) (int64, error) {
	var v sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(seq) FROM alerts`).Scan(&v)
	return v.Int64, err
}

// Alert returns the alert of id.
func (s *Store) Alert(ctx context.Context, id string) (Alert, error) {
	a, err := scanAlert(s.db.QueryRowContext(ctx, s.q(`SELECT `+alertColumns+` FROM alerts WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Alert{}, ErrNotFound
	}
	return a, err
}

// RoundAlerts lists a round's alerts in the order stored.
func (s *Store) RoundAlerts(ctx context.Context, table, round string) ([]Alert, error) {
	return s.queryAlerts(ctx, `SELECT `+alertColumns+` FROM alerts WHERE table_id = ? AND round = ? ORDER BY seq`, table, round)
}

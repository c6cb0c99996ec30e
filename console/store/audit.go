package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// AuditEntry is one line of an alert's audit trail: who did what, and
// when.
type AuditEntry struct {
	Seq     int64
	AlertID string
	At      time.Time
	User    string
	// Action is Acknowledge or Resolve.
	Action string
	// Resolution is set for Resolve: ConfirmedError, FalseAlarm or Other.
	Resolution string
	Note       string
}

// Audit actions.
const (
	Acknowledge = "acknowledge"
	Resolve     = "resolve"
)

// Record appends e to its alert's audit trail and sets the alert's status
// to match, in one transaction: acknowledging an open alert marks it
// acknowledged; a resolution replaces any status before it. The trail is
// never rewritten, so a later resolution adds to it.
func (s *Store) Record(ctx context.Context, e AuditEntry) error {
	switch {
	case e.Action == Resolve && !IsResolution(e.Resolution):
		return fmt.Errorf("store: resolution %q: want %s, %s or %s", e.Resolution, ConfirmedError, FalseAlarm, Other)
	case e.Action == Acknowledge && e.Resolution != "":
		return fmt.Errorf("store: an acknowledgement carries no resolution (%q)", e.Resolution)
	case e.Action != Resolve && e.Action != Acknowledge:
		return fmt.Errorf("store: audit action %q: want %s or %s", e.Action, Acknowledge, Resolve)
	case e.User == "":
		return fmt.Errorf("store: an audit entry needs the officer's name")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var res interface{ RowsAffected() (int64, error) }
	if e.Action == Resolve {
		res, err = tx.ExecContext(ctx, s.q(`UPDATE alerts SET status = ? WHERE id = ?`), e.Resolution, e.AlertID)
	} else {
		res, err = tx.ExecContext(ctx, s.q(`UPDATE alerts SET status = CASE WHEN status = 'open' THEN 'acknowledged' ELSE status END WHERE id = ?`), e.AlertID)
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO audit (alert_id, at, user_name, action, resolution, note) VALUES (?, ?, ?, ?, ?, ?)`),
		e.AlertID, e.At.UnixMilli(), e.User, e.Action, e.Resolution, e.Note); err != nil {
		return err
	}
	return tx.Commit()
}

// Audit returns an alert's audit trail, oldest first.
func (s *Store) Audit(ctx context.Context, alertID string) ([]AuditEntry, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT seq, at, user_name, action, resolution, note FROM audit WHERE alert_id = ? ORDER BY seq`), alertID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		e := AuditEntry{AlertID: alertID}
		var at int64
		if err := rows.Scan(&e.Seq, &at, &e.User, &e.Action, &e.Resolution, &e.Note); err != nil {
			return nil, err
		}
		e.At = ms(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Trails returns the audit trails of the alerts of ids, by alert id, for
// an export; alerts with no trail are left out.
func (s *Store) Trails(ctx context.Context, ids []string) (map[string][]AuditEntry, error) {
	out := map[string][]AuditEntry{}
	const chunk = 500 // well under either database's limit on parameters
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		ids = ids[n:]
		marks := strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
		rows, err := s.db.QueryContext(ctx, s.q(`SELECT seq, alert_id, at, user_name, action, resolution, note FROM audit WHERE alert_id IN (`+marks+`) ORDER BY seq`), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var e AuditEntry
			var at int64
			if err := rows.Scan(&e.Seq, &e.AlertID, &at, &e.User, &e.Action, &e.Resolution, &e.Note); err != nil {
				rows.Close()
				return nil, err
			}
			e.At = ms(at)
			out[e.AlertID] = append(out[e.AlertID], e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"bjmonitor/alerts"
	"bjmonitor/evaluator"
	"bjmonitor/pipeline"
)

// publisher is what results need of an MQTT publisher: *publish.Publisher
// is one. Publish returns once the record is safely queued.
type publisher interface {
	Publish(ctx context.Context, kind string, payload []byte) error
}

// results writes each finished round's records, round then outcomes then
// alerts, to a JSONL file and to the broker, whichever are set.
type results struct {
	table string
	jsonl io.Writer // nil: no file
	pub   publisher // nil: no broker
	log   *slog.Logger
	// Counted for the replay's summary.
	rounds, alerts int
}

func newResults(table string, jsonl io.Writer, pub publisher, log *slog.Logger) *results {
	return &results{table: table, jsonl: jsonl, pub: pub, log: log}
}

// outcomeRecord is an outcome with the round it belongs to.
type outcomeRecord struct {
	Round string `json:"round"`
	evaluator.Outcome
}

// write writes one round's records. An error means a record could not be
// stored (the results file, or the outbox); the records after it are
// still written, and the caller logs the error with the round's records.
func (w *results) write(ctx context.Context, res pipeline.Result) error {
	w.rounds++
	err := w.record(ctx, alerts.RecordRound, res.Round.ID, res.Round)
	for _, o := range res.Outcomes {
		err = errors.Join(err, w.record(ctx, alerts.RecordOutcome, res.Round.ID, outcomeRecord{res.Round.ID, o}))
	}
	for _, a := range res.Alerts {
		w.alerts++
		err = errors.Join(err, w.record(ctx, alerts.RecordAlert, res.Round.ID, a))
	}
	return err
}

func (w *results) record(ctx context.Context, typ, round string, v any) error {
	b, err := alerts.Encode(typ, w.table, v)
	if err != nil {
		// A record that cannot be encoded is a bug; the rest goes on.
		w.log.Error("result record skipped", "type", typ, "round", round, "err", err)
		return nil
	}
	// A file that fails does not keep the record from the broker, nor the
	// other way round.
	var ferr, perr error
	if w.jsonl != nil {
		if _, err := w.jsonl.Write(append(b, '\n')); err != nil {
			ferr = fmt.Errorf("writing results: %w", err)
		}
	}
	if w.pub != nil {
		// The record types are the publisher's kinds: round, outcome
		// and alert.
		if err := w.pub.Publish(ctx, typ, b); err != nil {
			perr = fmt.Errorf("queueing a %s record for the broker: %w", typ, err)
		}
	}
	return errors.Join(ferr, perr)
}

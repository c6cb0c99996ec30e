package publish

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// File names inside the outbox directory. pending.jsonl only grows (one
// record per line) until everything in it is acknowledged; "acked" holds the
// byte offset in pending.jsonl up to which the broker has acknowledged. Two
// small files keep every step a plain append or an atomic rename, so a crash
// at any point loses nothing: at worst a record is sent twice, and consumers
// de-duplicate by id.
const (
	pendingFile = "pending.jsonl"
	ackedFile   = "acked"
)

// fileRecord is one line of pending.jsonl.
type fileRecord struct {
	Kind    string    `json:"kind"`
	Payload []byte    `json:"payload"` // base64 in the file: payloads need not be JSON
	Queued  time.Time `json:"queued"`
}

// record is a pending message in memory. seq is only an in-process handle
// (it tells the sender whether the head has changed) and is not stored.
type record struct {
	seq     uint64
	kind    string
	payload []byte
	end     int64  // offset in pending.jsonl just past this record's line
	line    []byte // while the disk refuses it: the line still to write
}

// outbox is the durable queue of messages the broker has not acknowledged yet.
// It is safe for concurrent use.
//
// A record the disk refuses (full, or failing) is not lost: it waits in
// memory, at the tail of pending with its line still to write, and is
// sent to the broker like any other. Every later record waits behind it,
// so the file keeps the queue's order; each append, and the sender's
// retry, writes the waiting ones as soon as the disk takes them, and one
// the broker acknowledges first need not be written at all.
type outbox struct {
	mu      sync.Mutex
	dir     string
	f       file
	app     appender
	pending []record
	held    int // the last held records of pending are in memory only
	nextSeq uint64
	corrupt int // lines skipped as unreadable since open
	// resetAcked: pending.jsonl was emptied but the acked offset could not
	// be reset; nothing is written to the file until it is, or a restart
	// would take the new records for acknowledged ones.
	resetAcked bool
	failed     bool      // the last write failed (logged once until one succeeds)
	failedAt   time.Time // when: while failing, the disk is tried once a second
	log        *slog.Logger
}

// openOutbox opens (creating if needed) the outbox in dir and loads the
// records not yet acknowledged, in the order they were written. A disk
// that refuses records is logged to log (nil: not logged).
func openOutbox(dir string, log *slog.Logger) (*outbox, error) {
	if dir == "" {
		return nil, errors.New("publish: outbox directory is empty")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("publish: outbox directory: %w", err)
	}
	f, err := openFile(filepath.Join(dir, pendingFile))
	if err != nil {
		return nil, fmt.Errorf("publish: open outbox: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o := &outbox{dir: dir, f: f, app: appender{f: f}, nextSeq: 1, log: log}
	if err := o.load(); err != nil {
		f.Close()
		return nil, err
	}
	return o, nil
}

func (o *outbox) load() error {
	st, err := o.f.Stat()
	if err != nil {
		return fmt.Errorf("publish: outbox: %w", err)
	}
	o.app.size = st.Size()
	acked, err := o.readAcked()
	if err != nil {
		return err
	}
	if acked > o.app.size {
		// A crash after truncating pending.jsonl but before resetting the
		// offset: everything in the old file was acknowledged.
		acked = o.app.size
	}
	// A crash in the middle of an append leaves a line without its newline.
	// End it, so the next append starts a fresh line; the torn line is then
	// skipped and counted as corrupt.
	if o.app.size > 0 {
		last := make([]byte, 1)
		if _, err := o.f.ReadAt(last, o.app.size-1); err != nil {
			return fmt.Errorf("publish: outbox: %w", err)
		}
		if last[0] != '\n' {
			if err := o.write([]byte("\n")); err != nil {
				return err
			}
		}
	}
	recs, corrupt, err := readRecords(io.NewSectionReader(o.f, acked, o.app.size-acked), acked)
	if err != nil {
		return fmt.Errorf("publish: read outbox: %w", err)
	}
	o.corrupt = corrupt
	for _, r := range recs {
		r.seq = o.nextSeq
		o.nextSeq++
		o.pending = append(o.pending, r)
	}
	if len(o.pending) == 0 && o.app.size > 0 {
		return o.compact()
	}
	return nil
}

func (o *outbox) readAcked() (int64, error) {
	b, err := os.ReadFile(filepath.Join(o.dir, ackedFile))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("publish: outbox: %w", err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n < 0 {
		// Resending everything is safe (consumers de-duplicate); skipping
		// records would not be.
		return 0, nil
	}
	return n, nil
}

// readRecords parses outbox lines from r; base is the file offset of r's
// first byte. A line that does not decode to a known kind is skipped and
// counted, never fatal: one torn write must not hold back later alerts.
func readRecords(r io.Reader, base int64) (recs []record, corrupt int, err error) {
	br := bufio.NewReader(r)
	off := base
	for {
		line, rerr := br.ReadBytes('\n')
		off += int64(len(line))
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var fr fileRecord
			if json.Unmarshal(t, &fr) != nil || !validKind(fr.Kind) {
				corrupt++
			} else {
				recs = append(recs, record{kind: fr.Kind, payload: fr.Payload, end: off})
			}
		}
		if rerr == io.EOF {
			return recs, corrupt, nil
		}
		if rerr != nil {
			return recs, corrupt, rerr
		}
	}
}

// write appends b to pending.jsonl and fsyncs: append returns only once the
// record would survive a power cut.
func (o *outbox) write(b []byte) error {
	if err := o.app.write(b); err != nil {
		return fmt.Errorf("publish: write outbox: %w", err)
	}
	return nil
}

// append queues a message behind the others: on disk (fsync'd) when the
// disk takes it, otherwise in memory until it does. It fails only when
// the outbox is closed or maxHeld records already wait in memory.
func (o *outbox) append(kind string, payload []byte) error {
	line, err := json.Marshal(fileRecord{Kind: kind, Payload: payload, Queued: time.Now().UTC()})
	if err != nil {
		return fmt.Errorf("publish: encode outbox record: %w", err)
	}
	line = append(line, '\n')
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.f == nil {
		return errors.New("publish: outbox is closed")
	}
	o.flush(false)
	if o.held >= maxHeld {
		return fmt.Errorf("publish: outbox: %w (%d)", ErrHeldFull, o.held)
	}
	o.pending = append(o.pending, record{seq: o.nextSeq, kind: kind, payload: payload, line: line})
	o.nextSeq++
	o.held++
	o.flush(false)
	return nil
}

// flush writes the records waiting in memory, in order, all at once.
// While the disk fails it is tried once a second, unless force.
func (o *outbox) flush(force bool) {
	if o.held == 0 || !force && o.failed && time.Since(o.failedAt) < time.Second {
		return
	}
	if o.resetAcked {
		if err := o.writeAcked(0); err != nil {
			o.writeFailed(err)
			return
		}
		o.resetAcked = false
	}
	// One write and one fsync for them all: after a long outage of the
	// disk, thousands may wait.
	waiting := o.pending[len(o.pending)-o.held:]
	var batch []byte
	for _, r := range waiting {
		batch = append(batch, r.line...)
	}
	start := o.app.size
	if o.app.torn {
		start++ // the newline that ends the torn line
	}
	if err := o.write(batch); err != nil {
		o.writeFailed(err)
		return
	}
	for i := range waiting {
		start += int64(len(waiting[i].line))
		waiting[i].end, waiting[i].line = start, nil
	}
	o.held = 0
	if o.failed {
		o.log.Info("outbox: every record that waited in memory is on disk")
		o.failed = false
	}
}

func (o *outbox) writeFailed(err error) {
	if !o.failed {
		o.log.Error("outbox: the disk refused a record; it waits in memory, is sent to the broker all the same, and is written as soon as the disk takes it",
			"dir", o.dir, "err", err, "waiting", o.held)
	}
	o.failed, o.failedAt = true, time.Now()
}

// retry writes the records waiting in memory, if any; the sender calls it
// while some wait.
func (o *outbox) retry() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.f != nil {
		o.flush(false)
	}
}

// heldRecords is the number of records waiting in memory for the disk.
func (o *outbox) heldRecords() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.held
}

// head returns the oldest unacknowledged record.
func (o *outbox) head() (record, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.pending) == 0 {
		return record{}, false
	}
	return o.pending[0], true
}

// ack marks the head record, which must have sequence seq, as acknowledged
// by the broker.
func (o *outbox) ack(seq uint64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.f == nil {
		return errors.New("publish: outbox is closed")
	}
	if len(o.pending) == 0 || o.pending[0].seq != seq {
		return fmt.Errorf("publish: ack of record %d, which is not the head", seq)
	}
	head := o.pending[0]
	o.pending = o.pending[1:]
	if head.line != nil {
		o.held-- // acknowledged before the disk took it: nothing to write
	}
	if len(o.pending) == o.held {
		// Nothing pending is on disk: empty the file, which also frees
		// the space a full disk needs.
		if o.app.size == 0 && !o.resetAcked {
			return nil
		}
		return o.compact()
	}
	return o.writeAcked(head.end)
}

// compact empties pending.jsonl once everything is acknowledged, so the file
// stays small without rewriting records that are still pending. The file is
// truncated before the offset is reset; load treats an offset past the end
// as "all acknowledged", so a crash between the two steps loses nothing.
func (o *outbox) compact() error {
	if err := o.f.Truncate(0); err != nil {
		return fmt.Errorf("publish: compact outbox: %w", err)
	}
	if err := o.f.Sync(); err != nil {
		return fmt.Errorf("publish: compact outbox: %w", err)
	}
	o.app.size, o.app.torn = 0, false
	o.resetAcked = true
	if err := o.writeAcked(0); err != nil {
		return err
	}
	o.resetAcked = false
	return nil
}

// writeAcked replaces the offset file atomically (write, fsync, rename).
func (o *outbox) writeAcked(off int64) error {
	tmp := filepath.Join(o.dir, ackedFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return fmt.Errorf("publish: write acked offset: %w", err)
	}
	_, werr := f.WriteString(strconv.FormatInt(off, 10) + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("publish: write acked offset: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(o.dir, ackedFile)); err != nil {
		return fmt.Errorf("publish: write acked offset: %w", err)
	}
	if d, err := os.Open(o.dir); err == nil {
		d.Sync() // make the rename durable; not all file systems support it
		d.Close()
	}
	return nil
}

func (o *outbox) depth() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.pending)
}

func (o *outbox) corruptLines() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.corrupt
}

func (o *outbox) close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.f == nil {
		return nil
	}
	o.flush(true)
	for _, r := range o.pending[len(o.pending)-o.held:] {
		// Kept in the log at least.
		o.log.Error("outbox: record lost: the disk never took it and the broker never acknowledged it", "kind", r.kind, "record", string(r.payload))
	}
	err := o.f.Close()
	o.f = nil
	return err
}

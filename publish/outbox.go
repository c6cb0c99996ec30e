package publish

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	end     int64 // offset in pending.jsonl just past this record's line
}

// outbox is the durable queue of messages the broker has not acknowledged yet.
// It is safe for concurrent use.
type outbox struct {
	mu      sync.Mutex
	dir     string
	f       *os.File
	size    int64
	pending []record
	nextSeq uint64
	corrupt int // lines skipped as unreadable since open
}

// openOutbox opens (creating if needed) the outbox in dir and loads the
// records not yet acknowledged, in the order they were written.
func openOutbox(dir string) (*outbox, error) {
	if dir == "" {
		return nil, errors.New("publish: outbox directory is empty")
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("publish: outbox directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, pendingFile), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o640)
	if err != nil {
		return nil, fmt.Errorf("publish: open outbox: %w", err)
	}
	o := &outbox{dir: dir, f: f, nextSeq: 1}
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
	o.size = st.Size()
	acked, err := o.readAcked()
	if err != nil {
		return err
	}
	if acked > o.size {
		// A crash after truncating pending.jsonl but before resetting the
		// offset: everything in the old file was acknowledged.
		acked = o.size
	}
	// A crash in the middle of an append leaves a line without its newline.
	// End it, so the next append starts a fresh line; the torn line is then
	// skipped and counted as corrupt.
	if o.size > 0 {
		last := make([]byte, 1)
		if _, err := o.f.ReadAt(last, o.size-1); err != nil {
			return fmt.Errorf("publish: outbox: %w", err)
		}
		if last[0] != '\n' {
			if err := o.write([]byte("\n")); err != nil {
				return err
			}
		}
	}
	recs, corrupt, err := readRecords(io.NewSectionReader(o.f, acked, o.size-acked), acked)
	if err != nil {
		return fmt.Errorf("publish: read outbox: %w", err)
	}
	o.corrupt = corrupt
	for _, r := range recs {
		r.seq = o.nextSeq
		o.nextSeq++
		o.pending = append(o.pending, r)
	}
	if len(o.pending) == 0 && o.size > 0 {
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
	if _, err := o.f.Write(b); err != nil {
		return fmt.Errorf("publish: write outbox: %w", err)
	}
	if err := o.f.Sync(); err != nil {
		return fmt.Errorf("publish: sync outbox: %w", err)
	}
	o.size += int64(len(b))
	return nil
}

// append stores a message durably and queues it behind the others.
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
	if err := o.write(line); err != nil {
		return err
	}
	o.pending = append(o.pending, record{seq: o.nextSeq, kind: kind, payload: payload, end: o.size})
	o.nextSeq++
	return nil
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
	end := o.pending[0].end
	o.pending = o.pending[1:]
	if len(o.pending) == 0 {
		return o.compact()
	}
	return o.writeAcked(end)
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
	o.size = 0
	return o.writeAcked(0)
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
	err := o.f.Close()
	o.f = nil
	return err
}

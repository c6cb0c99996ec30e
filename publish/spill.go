package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
)

// file is what an append-only line file needs of the file system: an
// *os.File, or in tests one whose disk is full.
type file interface {
	io.Writer
	io.ReaderAt
	Sync() error
	Truncate(size int64) error
	Stat() (os.FileInfo, error)
	Close() error
}

// openFile opens the files of the outbox and Lines; tests replace it to
// give them a full disk.
var openFile = func(path string) (file, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o640)
}

// ErrHeldFull is wrapped by the error of a write refused because the disk
// has refused so many records that no more can wait in memory.
var ErrHeldFull = errors.New("too many records wait in memory for a disk that refuses them")

// maxHeld bounds the records that wait in memory for a failing disk, in
// the outbox and in Lines each: a day of rounds, a few MiB. Beyond it a
// write fails, and the caller logs the record.
const maxHeld = 20000

// appender appends whole lines to a file and, unless noSync, makes each
// durable (fsync) before reporting it written. A write that fails (a full
// disk, an I/O error) leaves no torn line behind: the file is cut back to
// where it was, or, when even that fails, the next line starts with a
// newline, so that the torn one reads as a line of its own (and is skipped
// as corrupt).
type appender struct {
	f      file
	size   int64
	torn   bool
	noSync bool
}

func (a *appender) write(line []byte) error {
	if a.torn {
		line = append([]byte{'\n'}, line...)
	}
	_, err := a.f.Write(line)
	if err == nil && !a.noSync {
		err = a.f.Sync()
	}
	if err == nil {
		a.size += int64(len(line))
		a.torn = false
		return nil
	}
	if terr := a.f.Truncate(a.size); terr != nil {
		a.torn = true
		if st, serr := a.f.Stat(); serr == nil {
			a.size = st.Size()
		}
	}
	return err
}

// Lines is an append-only file of lines (monitor live's --out results)
// that loses no line to a failing disk: a line the file system refuses
// waits in memory, in order, and is written by the next Write, or by the
// retry every second, as soon as the disk takes it. Write fails only when
// maxHeld lines wait. Lines are not fsync'd (the outbox is what survives a
// power cut): a written line survives the process, and the frame loop that
// writes them does not wait for the disk. It is safe for concurrent use; the caller must call
// Close, which writes what it can and reports what it could not.
type Lines struct {
	path string
	log  *slog.Logger

	mu       sync.Mutex
	a        appender
	held     [][]byte
	failed   bool      // the last attempt failed: its error was logged
	failedAt time.Time // when: while failing, the disk is tried once a second
	closed   bool

	cancel context.CancelFunc
	done   chan struct{}
}

// OpenLines opens (creating if needed) the file at path for appending.
// Failed writes are logged to log (nil: not logged).
func OpenLines(path string, log *slog.Logger) (*Lines, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Lines{path: path, log: log, a: appender{f: f, size: st.Size(), noSync: true}, cancel: cancel, done: make(chan struct{})}
	go l.retryLoop(ctx)
	return l, nil
}

// Write appends p, which must be whole lines. It returns len(p) once the
// lines are on disk or waiting in memory for it.
func (l *Lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, fmt.Errorf("%s: closed", l.path)
	}
	l.flush(false)
	if len(l.held) >= maxHeld {
		return 0, fmt.Errorf("%s: %w (%d)", l.path, ErrHeldFull, len(l.held))
	}
	l.held = append(l.held, append([]byte(nil), p...))
	l.flush(false)
	return len(p), nil
}

// Held is the number of writes waiting in memory for the disk.
func (l *Lines) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.held)
}

// flush writes the held lines, all at once, with one fsync. While the
// disk fails it is tried once a second, unless force.
func (l *Lines) flush(force bool) {
	if len(l.held) == 0 || !force && l.failed && time.Since(l.failedAt) < time.Second {
		return
	}
	var batch []byte
	for _, line := range l.held {
		batch = append(batch, line...)
	}
	if err := l.a.write(batch); err != nil {
		if !l.failed {
			l.log.Error("results file: the disk refused a record; it waits in memory and is written as soon as the disk takes it",
				"file", l.path, "err", err, "waiting", len(l.held))
		}
		l.failed, l.failedAt = true, time.Now()
		return
	}
	if l.failed {
		l.log.Info("results file: every record that waited is written", "file", l.path, "records", len(l.held))
	}
	l.held, l.failed = nil, false
}

func (l *Lines) retryLoop(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.mu.Lock()
			if len(l.held) > 0 {
				l.flush(false)
			}
			l.mu.Unlock()
		}
	}
}

// Close stops the retries, writes what it can, and closes the file. Lines
// still waiting are lost, and the error says how many.
func (l *Lines) Close() error {
	l.cancel()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	l.flush(true)
	for _, line := range l.held {
		// Kept in the log at least.
		l.log.Error("results file: record never written", "file", l.path, "record", string(line))
	}
	err := l.a.f.Close()
	if n := len(l.held); n > 0 {
		err = errors.Join(fmt.Errorf("%s: %d records never reached the disk", l.path, n), err)
	}
	return err
}

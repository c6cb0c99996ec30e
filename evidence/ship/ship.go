// Package ship sends alerts' evidence files (the snapshot and the clip
// that package evidence writes on the table-side box) to the surveillance
// consoles over MQTT, on <prefix>/<table>/evidence.
//
// A message is one file: a JSON header line (Header: which alert, which
// file, its content type), a newline, then the file's bytes. The files do
// not go through the monitor's outbox (they are on disk already, and a
// file of megabytes must not hold up the alerts queued behind it): the
// Shipper keeps each path until the broker has acknowledged the file.
//
// A snapshot exists when the alert is raised; a clip appears a few seconds
// later. Send queues both paths, and the Shipper publishes each file once
// it is there and the broker takes it: Run tries every half second (live),
// Flush once (the end of a replay, when every clip is written). A file not
// sent within Wait (the file never appeared, or the broker was away all
// that time) is given up, logged and counted; it stays on the box's disk.
//
//	sh := ship.New(publisher, logger)
//	go sh.Run(ctx)                      // ends with ctx
//	sh.Send(alert.ID, paths.Snapshot, paths.Clip)
package ship

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Kind is the topic's last part: <prefix>/<table>/evidence.
const Kind = "evidence"

// MaxBytes bounds one file: an 8 s clip is a few MB.
const MaxBytes = 64 << 20

// Header says what file an evidence message carries.
type Header struct {
	Alert string `json:"alert"`
	// File is "snapshot" (image/jpeg) or "clip" (video/mp4).
	File        string `json:"file"`
	ContentType string `json:"content_type"`
}

// ContentTypes is the content type of each file.
var ContentTypes = map[string]string{"snapshot": "image/jpeg", "clip": "video/mp4"}

// Encode is the payload of an evidence message.
func Encode(h Header, data []byte) ([]byte, error) {
	line, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	return append(append(line, '\n'), data...), nil
}

// ErrMalformed is what Decode's errors wrap.
var ErrMalformed = errors.New("malformed evidence message")

// Decode reads an evidence message and checks its header.
func Decode(payload []byte) (Header, []byte, error) {
	line, data, ok := bytes.Cut(payload, []byte{'\n'})
	if !ok {
		return Header{}, nil, fmt.Errorf("%w: no header line", ErrMalformed)
	}
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return Header{}, nil, fmt.Errorf("%w: header: %v", ErrMalformed, err)
	}
	want, ok := ContentTypes[h.File]
	switch {
	case h.Alert == "":
		return h, nil, fmt.Errorf("%w: no alert in the header", ErrMalformed)
	case !ok:
		return h, nil, fmt.Errorf("%w: file %q: want snapshot or clip", ErrMalformed, h.File)
	case h.ContentType != want:
		return h, nil, fmt.Errorf("%w: %s of type %q: want %s", ErrMalformed, h.File, h.ContentType, want)
	case len(data) == 0 || len(data) > MaxBytes:
		return h, nil, fmt.Errorf("%w: %s of %d bytes: want 1 to %d", ErrMalformed, h.File, len(data), MaxBytes)
	}
	return h, data, nil
}

// Publisher sends a message on <prefix>/<table>/<kind> and returns once
// the broker has it, or an error; the monitor's publish.Publisher is one.
type Publisher interface {
	PublishDirect(ctx context.Context, kind string, payload []byte, timeout time.Duration) error
}

// Shipper publishes evidence files once they exist. It is safe for
// concurrent use.
type Shipper struct {
	pub Publisher
	log *slog.Logger
	// Wait is how long a file may take to appear and be sent before it is
	// given up; New sets 10 minutes.
	Wait time.Duration

	mu      sync.Mutex
	pending []item
	sent    atomic.Int64
	failed  atomic.Int64
}

type item struct {
	h     Header
	path  string
	since time.Time
}

// New returns a Shipper publishing through pub; log may be nil.
func New(pub Publisher, log *slog.Logger) *Shipper {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Shipper{pub: pub, log: log, Wait: 10 * time.Minute}
}

// Send queues an alert's evidence files; an empty path is skipped.
func (s *Shipper) Send(alertID, snapshot, clip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for file, path := range map[string]string{"snapshot": snapshot, "clip": clip} {
		if path != "" {
			s.pending = append(s.pending, item{h: Header{Alert: alertID, File: file, ContentType: ContentTypes[file]}, path: path, since: time.Now()})
		}
	}
}

// Sent and Failed count the files published, and those given up.
func (s *Shipper) Sent() int64   { return s.sent.Load() }
func (s *Shipper) Failed() int64 { return s.failed.Load() }

// Pending is the number of files waiting to appear or to be published.
func (s *Shipper) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// Run publishes files as they appear, until ctx ends.
func (s *Shipper) Run(ctx context.Context) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.pass(ctx, false)
		}
	}
}

// Flush publishes every queued file that exists, and gives up the others.
func (s *Shipper) Flush(ctx context.Context) { s.pass(ctx, true) }

// pass tries every pending file once; last gives up those not there.
func (s *Shipper) pass(ctx context.Context, last bool) {
	s.mu.Lock()
	todo := s.pending
	s.pending = nil
	s.mu.Unlock()
	var keep []item
	for _, it := range todo {
		err := s.ship(ctx, it)
		var retry *retryError
		switch {
		case err == nil:
			s.sent.Add(1)
		case (errors.Is(err, os.ErrNotExist) || errors.As(err, &retry)) && !last && time.Since(it.since) < s.Wait && ctx.Err() == nil:
			keep = append(keep, it) // the clip is still being written, or the broker away
		default:
			s.failed.Add(1)
			s.log.Warn("evidence not sent to the consoles", "alert", it.h.Alert, "file", it.path, "err", err)
		}
	}
	s.mu.Lock()
	s.pending = append(keep, s.pending...)
	s.mu.Unlock()
}

func (s *Shipper) ship(ctx context.Context, it item) error {
	st, err := os.Stat(it.path)
	if err != nil {
		return err
	}
	if st.Size() > MaxBytes {
		return fmt.Errorf("%d bytes, over the %d an evidence message carries", st.Size(), MaxBytes)
	}
	data, err := os.ReadFile(it.path)
	if err != nil {
		return err
	}
	payload, err := Encode(it.h, data)
	if err != nil {
		return err
	}
	if err := s.pub.PublishDirect(ctx, Kind, payload, 30*time.Second); err != nil {
		return &retryError{err}
	}
	return nil
}

// retryError is a file the broker did not take; it is tried again.
type retryError struct{ err error }

func (e *retryError) Error() string { return "sending: " + e.err.Error() }
func (e *retryError) Unwrap() error { return e.err }

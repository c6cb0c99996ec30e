package ship

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// fakePublisher collects what is published.
type fakePublisher struct {
	mu   sync.Mutex
	msgs [][]byte
	fail error
}

var _ Publisher = (*fakePublisher)(nil)

func (f *fakePublisher) PublishDirect(_ context.Context, kind string, payload []byte, _ time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if kind != Kind {
		return errors.New("wrong kind " + kind)
	}
	if f.fail != nil {
		return f.fail
	}
	f.msgs = append(f.msgs, payload)
	return nil
}

func TestEncodeDecode(t *testing.T) {
	data := []byte("\xff\xd8\xff\xe0\nJFIF\n")
	p, err := Encode(Header{Alert: "t:1:3:21+3:overpaid", File: "snapshot", ContentType: "image/jpeg"}, data)
	if err != nil {
		t.Fatal(err)
	}
	h, got, err := Decode(p)
	if err != nil || h.Alert != "t:1:3:21+3:overpaid" || h.File != "snapshot" || string(got) != string(data) {
		t.Errorf("Decode(Encode) = %+v %q, %v", h, got, err)
	}
	bad := []string{
		"no newline",
		"{not json\nxx",
		"{\"file\":\"clip\",\"content_type\":\"video/mp4\"}\nxx",
		"{\"alert\":\"a\",\"file\":\"../../etc/passwd\",\"content_type\":\"video/mp4\"}\nxx",
		"{\"alert\":\"a\",\"file\":\"clip\",\"content_type\":\"text/html\"}\nxx",
		"{\"alert\":\"a\",\"file\":\"clip\",\"content_type\":\"video/mp4\"}\n",
	}
	for _, b := range bad {
		if _, _, err := Decode([]byte(b)); !errors.Is(err, ErrMalformed) {
			t.Errorf("Decode(%q) error = %v, want ErrMalformed", b, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	p, _ := Encode(Header{Alert: "a", File: "clip", ContentType: "video/mp4"}, []byte("mp4"))
	f.Add(p)
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, payload []byte) {
		h, data, err := Decode(payload)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if h.Alert == "" || ContentTypes[h.File] != h.ContentType || len(data) == 0 {
			t.Errorf("Decode accepted %+v with %d bytes", h, len(data))
		}
	})
}

func TestShipper(t *testing.T) {
	dir := t.TempDir()
	snap, clip := filepath.Join(dir, "a.jpg"), filepath.Join(dir, "a.mp4")
	os.WriteFile(snap, []byte("jpeg"), 0o600)
	pub := &fakePublisher{}
	s := New(pub, nil)
	s.Send("a", snap, clip)
	s.pass(context.Background(), false)
	if len(pub.msgs) != 1 || s.Pending() != 1 {
		t.Fatalf("after the first pass: %d sent, %d pending; want the snapshot sent and the clip waiting", len(pub.msgs), s.Pending())
	}
	os.WriteFile(clip, []byte("mp4"), 0o600) // the clip is written
	s.pass(context.Background(), false)
	if len(pub.msgs) != 2 || s.Pending() != 0 || s.Sent() != 2 {
		t.Fatalf("after the clip appeared: %d sent, %d pending", len(pub.msgs), s.Pending())
	}
	if h, data, err := Decode(pub.msgs[1]); err != nil || h.File != "clip" || string(data) != "mp4" {
		t.Errorf("the clip's message = %+v %q, %v", h, data, err)
	}

	// A clip that never appears is given up after Wait, or by Flush.
	s.Send("b", "", filepath.Join(dir, "never.mp4"))
	s.Wait = 0
	s.pass(context.Background(), false)
	s.Send("c", "", filepath.Join(dir, "never2.mp4"))
	s.Wait = time.Hour
	s.Flush(context.Background())
	if s.Pending() != 0 || s.Failed() != 2 {
		t.Errorf("after giving up: %d pending, %d failed; want 0 and 2", s.Pending(), s.Failed())
	}
	// A broker away: the file is kept and sent once it is back, or given
	// up at the last pass.
	pub.fail = errors.New("not connected")
	s.Send("d", snap, "")
	s.pass(context.Background(), false)
	if s.Pending() != 1 || s.Failed() != 2 {
		t.Errorf("with the broker away: %d pending, %d failed; want the file kept", s.Pending(), s.Failed())
	}
	pub.fail = nil
	s.pass(context.Background(), false)
	if s.Pending() != 0 || s.Sent() != 3 {
		t.Errorf("with the broker back: %d pending, %d sent; want it sent", s.Pending(), s.Sent())
	}
	pub.fail = errors.New("not connected")
	s.Send("e", snap, "")
	s.Flush(context.Background())
	if s.Pending() != 0 || s.Failed() != 3 {
		t.Errorf("Flush with the broker away: %d pending, %d failed; want it given up", s.Pending(), s.Failed())
	}
}

func TestRunEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { New(&fakePublisher{}, nil).Run(ctx); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not end with its context")
	}
}

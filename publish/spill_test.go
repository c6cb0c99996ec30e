package publish

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"bjmonitor/internal/mqtttest"
)

// fullDisk is a file on a disk that can fill up: while full, a write
// stores half its bytes and fails with ENOSPC, as a real one can.
type fullDisk struct {
	file
	full *atomic.Bool
}

func (f fullDisk) Write(b []byte) (int, error) {
	if f.full.Load() {
		n, _ := f.file.Write(b[:len(b)/2])
		return n, &os.PathError{Op: "write", Path: "fake", Err: syscall.ENOSPC}
	}
	return f.file.Write(b)
}

// withFullDisk makes the files the outbox and Lines open fillable; the
// returned flag fills and frees the disk.
func withFullDisk(t *testing.T) *atomic.Bool {
	full := new(atomic.Bool)
	orig := openFile
	openFile = func(path string) (file, error) {
		f, err := orig(path)
		if err != nil {
			return nil, err
		}
		return fullDisk{f, full}, nil
	}
	t.Cleanup(func() { openFile = orig })
	return full
}

// collect reads alert ids from sub until n distinct ones arrived, and
// returns them in order of first arrival with the number of duplicates.
func collect(t *testing.T, sub *mqtttest.Subscriber, n int) (ids []string, dups int) {
	t.Helper()
	seen := map[string]bool{}
	deadline := time.After(20 * time.Second)
	for len(ids) < n {
		select {
		case m := <-sub.C():
			id := alertID(t, m.Payload)
			if seen[id] {
				dups++
				continue
			}
			seen[id] = true
			ids = append(ids, id)
		case <-deadline:
			t.Fatalf("%d of %d alerts arrived: %v", len(ids), n, ids)
		}
	}
	for _, m := range sub.Messages(300 * time.Millisecond) {
		if seen[alertID(t, m.Payload)] {
			dups++
		}
	}
	return ids, dups
}

func wantIDs(from, to int) string {
	var ids []string
	for i := from; i < to; i++ {
		ids = append(ids, fmt.Sprintf("alert-%03d", i))
	}
	return fmt.Sprint(ids)
}

// TestFullDiskLosesNothing fills the outbox's disk while alerts are
// published: with the broker up they go out all the same; with it down
// they wait in memory, reach the disk once it is freed, and survive a
// restart of the publisher. Every alert arrives once.
func TestFullDiskLosesNothing(t *testing.T) {
	full := withFullDisk(t)
	b := mqtttest.NewMosquitto(t, "persistence true\n")
	b.Start()
	sub := mqtttest.Subscribe(t, b.URL(), "sub-full", "test/t1/alert", false)
	dir := t.TempDir()
	cfg := testConfig(t, b.URL(), dir)
	log, logs := testLogger()
	cfg.Log = log
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx := context.Background()
	publish := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if err := p.Publish(ctx, KindAlert, alertPayload(i)); err != nil {
				t.Fatalf("Publish %d: %v", i, err)
			}
		}
	}
	publish(0, 3)
	full.Store(true)
	publish(3, 10) // the broker takes them straight from memory
	ids, dups := collect(t, sub, 10)
	if fmt.Sprint(ids) != wantIDs(0, 10) || dups != 0 {
		t.Errorf("with a full disk and the broker up: %v, %d duplicates; want %s once each", ids, dups, wantIDs(0, 10))
	}
	waitFor(t, 5*time.Second, "outbox drained", func() bool { return p.OutboxDepth() == 0 })

	b.Stop()
	waitFor(t, 5*time.Second, "publisher sees the broker gone", func() bool { return !p.Connected() })
	publish(10, 15)
	if got := p.OutboxHeld(); got != 5 {
		t.Errorf("OutboxHeld with a full disk and no broker = %d, want 5", got)
	}
	full.Store(false)
	waitFor(t, 3*time.Second, "the held records written once the disk is freed", func() bool { return p.OutboxHeld() == 0 })
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	b.Start()
	p2, err := New(cfg) // a restart: only the disk holds them now
	if err != nil {
		t.Fatalf("New again: %v", err)
	}
	defer p2.Close()
	ids, dups = collect(t, sub, 5)
	if fmt.Sprint(ids) != wantIDs(10, 15) || dups != 0 {
		t.Errorf("after the disk was freed and a restart: %v, %d duplicates; want %s once each", ids, dups, wantIDs(10, 15))
	}
	if text := logs.String(); !strings.Contains(text, "the disk refused a record") || !strings.Contains(text, "every record that waited in memory is on disk") {
		t.Errorf("the full disk and its recovery are not logged:\n%s", text)
	}
}

// TestOutboxHeldBound: past maxHeld records waiting for the disk, an
// append fails, saying why, rather than growing without end.
func TestOutboxHeldBound(t *testing.T) {
	full := withFullDisk(t)
	o, err := openOutbox(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	full.Store(true)
	for i := range maxHeld {
		if err := o.append(KindAlert, alertPayload(i)); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if err := o.append(KindAlert, alertPayload(maxHeld)); !errors.Is(err, ErrHeldFull) {
		t.Errorf("append past the bound: %v, want ErrHeldFull", err)
	}
	full.Store(false)
	waitFor(t, 3*time.Second, "the held records written", func() bool { o.retry(); return o.heldRecords() == 0 })
	if o.heldRecords() != 0 || o.depth() != maxHeld {
		t.Errorf("after the disk was freed: %d held, %d pending; want 0 and %d", o.heldRecords(), o.depth(), maxHeld)
	}
}

// TestLinesFullDisk fills the disk under a results file: writes still
// succeed, wait in memory, and reach the file, in order and whole, once
// the disk is freed.
func TestLinesFullDisk(t *testing.T) {
	full := withFullDisk(t)
	path := filepath.Join(t.TempDir(), "results.jsonl")
	l, err := OpenLines(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	write := func(i int) {
		line := fmt.Sprintf(`{"n":%d}`+"\n", i)
		want.WriteString(line)
		if _, err := l.Write([]byte(line)); err != nil {
			t.Fatalf("Write %d: %v", i, err)
		}
	}
	write(0)
	full.Store(true)
	for i := 1; i < 6; i++ {
		write(i)
	}
	if l.Held() != 5 {
		t.Errorf("Held with a full disk = %d, want 5", l.Held())
	}
	full.Store(false)
	waitFor(t, 3*time.Second, "the held lines written", func() bool { return l.Held() == 0 })
	write(6)
	if err := l.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("results file:\n%s\nwant:\n%s", got, want.String())
	}
}

// TestOutboxOnFullTmpfs does the same on a real, tiny tmpfs, where the
// test may mount one (root, outside a restricted container).
func TestOutboxOnFullTmpfs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	b := mqtttest.NewMosquitto(t, "persistence true\n")
	b.Start()
	sub := mqtttest.Subscribe(t, b.URL(), "sub-tmpfs", "test/t1/alert", false)
	cfg := testConfig(t, b.URL(), filepath.Join(dir, "outbox"))
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer p.Close()
	b.Stop()
	waitFor(t, 5*time.Second, "publisher sees the broker gone", func() bool { return !p.Connected() })
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := f.Write(make([]byte, 1024)); err != nil {
			break // full
		}
	}
	f.Close()
	for i := range 10 {
		if err := p.Publish(context.Background(), KindAlert, alertPayload(i)); err != nil {
			t.Fatalf("Publish %d on a full tmpfs: %v", i, err)
		}
	}
	held := p.OutboxHeld()
	if held == 0 {
		t.Error("nothing held in memory on a full tmpfs")
	}
	os.Remove(filler)
	waitFor(t, 3*time.Second, "the held records written", func() bool { return p.OutboxHeld() == 0 })
	b.Start()
	ids, dups := collect(t, sub, 10)
	if fmt.Sprint(ids) != wantIDs(0, 10) || dups != 0 {
		t.Errorf("after the tmpfs was freed: %v, %d duplicates; want %s once each", ids, dups, wantIDs(0, 10))
	}
	t.Logf("a 64 KiB tmpfs filled: %d of 10 alerts waited in memory; all 10 arrived once", held)
}

// TestOutboxMixedDiskAndMemory acknowledges records some of which reached
// the disk and some of which wait in memory, and reopens the outbox at
// each step: what is pending on disk is exactly what was not yet
// acknowledged and had been written.
func TestOutboxMixedDiskAndMemory(t *testing.T) {
	full := withFullDisk(t)
	dir := t.TempDir()
	o, err := openOutbox(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { o.close() }()
	for i := range 3 {
		if err := o.append(KindAlert, alertPayload(i)); err != nil {
			t.Fatal(err)
		}
	}
	full.Store(true)
	for i := 3; i < 5; i++ {
		if err := o.append(KindAlert, alertPayload(i)); err != nil {
			t.Fatal(err)
		}
	}
	onDisk := func() string {
		t.Helper()
		o2, err := openOutbox(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer o2.close()
		var ids []string
		for _, r := range o2.pending {
			ids = append(ids, alertID(t, string(r.payload)))
		}
		return fmt.Sprint(ids)
	}
	ack := func() {
		t.Helper()
		r, _ := o.head()
		if err := o.ack(r.seq); err != nil {
			t.Fatalf("ack %s: %v", r.payload, err)
		}
	}
	steps := []struct {
		do   func()
		want string
	}{
		{func() {}, wantIDs(0, 3)},
		{ack, wantIDs(1, 3)},
		{func() { ack(); ack() }, "[]"}, // only held records left: the file is emptied
		{func() { full.Store(false); o.flush(true) }, wantIDs(3, 5)},
		{ack, wantIDs(4, 5)},
		{func() { full.Store(true); o.append(KindAlert, alertPayload(5)); ack() }, "[]"},
		{ack, "[]"}, // acknowledged before the disk took it: never written
		{func() { full.Store(false); o.flush(true) }, "[]"},
	}
	for i, s := range steps {
		s.do()
		if got := onDisk(); got != s.want {
			t.Errorf("step %d: on disk %s, want %s", i, got, s.want)
		}
	}
	if o.depth() != 0 || o.heldRecords() != 0 {
		t.Errorf("at the end: depth %d, held %d; want 0 and 0", o.depth(), o.heldRecords())
	}
}

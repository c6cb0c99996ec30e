package publish

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestOutboxReadsTestdata(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/outbox.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, pendingFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := openOutbox(dir, nil)
	if err != nil {
		t.Fatalf("openOutbox: %v", err)
	}
	defer o.close()
	// Four good lines; a bad base64 payload, an unknown kind, garbage and a
	// torn last line are skipped and counted.
	if got, want := o.depth(), 4; got != want {
		t.Errorf("depth = %d, want %d", got, want)
	}
	if got, want := o.corruptLines(), 4; got != want {
		t.Errorf("corrupt lines = %d, want %d", got, want)
	}
	// The torn line got its newline, so a new append is a line of its own.
	if err := o.append(KindAlert, []byte(`{"id":"new"}`)); err != nil {
		t.Fatal(err)
	}
	o.close()
	o2, err := openOutbox(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o2.close()
	if got, want := o2.depth(), 5; got != want {
		t.Errorf("after append and reopen: depth = %d, want %d", got, want)
	}
	var kinds []string
	for o2.depth() > 0 {
		r, _ := o2.head()
		kinds = append(kinds, r.kind+":"+string(r.payload))
		if err := o2.ack(r.seq); err != nil {
			t.Fatal(err)
		}
	}
	want := `[alert:{"id": "a0"} round:{"id": "a1"} outcome:{"id": "a2"} alert:{"id":"a9"} alert:{"id":"new"}]`
	if got := fmt.Sprint(kinds); got != want {
		t.Errorf("records = %s, want %s", got, want)
	}
}

func TestOutboxAckSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	o, err := openOutbox(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := o.append(KindAlert, fmt.Appendf(nil, "a%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := o.head()
	if err := o.ack(r.seq); err != nil {
		t.Fatal(err)
	}
	o.close()

	o, err = openOutbox(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	if got := o.depth(); got != 2 {
		t.Fatalf("depth after reopen = %d, want 2", got)
	}
	for _, want := range []string{"a1", "a2"} {
		r, _ := o.head()
		if string(r.payload) != want {
			t.Errorf("head = %q, want %q", r.payload, want)
		}
		if err := o.ack(r.seq); err != nil {
			t.Fatal(err)
		}
	}
	// Everything acknowledged: the file is compacted to nothing.
	st, err := os.Stat(filepath.Join(dir, pendingFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != 0 {
		t.Errorf("pending.jsonl is %d bytes after all acks, want 0", st.Size())
	}
}

// FuzzReadRecords: any outbox content is read without a crash, every
// non-blank line is either a record or counted as corrupt, and records have a
// known kind and increasing end offsets.
func FuzzReadRecords(f *testing.F) {
	data, err := os.ReadFile("testdata/outbox.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, line := range bytes.Split(data, []byte("\n")) {
		f.Add(line)
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, corrupt, err := readRecords(bytes.NewReader(b), 0)
		if err != nil {
			t.Fatalf("readRecords: %v", err)
		}
		lines := 0
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if len(recs)+corrupt != lines {
			t.Errorf("%d records + %d corrupt != %d non-blank lines", len(recs), corrupt, lines)
		}
		var last int64
		for _, r := range recs {
			if !validKind(r.kind) {
				t.Errorf("record with kind %q", r.kind)
			}
			if r.end <= last || r.end > int64(len(b)) {
				t.Errorf("end offset %d after %d (len %d)", r.end, last, len(b))
			}
			last = r.end
		}
	})
}

package controller

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestJudged: the ids saved are read back by the next OpenJudged, only the
// last JudgedMax of them; a torn or corrupt file holds none, says so, and
// is written afresh at the next Save.
func TestJudged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "controller.judged")
	j, ids, err := OpenJudged(path)
	if err != nil || len(ids) != 0 {
		t.Fatalf("OpenJudged with no file = %q, %v; want none, no error", ids, err)
	}
	var many []string
	for i := range JudgedMax + 10 {
		many = append(many, strconv.Itoa(1000+i))
	}
	if err := j.Save(many); err != nil {
		t.Fatal(err)
	}
	if _, got, err := OpenJudged(path); err != nil || !slices.Equal(got, many[10:]) {
		t.Errorf("OpenJudged after Save = %q, %v; want the last %d ids", got, err, JudgedMax)
	}

	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data string
	}{
		{"torn", string(good[:len(good)/2])},
		{"no newline", strings.TrimSuffix(string(good), "\n")},
		{"a byte changed", strings.Replace(string(good), "1010", "1011", 1)},
		{"not hex", "zzzzzzzz " + string(good[9:])},
		{"two lines", string(good) + string(good)},
		{"an empty id", string(mustJudgedFile(t, []string{"1000", ""}))},
		{"not an array", string(mustJudgedFile(t, nil)[:9]) + "{}\n"},
	} {
		if err := os.WriteFile(path, []byte(tt.data), 0o640); err != nil {
			t.Fatal(err)
		}
		j, ids, err := OpenJudged(path)
		if !errors.Is(err, ErrJudgedCorrupt) || j == nil || len(ids) != 0 {
			t.Errorf("%s: OpenJudged = %v, %q, %v; want a Judged, no id, ErrJudgedCorrupt", tt.name, j != nil, ids, err)
			continue
		}
		if err := j.Save(nil); err != nil {
			t.Fatal(err)
		}
		if _, ids, err := OpenJudged(path); err != nil || len(ids) != 0 {
			t.Errorf("%s: after Save(nil) = %q, %v; want an empty file that reads", tt.name, ids, err)
		}
	}
}

func mustJudgedFile(tb testing.TB, ids []string) []byte {
	tb.Helper()
	b, err := judgedFile(ids)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// FuzzParseJudged: any contents either read as ids (non-empty, at most
// JudgedMax, that write back to a file that reads the same) or are an
// error wrapping ErrJudgedCorrupt; never a panic.
func FuzzParseJudged(f *testing.F) {
	seed, err := os.ReadFile("testdata/judged")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)-1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		ids, err := ParseJudged(data)
		if err != nil {
			if !errors.Is(err, ErrJudgedCorrupt) || ids != nil {
				t.Fatalf("ParseJudged = %q, %v; want no id and ErrJudgedCorrupt", ids, err)
			}
			return
		}
		if len(ids) > JudgedMax || slices.Contains(ids, "") {
			t.Fatalf("ParseJudged = %q: over %d, or an empty id", ids, JudgedMax)
		}
		again, err := ParseJudged(mustJudgedFile(t, ids))
		if err != nil || !slices.Equal(again, ids) && len(ids)+len(again) > 0 {
			t.Fatalf("ids %q written and read again = %q, %v", ids, again, err)
		}
	})
}

package classify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readValidMetadata(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "metadata-valid.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestParseMetadataFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "metadata-*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no metadata in testdata: %v", err)
	}
	files = append(files, filepath.Join("..", "..", "models", "cardindex", "cardindex.json"))
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ParseMetadata(b); err != nil {
				t.Errorf("ParseMetadata(%s) = %v, want nil", p, err)
			}
		})
	}
}

func TestParseMetadataRejects(t *testing.T) {
	valid := readValidMetadata(t)
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		want   string // part of the error
	}{
		{"other format", func(m map[string]any) { m["format"] = "bjmonitor-cardindex/2" }, "format"},
		{"model path", func(m map[string]any) { m["model"] = "../x.onnx" }, "model"},
		{"short sha", func(m map[string]any) { m["sha256"] = "abc" }, "sha256"},
		{"53 classes", func(m map[string]any) { m["classes"] = m["classes"].([]any)[1:] }, "count"},
		{"duplicate class", func(m map[string]any) { c := m["classes"].([]any); c[1] = c[0] }, "twice"},
		{"lower-case card", func(m map[string]any) { c := m["classes"].([]any); c[0] = "as" }, "class"},
		{"unknown class", func(m map[string]any) { c := m["classes"].([]any); c[53] = "joker" }, "class"},
		{"input size", func(m map[string]any) { m["input"].(map[string]any)["cols"] = 32 }, "input size"},
		{"RGB", func(m map[string]any) { m["input"].(map[string]any)["order"] = "RGB" }, "order"},
		{"zero scale", func(m map[string]any) { m["input"].(map[string]any)["scale"] = 0 }, "scale"},
		{"no output", func(m map[string]any) { m["input"].(map[string]any)["output"] = "" }, "output"},
		{"other crop", func(m map[string]any) { m["crop"].(map[string]any)["width_mm"] = 11 }, "crop"},
		{"held-out deck trained on", func(m map[string]any) {
			m["training_decks"] = append(m["training_decks"].([]any), m["heldout_decks"].([]any)[0])
		}, "held out"},
		{"unknown field", func(m map[string]any) { m["colour"] = "red" }, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(valid, &m); err != nil {
				t.Fatal(err)
			}
			tc.change(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseMetadata(b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseMetadata(%s) = %v, want an error about %q", tc.name, err, tc.want)
			}
		})
	}
	for _, s := range []string{"", "{", "null", "[]", `{"format":1}`, string(valid) + "{}"} {
		if _, err := ParseMetadata([]byte(s)); err == nil {
			t.Errorf("ParseMetadata(%.20q) = nil, want an error", s)
		}
	}
}

// FuzzParseMetadata checks that ParseMetadata never panics, and that what
// it accepts survives a round trip through json.Marshal unchanged.
func FuzzParseMetadata(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "metadata-*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"format":"bjmonitor-cardindex/1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMetadata(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal of parsed metadata: %v", err)
		}
		m2, err := ParseMetadata(again)
		if err != nil {
			t.Fatalf("ParseMetadata(Marshal(m)) = %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Errorf("round trip changed the metadata:\n%+v\n%+v", m, m2)
		}
	})
}

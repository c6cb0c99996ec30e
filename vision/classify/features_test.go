package classify

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

// featuresPath is the committed features model, relative to this package.
var featuresPath = filepath.Join("..", "..", "models", "cardindex", "cardindex-features.onnx")

func openEmbedder(tb testing.TB) *Embedder {
	tb.Helper()
	e, err := OpenEmbedder(featuresPath)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// TestFeaturesOfTheShippedModel: the features model was taken from the
// careful model that ships, so that a retrained model cannot leave
// enrolment comparing crops by the features of the one before.
func TestFeaturesOfTheShippedModel(t *testing.T) {
	e := openEmbedder(t)
	defer e.Close()
	m := e.Metadata()
	b, err := os.ReadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if m.Source != filepath.Base(modelPath) || m.SourceSHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("features taken from %s (%s); the careful model is %s (%x): export them again (models/cardindex/features.py)",
			m.Source, m.SourceSHA256, filepath.Base(modelPath), sum)
	}
	meta, err := ReadMetadata(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	if in := m.Input; in.Mean != meta.Input.Mean || in.Scale != meta.Input.Scale {
		t.Errorf("features input %+v, the model's %+v", in, meta.Input)
	}
}

// TestEmbed: vectors of unit length; a card's corner in play, at another
// resolution and light and cut half a millimetre off, lies nearer the
// same corner enrolled than any other card's.
func TestEmbed(t *testing.T) {
	d := testDeck(t)
	e := openEmbedder(t)
	defer e.Close()
	var crops []gocv.Mat
	defer func() {
		for _, c := range crops {
			c.Close()
		}
	}()
	some := []int{0, 14, 30, 51} // AS, 4D, 8D, KC
	for _, i := range some {
		m, err := gocv.NewMatFromBytes(CropRows, CropCols, gocv.MatTypeCV8UC3, d.Cards[i].Corners[0].BGR)
		if err != nil {
			t.Fatal(err)
		}
		crops = append(crops, m)
	}
	for _, i := range some {
		crops = append(crops, playCrop(t, d.Cards[i].Card, "TL", 0.5, 0.5))
	}
	vs, err := e.Embed(crops)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(crops) {
		t.Fatalf("%d vectors for %d crops", len(vs), len(crops))
	}
	for i, v := range vs {
		if len(v) != e.Metadata().Size {
			t.Fatalf("vector %d has %d features, want %d", i, len(v), e.Metadata().Size)
		}
		if n := Cosine(v, v); n < 0.999 || n > 1.001 {
			t.Errorf("vector %d: length² %.4f, want 1", i, n)
		}
	}
	for k, i := range some {
		own := Cosine(vs[len(some)+k], vs[k])
		for j := range some {
			if j != k {
				if other := Cosine(vs[len(some)+k], vs[j]); other >= own {
					t.Errorf("%v in play: cosine %.3f with its own corner, %.3f with %v's", d.Cards[i].Card, own, other, d.Cards[some[j]].Card)
				}
			}
		}
	}
	empty := gocv.NewMat()
	defer empty.Close()
	if _, err := e.Embed([]gocv.Mat{empty}); err == nil {
		t.Error("an empty crop: want an error")
	}
}

// TestOpenEmbedderRejects: a model whose bytes or metadata do not match
// is refused before OpenCV reads it.
func TestOpenEmbedderRejects(t *testing.T) {
	model, err := os.ReadFile(featuresPath)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(strings.TrimSuffix(featuresPath, ".onnx") + ".json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		model, meta []byte
		want        string
	}{
		{"damaged model", append(append([]byte{}, model[:len(model)/2]...), 0), meta, "SHA-256"},
		{"other format", model, []byte(strings.Replace(string(meta), FeaturesFormat, "bjmonitor-cardfeatures/9", 1)), "format"},
		{"unknown field", model, []byte(strings.Replace(string(meta), `"size"`, `"sise": 1, "size"`, 1)), "unknown field"},
		{"no metadata", model, nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.Base(featuresPath))
			if err := os.WriteFile(p, tt.model, 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.meta != nil {
				if err := os.WriteFile(strings.TrimSuffix(p, ".onnx")+".json", tt.meta, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			e, err := OpenEmbedder(p)
			if err == nil {
				e.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
		})
	}
}

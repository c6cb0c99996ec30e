package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"slices"
	"sync"

	"gocv.io/x/gocv"

	"bjmonitor/cards"
	"bjmonitor/vision/pips"
)

// PipSuitsFormat is the only format of a pip suit model's metadata that
// OpenPipSuits accepts.
const PipSuitsFormat = "bjmonitor-pipsuit/1"

// PipSuitsMetadata describes a pip suit model: the JSON file written next
// to the ONNX file by models/pipsuit/train.py.
type PipSuitsMetadata struct {
	Format string `json:"format"`
	// Model is the ONNX file's name, in the metadata file's folder, and
	// SHA256 its hex digest.
	Model  string `json:"model"`
	SHA256 string `json:"sha256"`
	// Classes name the model's outputs in order: the suits as
	// cards.Suit.String writes them, in cards.Suits' order.
	Classes []string `json:"classes"`
	Input   Input    `json:"input"`
	// TrainingDecks are the decks whose glyphs the model trained on;
	// HeldOutDecks those it was measured on.
	TrainingDecks []string `json:"training_decks"`
	HeldOutDecks  []string `json:"heldout_decks"`
	Created       string   `json:"created"`
	TrainGlyphs   int      `json:"train_glyphs"`
	Epochs        int      `json:"epochs"`
	Seed          int      `json:"seed"`
	// Validation is train.py's measurement of each validation file.
	Validation []json.RawMessage `json:"validation"`
}

// PipSuits reads the suit of a number card's pips, glyph by glyph
// (pips.Face.Glyphs). It owns its dnn.Net: the caller must Close it. It
// is safe for concurrent use: calls take turns, each a few glyphs.
type PipSuits struct {
	mu     sync.Mutex
	net    gocv.Net
	blob   gocv.Mat
	meta   PipSuitsMetadata
	closed bool
}

// OpenPipSuits loads the pip suit model at path and its metadata (the
// JSON file of the same name beside it), checking the model's SHA-256
// before OpenCV reads it.
func OpenPipSuits(path string) (*PipSuits, error) {
	meta, err := ReadPipSuitsMetadata(path)
	if err != nil {
		return nil, err
	}
	net, err := readNet(path, meta.SHA256)
	if err != nil {
		return nil, err
	}
	return &PipSuits{net: net, blob: gocv.NewMat(), meta: meta}, nil
}

// ReadPipSuitsMetadata reads and checks the metadata of the pip suit
// model at path, the JSON file of the same name beside it, without
// loading the model.
func ReadPipSuitsMetadata(path string) (PipSuitsMetadata, error) {
	return readBeside(path, ParsePipSuitsMetadata, func(m PipSuitsMetadata) string { return m.Model })
}

// ParsePipSuitsMetadata parses and checks a pip suit model's metadata.
func ParsePipSuitsMetadata(b []byte) (PipSuitsMetadata, error) {
	var m PipSuitsMetadata
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return PipSuitsMetadata{}, fmt.Errorf("classify: pip suit metadata: %w", err)
	}
	suits := make([]string, len(cards.Suits))
	for i, s := range cards.Suits {
		suits[i] = s.String()
	}
	in := m.Input
	switch {
	case m.Format != PipSuitsFormat:
		return m, fmt.Errorf("classify: pip suit metadata format %q, want %q", m.Format, PipSuitsFormat)
	case m.Model == "" || len(m.SHA256) != 64:
		return m, fmt.Errorf("classify: pip suit metadata names no model, or no SHA-256 of it")
	case !slices.Equal(m.Classes, suits):
		return m, fmt.Errorf("classify: pip suit classes %v, want %v", m.Classes, suits)
	case in.Cols != pips.GlyphPx || in.Rows != pips.GlyphPx || in.Channels != 1:
		return m, fmt.Errorf("classify: pip suit input %d×%d×%d, want %d×%d×1", in.Cols, in.Rows, in.Channels, pips.GlyphPx, pips.GlyphPx)
	case !(in.Scale > 0) || math.IsInf(in.Scale, 0) || math.IsNaN(in.Mean) || in.Output == "":
		return m, fmt.Errorf("classify: pip suit input scale %v, mean %v, output %q", in.Scale, in.Mean, in.Output)
	case len(m.TrainingDecks) == 0:
		return m, fmt.Errorf("classify: pip suit metadata names no training deck")
	}
	for _, d := range m.TrainingDecks {
		if slices.Contains(m.HeldOutDecks, d) {
			return m, fmt.Errorf("classify: pip suit model both trained on and held out %s", d)
		}
	}
	return m, nil
}

// Metadata returns the model's metadata.
func (p *PipSuits) Metadata() PipSuitsMetadata { return p.meta }

// ReadSuits returns, for each glyph (pips.GlyphPx² grey pixels, as
// pips.Face.Glyphs has them), the natural log of the probability of each
// suit, in cards.Suits' order.
func (p *PipSuits) ReadSuits(glyphs [][]byte) ([][4]float64, error) {
	if len(glyphs) == 0 {
		return nil, nil
	}
	if len(glyphs) > MaxBatch {
		return nil, fmt.Errorf("classify: %d glyphs in one batch, at most %d", len(glyphs), MaxBatch)
	}
	mats := make([]gocv.Mat, 0, len(glyphs))
	defer func() {
		for _, m := range mats {
			m.Close()
		}
	}()
	for i, g := range glyphs {
		if len(g) != pips.GlyphPx*pips.GlyphPx {
			return nil, fmt.Errorf("classify: glyph %d has %d pixels, want %d", i, len(g), pips.GlyphPx*pips.GlyphPx)
		}
		m, err := gocv.NewMatFromBytes(pips.GlyphPx, pips.GlyphPx, gocv.MatTypeCV8UC1, g)
		if err != nil {
			return nil, fmt.Errorf("classify: glyph %d: %w", i, err)
		}
		mats = append(mats, m)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("classify: ReadSuits on a closed PipSuits")
	}
	in := p.meta.Input
	mean := gocv.NewScalar(in.Mean, in.Mean, in.Mean, 0)
	gocv.BlobFromImages(mats, &p.blob, in.Scale, image.Pt(pips.GlyphPx, pips.GlyphPx), mean, false, false, gocv.MatTypeCV32F)
	p.net.SetInput(p.blob, "")
	out := p.net.Forward(in.Output)
	defer out.Close()
	k := len(cards.Suits)
	if out.Empty() || out.Total() != len(glyphs)*k {
		return nil, fmt.Errorf("classify: the pip suit model returned %d values for %d glyphs of %d", out.Total(), len(glyphs), k)
	}
	z, err := out.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("classify: %w", err)
	}
	res := make([][4]float64, len(glyphs))
	for i := range res {
		res[i] = logSoftmax4(z[i*k : (i+1)*k])
	}
	return res, nil
}

// logSoftmax4 returns the natural log of the softmax of four logits.
func logSoftmax4(z []float32) [4]float64 {
	top := slices.Max(z)
	var sum float64
	for _, v := range z {
		sum += math.Exp(float64(v - top))
	}
	var out [4]float64
	for i, v := range z {
		out[i] = float64(v-top) - math.Log(sum)
	}
	return out
}

// Close releases the network and the blob. It is safe to call more than
// once.
func (p *PipSuits) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	p.net.Close()
	p.blob.Close()
	return nil
}

package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gocv.io/x/gocv"
)

// FeaturesFormat is the only format of a features model's metadata that
// OpenEmbedder accepts.
const FeaturesFormat = "bjmonitor-cardfeatures/1"

// FeaturesMetadata describes a features model: the last hidden layer of
// a card index model, exported on its own by
// models/cardindex/features.py.
type FeaturesMetadata struct {
	Format string `json:"format"`
	// Model is the ONNX file's name, in the metadata file's folder, and
	// SHA256 its hex digest.
	Model  string `json:"model"`
	SHA256 string `json:"sha256"`
	// Source is the card index model the features were taken from, and
	// SourceSHA256 that model's digest.
	Source       string `json:"source"`
	SourceSHA256 string `json:"source_sha256"`
	Input        Input  `json:"input"`
	// Size is how many features a crop has.
	Size int `json:"size"`
}

// Embedder computes a crop's features with the hidden layers of a card
// index model: a vector, scaled to unit length, in which two crops of one
// index lie close whatever the light, the blur and a millimetre of shift.
// It owns its dnn.Net: the caller must Close it. It is not safe for
// concurrent use.
type Embedder struct {
	net    gocv.Net
	blob   gocv.Mat
	meta   FeaturesMetadata
	closed bool
}

// OpenEmbedder loads the features model at path and its metadata (the
// JSON file of the same name beside it), checking the model's SHA-256
// before OpenCV reads it.
func OpenEmbedder(path string) (*Embedder, error) {
	meta, err := ReadFeaturesMetadata(path)
	if err != nil {
		return nil, err
	}
	net, err := readNet(path, meta.SHA256)
	if err != nil {
		return nil, err
	}
	return &Embedder{net: net, blob: gocv.NewMat(), meta: meta}, nil
}

// ReadFeaturesMetadata reads and checks the metadata of the features
// model at path, the JSON file of the same name beside it, without
// loading the model.
func ReadFeaturesMetadata(path string) (FeaturesMetadata, error) {
	metaPath := strings.TrimSuffix(path, filepath.Ext(path)) + ".json"
	mb, err := os.ReadFile(metaPath)
	if err != nil {
		return FeaturesMetadata{}, fmt.Errorf("classify: %w", err)
	}
	var meta FeaturesMetadata
	dec := json.NewDecoder(bytes.NewReader(mb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&meta); err != nil {
		return FeaturesMetadata{}, fmt.Errorf("classify: %s: %w", metaPath, err)
	}
	switch {
	case meta.Format != FeaturesFormat:
		return FeaturesMetadata{}, fmt.Errorf("classify: %s: format %q, want %q", metaPath, meta.Format, FeaturesFormat)
	case meta.Model != filepath.Base(path):
		return FeaturesMetadata{}, fmt.Errorf("classify: %s describes %s, not %s", metaPath, meta.Model, filepath.Base(path))
	case meta.Size <= 0 || meta.Size > 1<<16:
		return FeaturesMetadata{}, fmt.Errorf("classify: %s: %d features", metaPath, meta.Size)
	case meta.Input.Cols != CropCols || meta.Input.Rows != CropRows || meta.Input.Channels != 3 || meta.Input.Order != "BGR" || meta.Input.Output == "":
		return FeaturesMetadata{}, fmt.Errorf("classify: %s: input %+v, want %dx%d BGR crops and an output name", metaPath, meta.Input, CropCols, CropRows)
	}
	return meta, nil
}

// Metadata returns the features model's metadata.
func (e *Embedder) Metadata() FeaturesMetadata { return e.meta }

// Close releases the network and the blob. It is safe to call more than
// once.
func (e *Embedder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	e.net.Close()
	e.blob.Close()
	return nil
}

// Embed returns the features of each crop (CropCols×CropRows, 8-bit BGR,
// at most MaxBatch of them), each scaled to unit length.
func (e *Embedder) Embed(crops []gocv.Mat) ([][]float32, error) {
	if e.closed {
		return nil, fmt.Errorf("classify: Embed on a closed Embedder")
	}
	k := e.meta.Size
	flat, err := runNet(&e.net, &e.blob, e.meta.Input, crops, k)
	if err != nil || flat == nil {
		return nil, err
	}
	n := len(crops)
	vs := make([][]float32, n)
	for i := range vs {
		v := make([]float32, k)
		copy(v, flat[i*k:(i+1)*k])
		var ss float64
		for _, x := range v {
			ss += float64(x) * float64(x)
		}
		if ss > 0 {
			inv := float32(1 / math.Sqrt(ss))
			for j := range v {
				v[j] *= inv
			}
		}
		vs[i] = v
	}
	return vs, nil
}

// Cosine is the dot product of two unit vectors of one length.
func Cosine(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

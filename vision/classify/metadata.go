package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"bjmonitor/cards"
)

// MetadataFormat is the only format ParseMetadata accepts.
const MetadataFormat = "bjmonitor-cardindex/1"

// The two classes that are not cards.
const (
	ClassNone = "none" // no card index at this corner
	ClassBack = "back" // the corner of a face-down card
)

// Metadata describes a card index model: the JSON file written next to
// the ONNX file by models/cardindex/train.py.
type Metadata struct {
	Format string `json:"format"`
	// Model is the ONNX file's name, in the metadata file's folder.
	Model string `json:"model"`
	// SHA256 is the hex digest of the ONNX file. Open checks it before
	// OpenCV reads the file, since OpenCV aborts the process on a damaged
	// model.
	SHA256 string `json:"sha256"`
	// Classes name the model's outputs in order: the 52 cards as
	// cards.Card.String writes them, ClassNone and ClassBack.
	Classes       []string `json:"classes"`
	Input         Input    `json:"input"`
	Crop          CropSpec `json:"crop"`
	TrainingDecks []string `json:"training_decks"`
	HeldOutDecks  []string `json:"heldout_decks"`
	// TrainingFonts and HeldOutFonts name the fonts of the procedural
	// designs (testvideos/cardface) the model trained on and those kept
	// for its validation; empty for a model trained on decks alone.
	TrainingFonts []string  `json:"training_fonts,omitempty"`
	HeldOutFonts  []string  `json:"heldout_fonts,omitempty"`
	Created       string    `json:"created"`
	Data          *DataSpec `json:"data,omitempty"`
	Accuracy      *Accuracy `json:"accuracy,omitempty"`
}

// Input is how a crop becomes the network's input:
// value = (pixel − Mean) · Scale, channels in Order.
type Input struct {
	Cols     int     `json:"cols"`
	Rows     int     `json:"rows"`
	Channels int     `json:"channels"`
	Order    string  `json:"order"`
	Mean     float64 `json:"mean"`
	Scale    float64 `json:"scale"`
	// Output is the name of the logits layer.
	Output string `json:"output"`
}

// CropSpec is the patch of the card a crop covers, in mm from the corner.
type CropSpec struct {
	WidthMM  float64 `json:"width_mm"`
	HeightMM float64 `json:"height_mm"`
}

// DataSpec records how the training data was made.
type DataSpec struct {
	Generator  string `json:"generator"`
	Train      int    `json:"train"`
	Val        int    `json:"val"`
	Seed       int64  `json:"seed"`
	TrainSteps int    `json:"train_steps"`
	Batch      int    `json:"batch"`
	// NoneWeight is the loss weight of the none class.
	NoneWeight float64 `json:"none_weight,omitempty"`
	// Restyle and Proc are gendata's -restyle and -proc: the share of
	// faces repainted, and of procedural designs.
	Restyle float64 `json:"restyle,omitempty"`
	Proc    float64 `json:"proc,omitempty"`
}

// Accuracy is what train.py measured on the held-out decks.
type Accuracy struct {
	Set                    string                  `json:"set"`
	Top1                   float64                 `json:"top1"`
	LowConfidenceThreshold float64                 `json:"low_confidence_threshold"`
	LowConfidence          float64                 `json:"low_confidence"`
	WrongAmongConfident    float64                 `json:"wrong_among_confident"`
	PerDeck                map[string]DeckAccuracy `json:"per_deck"`
	PerResolution          map[string]float64      `json:"per_resolution"`
	NoneBack               map[string]float64      `json:"none_back"`
}

// DeckAccuracy is the score on one held-out deck.
type DeckAccuracy struct {
	N             int     `json:"n"`
	Top1          float64 `json:"top1"`
	LowConfidence float64 `json:"low_confidence"`
}

var (
	hexDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)
	fileName  = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.onnx$`)
)

// ParseMetadata decodes and checks model metadata. Besides JSON syntax it
// checks everything Classifier relies on: the class list (each card once,
// plus none and back), an input of the crop's size in BGR, the crop
// geometry of this package (a model trained on other crops would read
// garbage without failing), and that no held-out deck was trained on.
// Unknown fields are errors, so that a typo is not silently ignored.
func ParseMetadata(b []byte) (Metadata, error) {
	var m Metadata
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Metadata{}, fmt.Errorf("classify: metadata: %w", err)
	}
	if dec.More() {
		return Metadata{}, fmt.Errorf("classify: metadata: data after the JSON object")
	}
	if err := m.Validate(); err != nil {
		return Metadata{}, err
	}
	return m, nil
}

// Validate checks m as ParseMetadata does.
func (m *Metadata) Validate() error {
	bad := func(field string, v any) error {
		return fmt.Errorf("classify: metadata: bad %s %v", field, v)
	}
	if m.Format != MetadataFormat {
		return bad("format", fmt.Sprintf("%q, want %q", m.Format, MetadataFormat))
	}
	if !fileName.MatchString(m.Model) {
		return bad("model", fmt.Sprintf("%q (want a file name ending in .onnx)", m.Model))
	}
	if !hexDigest.MatchString(m.SHA256) {
		return bad("sha256", fmt.Sprintf("%q (want 64 lower-case hex digits)", m.SHA256))
	}
	if len(m.Classes) != 54 {
		return bad("classes", fmt.Sprintf("count %d, want 54", len(m.Classes)))
	}
	seen := map[string]bool{}
	for _, s := range m.Classes {
		if seen[s] {
			return bad("classes", fmt.Sprintf("%q listed twice", s))
		}
		seen[s] = true
		if s == ClassNone || s == ClassBack {
			continue
		}
		// Only the canonical spelling: "ah" or "10H" would parse but are
		// not what train.py writes, so they point at a broken file.
		if c, err := cards.Parse(s); err != nil || c.String() != s {
			return bad("class", fmt.Sprintf("%q", s))
		}
	}
	if !seen[ClassNone] || !seen[ClassBack] {
		return bad("classes", "without none and back")
	}
	in := m.Input
	if in.Cols != CropCols || in.Rows != CropRows || in.Channels != 3 {
		return bad("input size", fmt.Sprintf("%dx%dx%d, want %dx%dx3", in.Cols, in.Rows, in.Channels, CropCols, CropRows))
	}
	if in.Order != "BGR" {
		return bad("input order", fmt.Sprintf("%q, want BGR", in.Order))
	}
	if math.IsNaN(in.Mean) || in.Mean < 0 || in.Mean > 255 {
		return bad("input mean", in.Mean)
	}
	if math.IsNaN(in.Scale) || in.Scale <= 0 || in.Scale > 1 {
		return bad("input scale", in.Scale)
	}
	if in.Output == "" || strings.ContainsAny(in.Output, "\x00") {
		return bad("input output layer", fmt.Sprintf("%q", in.Output))
	}
	if m.Crop.WidthMM != CropWidthMM || m.Crop.HeightMM != CropHeightMM {
		return bad("crop", fmt.Sprintf("%gx%g mm, want %gx%g mm (this package's geometry)", m.Crop.WidthMM, m.Crop.HeightMM, float64(CropWidthMM), float64(CropHeightMM)))
	}
	for _, d := range m.HeldOutDecks {
		if slices.Contains(m.TrainingDecks, d) {
			return bad("decks", fmt.Sprintf("%q both trained on and held out", d))
		}
	}
	return nil
}

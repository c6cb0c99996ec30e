package classify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"bjmonitor/cards"

	"gocv.io/x/gocv"
)

// Result is the model's verdict on one crop.
type Result struct {
	// Card is the card whose index the crop shows; the zero Card (not
	// Valid) when the top class is none or back.
	Card cards.Card
	// Back is true when the crop shows the corner of a face-down card.
	Back bool
	// Confidence is the softmax probability of the top class, 0..1.
	Confidence float64
	// OtherSuit is the probability of Card's rank in the other suit of
	// its colour (spades and clubs, hearts and diamonds), 0..1: the card
	// a small index's pip is most often taken for. 0 where Card is not
	// valid, or where an enrolled deck decided the card (Enrolled).
	OtherSuit float64
	// Likeness is how near the crop lies to each card of the table's
	// enrolled deck, set by Enrolled where the model reads a card; nil
	// without a deck.
	Likeness *Likeness
}

// None reports whether the model saw no card index and no back.
func (r Result) None() bool { return !r.Card.Valid() && !r.Back }

// String writes the card, "back" or "none", with the confidence.
func (r Result) String() string {
	switch {
	case r.Back:
		return fmt.Sprintf("back (%.3f)", r.Confidence)
	case r.Card.Valid():
		return fmt.Sprintf("%v (%.3f)", r.Card, r.Confidence)
	}
	return fmt.Sprintf("none (%.3f)", r.Confidence)
}

// MaxBatch bounds one Classify call, so the input blob (about 35 KB a
// crop) stays small; callers with more crops call again.
const MaxBatch = 256

// Classifier runs the card index model on corner crops. It owns its
// dnn.Net and input blob: the caller must Close it. It is not safe for
// concurrent use; give each goroutine its own Classifier.
type Classifier struct {
	net    gocv.Net
	closed bool
	blob   gocv.Mat
	meta   Metadata
	class  []Result // the Result of each class, before the confidence
	// other is, for each class, the class of its rank in the other suit
	// of its colour (otherSuits); -1 for none and back.
	other []int
}

// Open loads the ONNX model at modelPath and its metadata, the JSON file
// of the same name next to it (models/cardindex/cardindex.onnx and
// cardindex.json). It checks the metadata and the model's SHA-256 before
// OpenCV reads the model: OpenCV aborts the whole process on a damaged
// file, where a checksum mismatch is an ordinary error.
func Open(modelPath string) (*Classifier, error) {
	meta, err := ReadMetadata(modelPath)
	if err != nil {
		return nil, err
	}
	net, err := readNet(modelPath, meta.SHA256)
	if err != nil {
		return nil, err
	}
	c := &Classifier{net: net, blob: gocv.NewMat(), meta: meta}
	for _, s := range meta.Classes {
		var r Result
		switch s {
		case ClassBack:
			r.Back = true
		case ClassNone:
		default:
			r.Card = cards.MustParse(s) // ParseMetadata checked it
		}
		c.class = append(c.class, r)
	}
	c.other = otherSuits(c.class)
	return c, nil
}

// otherSuits returns, for each class, the index of the class of its rank
// in the other suit of its colour, or -1 where there is none (none, back,
// or a class list that lacks it).
func otherSuits(class []Result) []int {
	other := make([]int, len(class))
	for i, r := range class {
		other[i] = -1
		if !r.Card.Valid() {
			continue
		}
		want := cards.Card{Rank: r.Card.Rank, Suit: r.Card.Suit.Other()}
		for j, s := range class {
			if s.Card == want {
				other[i] = j
			}
		}
	}
	return other
}

// readNet reads the ONNX model at path once its SHA-256 is sha: OpenCV
// aborts the whole process on a damaged file, where a checksum mismatch
// is an ordinary error. The caller closes the network.
func readNet(path, sha string) (gocv.Net, error) {
	model, err := os.ReadFile(path)
	if err != nil {
		return gocv.Net{}, fmt.Errorf("classify: %w", err)
	}
	sum := sha256.Sum256(model)
	if got := hex.EncodeToString(sum[:]); got != sha {
		return gocv.Net{}, fmt.Errorf("classify: %s has SHA-256 %s, metadata says %s: damaged or mismatched model", path, got, sha)
	}
	net := gocv.ReadNetFromONNX(path)
	if net.Empty() {
		net.Close()
		return gocv.Net{}, fmt.Errorf("classify: OpenCV read no network from %s", path)
	}
	return net, nil
}

// ReadMetadata reads and checks the metadata of the ONNX model at
// modelPath, the JSON file of the same name next to it, without loading
// the model.
func ReadMetadata(modelPath string) (Metadata, error) {
	return readBeside(modelPath, ParseMetadata, func(m Metadata) string { return m.Model })
}

// readBeside reads the metadata of the model at modelPath, the JSON file
// of the same name next to it, with parse, and checks that it describes
// that model: the file model names.
func readBeside[M any](modelPath string, parse func([]byte) (M, error), model func(M) string) (M, error) {
	var none M
	metaPath := strings.TrimSuffix(modelPath, filepath.Ext(modelPath)) + ".json"
	mb, err := os.ReadFile(metaPath)
	if err != nil {
		return none, fmt.Errorf("classify: %w", err)
	}
	meta, err := parse(mb)
	if err != nil {
		return none, fmt.Errorf("%w (in %s)", err, metaPath)
	}
	if m := model(meta); m != filepath.Base(modelPath) {
		return none, fmt.Errorf("classify: %s describes %s, not %s", metaPath, m, filepath.Base(modelPath))
	}
	return meta, nil
}

// Metadata returns the model's metadata.
func (c *Classifier) Metadata() Metadata { return c.meta }

// Close releases the network and the blob. It is safe to call more than
// once.
func (c *Classifier) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.net.Close()
	c.blob.Close()
	return nil
}

// Classify reads each crop (CropCols×CropRows, 8-bit BGR, as Cropper.Cut
// writes them) in one batch and returns a Result per crop, in order. The
// crops stay the caller's.
func (c *Classifier) Classify(crops []gocv.Mat) ([]Result, error) {
	logits, err := c.forward(crops)
	if err != nil || logits == nil {
		return nil, err
	}
	k := len(c.class)
	res := make([]Result, len(crops))
	for i := range res {
		res[i] = c.result(logits[i*k : (i+1)*k])
	}
	return res, nil
}

// result is the Result of one crop's logits z.
func (c *Classifier) result(z []float32) Result {
	best, p := softmaxMax(z)
	r := c.class[best]
	r.Confidence = p
	if o := c.other[best]; o >= 0 {
		r.OtherSuit = p * math.Exp(float64(z[o]-z[best]))
	}
	return r
}

// forward runs the model on the crops and returns its logits, one row of
// len(c.class) a crop. The slice is a copy the caller owns.
func (c *Classifier) forward(crops []gocv.Mat) ([]float32, error) {
	if c.closed {
		return nil, fmt.Errorf("classify: Classify on a closed Classifier")
	}
	return runNet(&c.net, &c.blob, c.meta.Input, crops, len(c.class))
}

// runNet runs a network on the crops (at most MaxBatch, each
// CropCols×CropRows 8-bit BGR), normalised as in says, in blob, and
// returns its output layer in.Output, per values a crop. The slice is a
// copy the caller owns; no crops, no values.
func runNet(net *gocv.Net, blob *gocv.Mat, in Input, crops []gocv.Mat, per int) ([]float32, error) {
	if len(crops) == 0 {
		return nil, nil
	}
	if len(crops) > MaxBatch {
		return nil, fmt.Errorf("classify: %d crops in one batch, at most %d", len(crops), MaxBatch)
	}
	for i, m := range crops {
		if m.Ptr() == nil || m.Empty() || m.Type() != gocv.MatTypeCV8UC3 || m.Cols() != CropCols || m.Rows() != CropRows {
			return nil, fmt.Errorf("classify: crop %d is not a %dx%d 8-bit BGR Mat", i, CropCols, CropRows)
		}
	}
	mean := gocv.NewScalar(in.Mean, in.Mean, in.Mean, 0)
	gocv.BlobFromImages(crops, blob, in.Scale, image.Pt(CropCols, CropRows), mean, false, false, gocv.MatTypeCV32F)
	net.SetInput(*blob, "")
	out := net.Forward(in.Output)
	defer out.Close()
	if n := len(crops); out.Empty() || out.Total() != n*per {
		return nil, fmt.Errorf("classify: the model returned %d values for %d crops of %d", out.Total(), n, per)
	}
	vals, err := out.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("classify: %w", err)
	}
	return slices.Clone(vals), nil
}

// ClassifyOne reads one crop.
func (c *Classifier) ClassifyOne(crop gocv.Mat) (Result, error) {
	r, err := c.Classify([]gocv.Mat{crop})
	if err != nil {
		return Result{}, err
	}
	return r[0], nil
}

// softmaxMax returns the index of the largest logit and its softmax
// probability. The model outputs logits rather than probabilities so
// that the export stays within the operations OpenCV 4.6 reads well.
func softmaxMax(z []float32) (int, float64) {
	best := 0
	for i, v := range z {
		if v > z[best] {
			best = i
		}
	}
	var sum float64
	for _, v := range z {
		sum += math.Exp(float64(v - z[best]))
	}
	return best, 1 / sum
}

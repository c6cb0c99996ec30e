// Command harvest writes training crops for the card index model
// (models/cardindex) cut by the monitor's own detector from rendered
// clips: the crops the model meets in play, with the video's blur,
// blocking and the corner finder's own errors, where gendata draws its
// crops from a model of them.
//
//	go run ./models/cardindex/harvest -out .cache/harvest CLIP.mp4...
//
// Each CLIP.mp4 comes with its CLIP.table.json and CLIP.truth.json, as
// testvideos/cmd/genclip writes them, of a training deck: one the models
// list as trained on, or a procedural design drawn in training fonts
// (cardart's train:N). Every other frame (as the monitor reads at 12.5
// frames a second) goes through vision.Detector with the shipped models;
// each corner it reads afresh is labelled from the clip's truth: a card's
// index corner (its top-left or bottom-right, with the crop cut along the
// card's edges) is that card, or a back while the card lies face down;
// the other two corners of a face-up card of a deck that prints two
// indices are none, where the crop shows no other card. A reading
// anywhere else, under the dealer's hand, or with a later card over its
// index, is left out: the truth cannot say what such a crop shows.
//
// It writes, under -out, train_x.u8 (N×72×40×3 BGR crops), train_y.u8
// (class indices) and meta.json, as gendata does, so that train.py takes
// the folder as another --data. A clip of any other deck is refused, and
// so is one of a deck that prints its second index upright.
//
// With -val it writes a validation split instead (val_x.u8, val_y.u8,
// val_deck.u8, val_res.f32), for train.py's --val, from clips of the
// held-out decks and of procedural designs (cardart's proc:N, drawn in
// held-out fonts) only: how a model reads the crops of play on designs it
// never trained on.
package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/clip"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// The index a crop must show to be labelled: the patch from the corner
// (mm along the short and the long edge) that holds a common deck's rank
// and suit, and the most of it a later card may cover.
const (
	indexW, indexH = 12.0, 26.0
	maxCovered     = 0.25
)

// Matching a reading to a card's corner: how near, in mm at the clip's
// scale, and how well the crop's edges must follow the card's (cosine).
const (
	nearMM   = 4.0
	alignCos = 0.97
)

func main() {
	out := flag.String("out", ".cache/harvest", "output folder (keep it out of git)")
	model := flag.String("model", "models/cardindex/cardindex.onnx", "careful model")
	fast := flag.String("fast-model", "models/cardindex/cardindex-fast.onnx", "fast model")
	every := flag.Int("every", 2, "read every Nth frame")
	val := flag.Bool("val", false, "write a validation split, from clips of held-out and procedural decks only")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("harvest: no clips given")
	}
	if err := run(*out, *model, *fast, *every, *val, flag.Args()); err != nil {
		log.Fatal("harvest: ", err)
	}
}

func run(out, model, fast string, every int, val bool, clips []string) error {
	meta, err := classify.ReadMetadata(model)
	if err != nil {
		return err
	}
	reader, err := classify.OpenCascade(fast, model, classify.DefaultRecheckBelow)
	if err != nil {
		return err
	}
	defer reader.Close()
	// The models' classes, which are gendata's: train.py joins the
	// folders only where they agree.
	classes := meta.Classes
	var x, y, deck []byte
	var res []float32
	var decks []string
	counts := map[string]int{}
	for _, path := range clips {
		start := time.Now()
		h, err := harvestClip(path, reader, meta, every, val)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !slices.Contains(decks, h.deck) {
			decks = append(decks, h.deck)
		}
		for i, c := range h.labels {
			x = append(x, h.crops[i]...)
			y = append(y, byte(slices.Index(classes, c)))
			deck = append(deck, byte(slices.Index(decks, h.deck)))
			res = append(res, h.res[i])
			counts[c]++
		}
		log.Printf("%s: %d crops labelled of %d read (%d by the models as labelled), %v", filepath.Base(path),
			len(h.labels), h.read, h.agree, time.Since(start).Round(time.Second))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	split, n, nVal := "train", len(y), 0
	if val {
		split, n, nVal = "val", 0, len(y)
		b := make([]byte, 4*len(res))
		for i, r := range res {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(r))
		}
		if err := os.WriteFile(filepath.Join(out, "val_res.f32"), b, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, "val_deck.u8"), deck, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(out, split+"_x.u8"), x, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, split+"_y.u8"), y, 0o644); err != nil {
		return err
	}
	m := map[string]any{
		"generator":      "models/cardindex/harvest",
		"classes":        classes,
		"crop":           map[string]any{"width_mm": classify.CropWidthMM, "height_mm": classify.CropHeightMM, "cols": classify.CropCols, "rows": classify.CropRows, "channels": 3, "order": "BGR"},
		"training_decks": meta.TrainingDecks,
		"heldout_decks":  meta.HeldOutDecks,
		"clips":          clips,
		"val_decks":      decks,
		"train":          n,
		"val":            nVal,
		"seed":           0,
		"per_class":      counts,
		"generated":      time.Now().UTC().Format(time.RFC3339),
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "meta.json"), append(b, '\n'), 0o644)
}

// harvested is what one clip gave: crops (72×40×3 bytes each) and their
// labels, how many corners were read and how many the models read as
// labelled.
type harvested struct {
	deck        string
	crops       [][]byte
	labels      []string
	res         []float32 // each crop's source scale, px/mm
	read, agree int
}

func harvestClip(path string, reader vision.Reader, meta classify.Metadata, every int, val bool) (*harvested, error) {
	base := strings.TrimSuffix(path, ".mp4")
	truth, err := clip.ReadTruth(base + ".truth.json")
	if err != nil {
		return nil, err
	}
	heldOut := slices.Contains(meta.HeldOutDecks, truth.Deck) || strings.HasPrefix(truth.Deck, cardart.ProceduralPrefix)
	trained := slices.Contains(meta.TrainingDecks, truth.Deck) || strings.HasPrefix(truth.Deck, cardart.TrainingPrefix)
	switch {
	case val && !heldOut:
		return nil, fmt.Errorf("deck %q is neither held out of training nor procedural: not for validation", truth.Deck)
	case !val && (heldOut || !trained):
		return nil, fmt.Errorf("deck %q is neither a training deck of the models nor drawn for training", truth.Deck)
	}
	twoCorners := true // the gnome decks print two indices
	if st, err := cardart.ProceduralStyle(truth.Deck); err == nil {
		if st.UprightSecond {
			// Its bottom-right corner shows the index upside down, which
			// the monitor turns before reading (vision's turnGlyphs): a
			// crop whose label the model is not asked for.
			return nil, fmt.Errorf("deck %q prints its second index upright", truth.Deck)
		}
		twoCorners = !st.FourCorners
	}
	table, err := calibration.Load(base + ".table.json")
	if err != nil {
		return nil, err
	}
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		return nil, err
	}
	defer vc.Close()
	frame, crop := gocv.NewMat(), gocv.NewMat()
	defer frame.Close()
	defer crop.Close()
	cutter := classify.NewCropper()
	defer cutter.Close()
	var det *vision.Detector
	defer func() {
		if det != nil {
			det.Close()
		}
	}()
	h := &harvested{deck: truth.Deck}
	for i := 0; vc.Read(&frame); i++ {
		if frame.Empty() {
			break
		}
		if det == nil {
			cal, err := calibration.Solve(frame, table)
			if err != nil {
				return nil, err
			}
			if det, err = vision.NewDetector(cal, reader, vision.DefaultOptions()); err != nil {
				return nil, err
			}
		}
		if i%every != 0 {
			continue
		}
		if _, err := det.Detect(frame, i, float64(i)/truth.FPS); err != nil {
			return nil, err
		}
		reads := det.Readings()
		if len(reads) == 0 {
			continue // every zone held still
		}
		lying := cardsAt(truth, i)
		for _, r := range reads {
			if r.Cached {
				continue
			}
			h.read++
			label, ok := labelOf(r, lying, twoCorners)
			if !ok {
				continue
			}
			if err := cutter.Cut(frame, r.Crop, &crop); err != nil {
				return nil, err
			}
			if crop.Rows() != classify.CropRows || crop.Cols() != classify.CropCols || crop.Channels() != 3 {
				return nil, errors.New("crop of an unexpected size")
			}
			b := crop.ToBytes()
			h.crops = append(h.crops, b)
			h.labels = append(h.labels, label)
			h.res = append(h.res, float32(r.Crop.U.Len()))
			if labelOfResult(r.Result) == label {
				h.agree++
			}
		}
	}
	return h, nil
}

// labelOfResult is a reading's class as the labels name it.
func labelOfResult(r classify.Result) string {
	switch {
	case r.Back:
		return classify.ClassBack
	case r.None():
		return classify.ClassNone
	}
	return r.Card.String()
}

// lyingCard is a card on the felt in one frame: its corners in image
// pixels (its own top-left, top-right, bottom-right, bottom-left), whether
// its face shows, and its order of placing (a later card lies over an
// earlier one).
type lyingCard struct {
	card   string
	quad   [4]classify.Vec
	faceUp bool
	placed int
}

// cardsAt returns the cards lying on the felt in frame f.
func cardsAt(t *clip.Truth, f int) []lyingCard {
	var out []lyingCard
	for _, c := range t.Cards {
		if f < c.Shown || c.Removed >= 0 && f >= c.Removed {
			continue
		}
		var pos *clip.Position
		for k := range c.Positions {
			if c.Positions[k].FromFrame <= f {
				pos = &c.Positions[k]
			}
		}
		if pos == nil {
			continue
		}
		lc := lyingCard{card: c.Card.Card.String(), placed: c.Placed, faceUp: !c.FaceDown || c.Turned >= 0 && f >= c.Turned}
		for k, q := range pos.Quad {
			lc.quad[k] = classify.Vec{X: q[0], Y: q[1]}
		}
		out = append(out, lc)
	}
	return out
}

// labelOf returns what reading r shows by the truth: the card whose index
// corner it is, cut along the card's edges (back while it lies face
// down), and where twoCorners (the deck prints its index in two corners
// only) none at a face-up card's other two corners where the crop shows
// no other card. It returns false where the truth cannot tell.
func labelOf(r vision.Reading, lying []lyingCard, twoCorners bool) (string, bool) {
	if r.Capped {
		return "", false
	}
	f := r.Crop
	s := f.U.Len() // px a mm
	for _, c := range lying {
		for k := range c.quad {
			// The card's short edge runs from corner k to k^1, its long
			// edge from k to 3-k.
			corner, across, along := c.quad[k], sub(c.quad[k^1], c.quad[k]), sub(c.quad[3-k], c.quad[k])
			if sub(f.Origin, corner).Len() > nearMM*s {
				continue
			}
			aligned := cos(f.U, across) >= alignCos && cos(f.V, along) >= alignCos
			switch {
			case k%2 == 0 && aligned:
				if coveredShare(f, c, lying) > maxCovered {
					return "", false
				}
				if !c.faceUp {
					return classify.ClassBack, true
				}
				return c.card, true
			case k%2 == 1 && twoCorners && c.faceUp && showsOnly(f, c, lying):
				return classify.ClassNone, true
			}
			return "", false
		}
	}
	return "", false
}

// showsOnly reports whether the crop of frame f shows no card but c:
// none of its points lies on another card, above or beneath.
func showsOnly(f classify.Frame, c lyingCard, lying []lyingCard) bool {
	other := func(o lyingCard) bool { return o.placed != c.placed }
	return onCards(f, classify.CropWidthMM, classify.CropHeightMM, lying, other) == 0
}

// coveredShare is the share of the index patch of frame f that cards
// placed after c cover.
func coveredShare(f classify.Frame, c lyingCard, lying []lyingCard) float64 {
	later := func(o lyingCard) bool { return o.placed > c.placed }
	return onCards(f, indexW, indexH, lying, later)
}

// onCards returns the share of the points of frame f's patch, w × h mm
// from its corner on a 1 mm grid, that lie on a card of lying that which
// selects.
func onCards(f classify.Frame, w, h float64, lying []lyingCard, which func(lyingCard) bool) float64 {
	n, on := 0, 0
	for u := 0.5; u < w; u++ {
		for v := 0.5; v < h; v++ {
			p := f.Map(classify.Vec{X: u, Y: v})
			n++
			for _, o := range lying {
				if which(o) && inside(p, o.quad) {
					on++
					break
				}
			}
		}
	}
	return float64(on) / float64(n)
}

// inside reports whether p lies inside the convex quad q.
func inside(p classify.Vec, q [4]classify.Vec) bool {
	sign := 0.0
	for k := range q {
		a, b := q[k], q[(k+1)%4]
		cr := (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
		if sign == 0 {
			sign = cr
		} else if cr*sign < 0 {
			return false
		}
	}
	return true
}

func sub(a, b classify.Vec) classify.Vec { return classify.Vec{X: a.X - b.X, Y: a.Y - b.Y} }

func cos(a, b classify.Vec) float64 {
	return (a.X*b.X + a.Y*b.Y) / (a.Len() * b.Len())
}

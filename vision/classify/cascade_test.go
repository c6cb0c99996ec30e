package classify

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardart"

	"gocv.io/x/gocv"
)

func TestOpenCascade(t *testing.T) {
	for _, below := range []float64{0, -0.5, 1.5, math.NaN()} {
		if c, err := OpenCascade(fastModelPath, modelPath, below); err == nil {
			c.Close()
			t.Errorf("OpenCascade(below %v) = nil error, want one", below)
		}
	}
	// A fast model that saw one of the careful model's held-out decks
	// would make every held-out figure a figure on training data.
	dir := t.TempDir()
	onnx, err := os.ReadFile(fastModelPath)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join("..", "..", "models", "cardindex", "cardindex-fast.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	m["heldout_decks"] = []string{"dondorf", "tigullio"}
	if meta, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cardindex-fast.onnx"), onnx, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cardindex-fast.json"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := OpenCascade(filepath.Join(dir, "cardindex-fast.onnx"), modelPath, DefaultRecheckBelow); err == nil {
		c.Close()
		t.Error("OpenCascade with different held-out decks = nil error, want one")
	}
}

// TestCascadeRechecks checks which crops the careful model reads again,
// and what the cascade answers for them, against the two models' own
// probabilities.
func TestCascadeRechecks(t *testing.T) {
	crops := benchCrops(t, 8)
	if art, err := cardart.New(cardart.Options{}); err == nil {
		defer art.Close()
		cr := NewCropper()
		defer cr.Close()
		for _, c := range []string{"QS", "TD", "7H", "AC"} {
			face, err := art.Face("neoclassical", cards.MustParse(c))
			if err != nil {
				t.Skipf("no card art: %v", err)
			}
			for _, px := range []float64{1.5, 3} {
				sc := renderCard(t, face, px)
				for _, f := range sc.frames {
					crop := gocv.NewMat()
					if err := cr.Cut(sc.img, f, &crop); err != nil {
						t.Fatal(err)
					}
					crops = append(crops, crop)
				}
				sc.img.Close()
			}
		}
		defer func() {
			for _, m := range crops[8:] {
				m.Close()
			}
		}()
	}
	careful := openClassifier(t)
	fast, err := Open(fastModelPath)
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	fl, err := fast.forward(crops)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := careful.forward(crops)
	if err != nil {
		t.Fatal(err)
	}
	k := len(fast.class)
	for _, below := range []float64{1e-9, 0.5, 0.9, 0.99, 1} {
		c, err := OpenCascade(fastModelPath, modelPath, below)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Classify(crops)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		var rechecked, others int
		for i := range crops {
			p := make([]float64, k)
			softmaxAdd(fl[i*k:(i+1)*k], p)
			best, conf := argmax(p)
			n := 1.0
			if conf < below {
				rechecked++
				softmaxAdd(cl[i*k:(i+1)*k], p)
				best, conf = argmax(p)
				n = 2
			}
			want := fast.class[best]
			want.Confidence = conf / n
			if want.Card.Valid() {
				other := cards.Card{Rank: want.Card.Rank, Suit: want.Card.Suit.Other()}
				o := slices.IndexFunc(fast.class, func(r Result) bool { return r.Card == other })
				want.OtherSuit = p[o] / n
				others++
			}
			if got[i].Card != want.Card || got[i].Back != want.Back || math.Abs(got[i].Confidence-want.Confidence) > 1e-9 ||
				math.Abs(got[i].OtherSuit-want.OtherSuit) > 1e-9 {
				t.Errorf("below %v, crop %d: got %v, want %v", below, i, got[i], want)
			}
		}
		t.Logf("below %v: %d of %d crops read again", below, rechecked, len(crops))
		if below == 1 && rechecked == 0 {
			t.Error("below 1: no crop read again; the test reads nothing of the careful model")
		}
		if others == 0 {
			t.Errorf("below %v: no crop read as a card; the test reads no OtherSuit", below)
		}
	}
}

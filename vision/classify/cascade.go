package classify

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gocv.io/x/gocv"
)

// DefaultRecheckBelow is the fast model's confidence below which a
// Cascade reads a crop again with the careful model: about one crop in
// twenty on the held-out decks' augmented crops.
const DefaultRecheckBelow = 0.9

// Cascade reads crops with a fast model, and reads again with a careful
// model each crop the fast one is unsure of. For those crops it answers
// the class with the highest mean of the two models' probabilities, so
// two models that fail differently correct each other where either is in
// doubt, while most crops cost only the fast model's time.
//
// It owns both Classifiers. Like them it is not safe for concurrent use.
type Cascade struct {
	fast, careful *Classifier
	below         float64

	unsure []gocv.Mat // scratch: the crops read again
	which  []int      // their indices in the batch
	p      []float64  // scratch: one crop's mean probabilities
}

// OpenCascade opens the two models (see Open). They must answer the same
// classes and hold out the same decks, so that figures measured on those
// decks stay measured on data neither model saw. below is the fast
// model's confidence under which a crop is read again, in (0, 1];
// DefaultRecheckBelow suits the committed models.
func OpenCascade(fastPath, carefulPath string, below float64) (*Cascade, error) {
	if !(below > 0 && below <= 1) {
		return nil, fmt.Errorf("classify: recheck below %v: want a confidence in (0, 1]", below)
	}
	fast, err := Open(fastPath)
	if err != nil {
		return nil, err
	}
	careful, err := Open(carefulPath)
	if err != nil {
		fast.Close()
		return nil, err
	}
	fm, cm := fast.Metadata(), careful.Metadata()
	switch {
	case !slices.Equal(fm.Classes, cm.Classes):
		err = errors.New("the two models answer different classes")
	case !sameSet(fm.HeldOutDecks, cm.HeldOutDecks):
		err = fmt.Errorf("the fast model holds out %v, the careful one %v", fm.HeldOutDecks, cm.HeldOutDecks)
	}
	if err != nil {
		fast.Close()
		careful.Close()
		return nil, fmt.Errorf("classify: cascade of %s and %s: %w", fastPath, carefulPath, err)
	}
	return &Cascade{fast: fast, careful: careful, below: below}, nil
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Metadata returns the careful model's metadata: its held-out decks are
// the fast model's too (OpenCascade checks).
func (c *Cascade) Metadata() Metadata { return c.careful.Metadata() }

// Close releases both models. It is safe to call more than once.
func (c *Cascade) Close() error {
	c.fast.Close()
	c.careful.Close()
	return nil
}

// Classify reads the crops as Classifier.Classify does: at most MaxBatch,
// a Result per crop, in order.
func (c *Cascade) Classify(crops []gocv.Mat) ([]Result, error) {
	fl, err := c.fast.forward(crops)
	if err != nil || fl == nil {
		return nil, err
	}
	k := len(c.fast.class)
	res := make([]Result, len(crops))
	c.unsure, c.which = c.unsure[:0], c.which[:0]
	for i := range res {
		res[i] = c.fast.result(fl[i*k : (i+1)*k])
		if res[i].Confidence < c.below {
			c.unsure = append(c.unsure, crops[i])
			c.which = append(c.which, i)
		}
	}
	if len(c.unsure) == 0 {
		return res, nil
	}
	cl, err := c.careful.forward(c.unsure)
	clear(c.unsure) // the crops stay the caller's
	if err != nil {
		return nil, err
	}
	if cap(c.p) < k {
		c.p = make([]float64, k)
	}
	p := c.p[:k]
	for j, i := range c.which {
		clear(p)
		softmaxAdd(fl[i*k:(i+1)*k], p)
		softmaxAdd(cl[j*k:(j+1)*k], p)
		best, sum := argmax(p)
		res[i] = c.fast.class[best]
		res[i].Confidence = sum / 2
		if o := c.fast.other[best]; o >= 0 {
			res[i].OtherSuit = p[o] / 2
		}
	}
	return res, nil
}

// softmaxAdd adds the softmax of logits z to p.
func softmaxAdd(z []float32, p []float64) {
	mx := slices.Max(z)
	var sum float64
	for _, v := range z {
		sum += math.Exp(float64(v - mx))
	}
	for q, v := range z {
		p[q] += math.Exp(float64(v-mx)) / sum
	}
}

// argmax returns the index of the largest value of p and the value.
func argmax(p []float64) (int, float64) {
	best := 0
	for i := range p {
		if p[i] > p[best] {
			best = i
		}
	}
	return best, p[best]
}

package classify

import (
	"errors"
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"

	"bjmonitor/cards"
)

// Model reads corner crops and owns the networks it reads with:
// *Classifier and *Cascade are ones.
type Model interface {
	Classify(crops []gocv.Mat) ([]Result, error)
	Close() error
}

var (
	_ Model = (*Classifier)(nil)
	_ Model = (*Cascade)(nil)
	_ Model = (*Enrolled)(nil)
)

// MatchOptions say when an enrolled deck's templates overrule the model.
type MatchOptions struct {
	// MinScore is the normalised cross-correlation (-1..1) the best
	// card's template must reach on a crop.
	MinScore float64
	// MinMargin is by how much the best card must beat the best other
	// card's template.
	MinMargin float64
	// Confidence is what a reading the templates decide is reported
	// with (the model's own, when it read the same card surer).
	Confidence float64
}

// DefaultMatchOptions returns the thresholds chosen on the gnome decks
// (see TestEnrolledThresholds and the package doc): on crops cut from
// rendered tables, every template decision at these thresholds was
// right, and a card's own template beat every other card's by far more
// than MinMargin, while the template of a card of the same rank or suit
// came closest.
func DefaultMatchOptions() MatchOptions {
	return MatchOptions{MinScore: 0.6, MinMargin: 0.1, Confidence: 0.99}
}

// shiftPx is how far, in crop pixels each way (1 mm at 2 px/mm), a
// template is slid over a crop: the corner found in play may be off by
// about that much from where enrolment found it.
const shiftPx = 2

// shifts is the number of template positions tried on a crop.
const shifts = (2*shiftPx + 1) * (2*shiftPx + 1)

// Match is how a crop compares with an enrolled deck's templates.
type Match struct {
	// Card is the card whose template matches best, Score its normalised
	// cross-correlation over the deck's index region (the best of its
	// two corners and of every shift), and Second the best score of any
	// other card.
	Card          cards.Card
	Score, Second float64
}

// Decided reports whether the match is clear enough to decide the card.
func (m Match) Decided(o MatchOptions) bool {
	return m.Card.Valid() && m.Score >= o.MinScore && m.Score-m.Second >= o.MinMargin
}

// Enrolled reads crops with a model, then compares each crop the model
// reads as a card with the templates of the table's own enrolled deck.
// Where one card's template is clearly the best (MatchOptions), that card
// is the answer; otherwise the model's answer stands. "none" and "back"
// are always the model's. The comparison is normalised cross-correlation
// of grey levels over the deck's index region (the box that holds the ink
// of every enrolled index, plus 1 mm), with the template slid up to 1 mm
// each way.
//
// It owns the model and its templates: Close releases both. Like the
// model it is not safe for concurrent use.
type Enrolled struct {
	model  Model
	opts   MatchOptions
	region image.Rectangle // the deck's index region, in crop pixels
	cards  []cards.Card    // the card of each template row, two rows a card
	tmpl   gocv.Mat        // one row a template: zero mean, unit norm, float32
	grey   gocv.Mat        // scratch: one crop in grey
	closed bool
}

// NewEnrolled returns a reader of the deck d that falls back on model. It
// takes ownership of model: Close closes it, also when NewEnrolled fails.
func NewEnrolled(model Model, d *Deck, opts MatchOptions) (*Enrolled, error) {
	if model == nil {
		return nil, errors.New("classify: NewEnrolled needs a model")
	}
	if err := d.Validate(); err != nil {
		model.Close()
		return nil, err
	}
	if !(opts.MinScore > 0 && opts.MinScore <= 1 && opts.MinMargin >= 0 && opts.MinMargin < 2 && opts.Confidence > 0 && opts.Confidence <= 1) {
		model.Close()
		return nil, fmt.Errorf("classify: match options %+v: want MinScore in (0, 1], MinMargin in [0, 2), Confidence in (0, 1]", opts)
	}
	region := deckRegion(d)
	n := region.Dx() * region.Dy()
	e := &Enrolled{model: model, opts: opts, region: region, grey: gocv.NewMat(),
		tmpl: gocv.NewMatWithSize(2*len(d.Cards), n, gocv.MatTypeCV32F)}
	data, err := e.tmpl.DataPtrFloat32()
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("classify: %w", err)
	}
	for i, c := range d.Cards {
		for k, t := range c.Corners {
			row := 2*i + k
			normalise(data[row*n:(row+1)*n], t.Grey, CropCols, region, image.Point{})
			e.cards = append(e.cards, c.Card)
		}
	}
	return e, nil
}

// deckRegion is the box holding the ink of every template, grown by the
// shift, and kept far enough inside the crop that every shift of it
// stays inside.
func deckRegion(d *Deck) image.Rectangle {
	var r image.Rectangle
	for _, c := range d.Cards {
		for _, t := range c.Corners {
			r = r.Union(t.InkRect())
		}
	}
	r = r.Inset(-shiftPx)
	return r.Intersect(image.Rect(0, 0, CropCols, CropRows).Inset(shiftPx))
}

// normalise writes into dst the grey levels of src (stride cols) over r
// shifted by s, less their mean and scaled to unit norm; a flat patch
// gives zeros, which correlate with nothing.
func normalise(dst []float32, src []byte, cols int, r image.Rectangle, s image.Point) {
	r = r.Add(s)
	var sum float64
	i := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			v := float64(src[y*cols+x])
			dst[i] = float32(v)
			sum += v
			i++
		}
	}
	mean := float32(sum / float64(len(dst)))
	var ss float64
	for i := range dst {
		dst[i] -= mean
		ss += float64(dst[i]) * float64(dst[i])
	}
	if ss < 1e-6 {
		clear(dst)
		return
	}
	k := float32(1 / math.Sqrt(ss))
	for i := range dst {
		dst[i] *= k
	}
}

// Close releases the templates and closes the model. It is safe to call
// more than once.
func (e *Enrolled) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	e.tmpl.Close()
	e.grey.Close()
	return e.model.Close()
}

// Classify reads the crops as Classifier.Classify does (at most MaxBatch,
// a Result per crop, in order), with the enrolled deck deciding the card
// wherever its templates are clear.
func (e *Enrolled) Classify(crops []gocv.Mat) ([]Result, error) {
	if e.closed {
		return nil, errors.New("classify: Classify on a closed Enrolled")
	}
	res, err := e.model.Classify(crops) // checks every crop's size and type
	if err != nil || res == nil {
		return res, err
	}
	var which []int
	for i, r := range res {
		if r.Card.Valid() {
			which = append(which, i)
		}
	}
	if len(which) == 0 {
		return res, nil
	}
	picked := make([]gocv.Mat, len(which))
	for j, i := range which {
		picked[j] = crops[i]
	}
	ms, err := e.match(picked)
	if err != nil {
		return nil, err
	}
	for j, i := range which {
		m := ms[j]
		if !m.Decided(e.opts) {
			continue
		}
		if res[i].Card == m.Card {
			res[i].Confidence = math.Max(res[i].Confidence, e.opts.Confidence)
		} else {
			res[i] = Result{Card: m.Card, Confidence: e.opts.Confidence}
		}
	}
	return res, nil
}

// Match compares each crop (CropCols×CropRows, 8-bit BGR) with the
// templates, whatever the model reads there: for measuring and for
// explaining a reading.
func (e *Enrolled) Match(crops []gocv.Mat) ([]Match, error) {
	if e.closed {
		return nil, errors.New("classify: Match on a closed Enrolled")
	}
	for i, m := range crops {
		if m.Ptr() == nil || m.Empty() || m.Type() != gocv.MatTypeCV8UC3 || m.Cols() != CropCols || m.Rows() != CropRows {
			return nil, fmt.Errorf("classify: crop %d is not a %dx%d 8-bit BGR Mat", i, CropCols, CropRows)
		}
	}
	return e.match(crops)
}

// matchBatch bounds the crops compared in one matrix product, so its
// scratch stays a few MB.
const matchBatch = 32

// match compares checked crops with the templates: every shifted window
// of every crop is normalised, and one matrix product gives the
// correlation of each with each template.
func (e *Enrolled) match(crops []gocv.Mat) ([]Match, error) {
	out := make([]Match, 0, len(crops))
	for lo := 0; lo < len(crops); lo += matchBatch {
		part, err := e.matchPart(crops[lo:min(len(crops), lo+matchBatch)])
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	return out, nil
}

func (e *Enrolled) matchPart(crops []gocv.Mat) ([]Match, error) {
	n := e.region.Dx() * e.region.Dy()
	win := gocv.NewMatWithSize(len(crops)*shifts, n, gocv.MatTypeCV32F)
	defer win.Close()
	wd, err := win.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("classify: %w", err)
	}
	row := 0
	for _, c := range crops {
		gocv.CvtColor(c, &e.grey, gocv.ColorBGRToGray)
		g, err := e.grey.DataPtrUint8()
		if err != nil {
			return nil, fmt.Errorf("classify: %w", err)
		}
		for dy := -shiftPx; dy <= shiftPx; dy++ {
			for dx := -shiftPx; dx <= shiftPx; dx++ {
				normalise(wd[row*n:(row+1)*n], g, CropCols, e.region, image.Pt(dx, dy))
				row++
			}
		}
	}
	none := gocv.NewMat()
	defer none.Close()
	score := gocv.NewMat()
	defer score.Close()
	// score = tmpl · winᵀ: templates down, crop windows across.
	gocv.Gemm(e.tmpl, win, 1, none, 0, &score, 2 /* GEMM_2_T */)
	sd, err := score.DataPtrFloat32()
	if err != nil || len(sd) != len(e.cards)*row {
		return nil, fmt.Errorf("classify: template scores: %d values for %d×%d (%v)", len(sd), len(e.cards), row, err)
	}
	out := make([]Match, len(crops))
	for j := range crops {
		out[j] = e.best(sd, row, j)
	}
	return out, nil
}

// best reads crop j's scores off the score matrix (templates down, cols
// windows across): each card's best over its two corners and every shift,
// the best card, and the best of the others.
func (e *Enrolled) best(sd []float32, cols, j int) Match {
	m := Match{Score: math.Inf(-1), Second: math.Inf(-1)}
	for t := 0; t < len(e.cards); t += 2 { // a card's two corners are rows t and t+1
		s := float32(math.Inf(-1))
		for _, r := range []int{t, t + 1} {
			for _, v := range sd[r*cols+j*shifts : r*cols+(j+1)*shifts] {
				s = max(s, v)
			}
		}
		switch v := float64(s); {
		case v > m.Score:
			m.Second, m.Score, m.Card = m.Score, v, e.cards[t]
		case v > m.Second:
			m.Second = v
		}
	}
	return m
}

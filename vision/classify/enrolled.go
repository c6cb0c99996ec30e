package classify

import (
	"errors"
	"fmt"
	"image"
	"image/color"
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

// MatchOptions say when an enrolled deck overrules the model.
type MatchOptions struct {
	// MinScore is the cosine (-1..1) between a crop's features and the
	// best card's that the match must reach.
	MinScore float64
	// ConfirmRatio is how many times farther (in 1 − cosine) the best
	// other card must be from the crop than the best card, for the deck
	// to confirm the card the model reads; OverruleRatio, for it to put
	// another card in its place.
	ConfirmRatio, OverruleRatio float64
	// Confidence is what a reading the deck decides is reported with
	// (the model's own, when it read the same card surer).
	Confidence float64
	// Doubted is what a reading is reported with where the deck cannot
	// decide the card but rules out the model's: the best card scores
	// MinScore, and the crop lies OverruleRatio times nearer its
	// enrolled corners than the model's card's. The best card is then
	// reported, in doubt: Doubted lies below the monitor's Confident,
	// so its round goes out for review. Zero leaves the model's reading.
	Doubted float64
}

// DefaultMatchOptions returns the thresholds chosen on the gnome decks
// and on procedural designs in font families held out of training, never
// on the KDE acceptance decks (enroll/README.md): of 3,640 corners of 35
// enrolled decks dealt into hands, they decided 1,918, none wrong; a
// ratio of 2 would have decided 2,332, one of them wrongly.
func DefaultMatchOptions() MatchOptions {
	return MatchOptions{MinScore: 0.8, ConfirmRatio: 3, OverruleRatio: 3, Confidence: 0.99, Doubted: 0.7}
}

// Match is how a crop compares with an enrolled deck.
type Match struct {
	// Card is the card whose enrolled corners lie nearest the crop in
	// the model's features, Score that cosine (the best of its two
	// corners and of their variants), and Second the best cosine of any
	// other card, RunnerUp.
	Card, RunnerUp cards.Card
	Score, Second  float64
	// Likeness holds the score of every enrolled card.
	Likeness *Likeness
}

// Likeness is how near a crop lies to each card of an enrolled deck, in
// the card index network's features: the cosine of the card's nearest
// enrolled corner (of its two, and of their variants).
type Likeness struct {
	cos [52]float32
	set [52]bool
}

func likenessIndex(c cards.Card) (int, bool) {
	if !c.Valid() {
		return 0, false
	}
	return int(c.Suit-cards.Spades)*13 + int(c.Rank-cards.Ace), true
}

// Of returns the crop's cosine with card c, and whether c is enrolled.
func (l *Likeness) Of(c cards.Card) (float64, bool) {
	i, ok := likenessIndex(c)
	if l == nil || !ok || !l.set[i] {
		return 0, false
	}
	return float64(l.cos[i]), true
}

// Prefers reports whether the crop lies at least ratio times nearer card
// a's enrolled corners than card b's, in 1 − cosine: both enrolled, and
// the crop looks like a rather than b. It compares two cards only, as
// where a card's two corners read as a and b, the question is which of
// those two the card is.
func (l *Likeness) Prefers(a, b cards.Card, ratio float64) bool {
	ca, okA := l.Of(a)
	cb, okB := l.Of(b)
	return okA && okB && a != b && 1-cb >= ratio*math.Max(1-ca, 1e-9)
}

// Set records the crop's cosine with card c (a valid card; others are
// ignored).
func (l *Likeness) Set(c cards.Card, cos float64) {
	if i, ok := likenessIndex(c); ok {
		l.cos[i], l.set[i] = float32(cos), true
	}
}

// Ratio is how many times farther the runner-up is from the crop than
// the best card, in 1 − cosine.
func (m Match) Ratio() float64 { return (1 - m.Second) / math.Max(1-m.Score, 1e-9) }

// Decided reports whether the match is clear enough to decide the card,
// given the card the model reads (confirming it takes less than
// overruling it).
func (m Match) Decided(o MatchOptions, model cards.Card) bool {
	ratio := o.OverruleRatio
	if m.Card == model {
		ratio = o.ConfirmRatio
	}
	return m.Card.Valid() && m.Score >= o.MinScore && m.Ratio() >= ratio
}

// Enrolled reads crops with a model, then compares each crop the model
// reads as a card with the table's own enrolled deck. Where one card is
// clearly the nearest (MatchOptions: clearer to put another card in the
// model's place than to confirm the model's), that card is the answer.
// Where none is, but the crop lies far nearer the best card than the
// card the model reads, the best card is the answer, in doubt
// (MatchOptions.Doubted); otherwise the model's answer stands. "none"
// and "back" are always the model's.
//
// Crops are compared by their features (Embedder): what the card index
// network computes of a crop before it decides the class. The network
// learned them on many card designs, and in them two crops of one index
// lie close under other light, blur and a millimetre of shift, where a
// pixel correlation tells a small club from a small spade no better than
// the light does. Each enrolled corner is taken as it was enrolled,
// shifted by 1 mm each way and diagonally, and blurred (variants), so
// that a crop cut a little off, or softer, in play still finds it.
//
// It owns the model and the embedder: Close closes both. Like the model
// it is not safe for concurrent use.
type Enrolled struct {
	model Model
	emb   *Embedder
	opts  MatchOptions
	cards []cards.Card // the card of each row of vecs
	// vecs holds the features of every variant of every enrolled corner,
	// one a row, unit length, float32.
	vecs   gocv.Mat
	closed bool
}

// variantShifts are the shifts, in crop pixels (1 mm), each enrolled
// corner is compared at, besides its blurred copy.
var variantShifts = []image.Point{{0, 0}, {2, 0}, {-2, 0}, {0, 2}, {0, -2}, {2, 2}, {-2, -2}, {2, -2}, {-2, 2}}

// variantBlur is the Gaussian blur (σ, crop pixels) of the blurred variant.
const variantBlur = 0.8

// NewEnrolled returns a reader of the deck d that falls back on model,
// comparing crops by emb's features. Where model names its network
// (Classifier, Cascade: its careful model), emb must have been taken
// from that network. It takes ownership of model and emb: Close closes
// them, also when NewEnrolled fails.
func NewEnrolled(model Model, emb *Embedder, d *Deck, opts MatchOptions) (_ *Enrolled, err error) {
	if model == nil || emb == nil {
		if model != nil {
			model.Close()
		}
		if emb != nil {
			emb.Close()
		}
		return nil, errors.New("classify: NewEnrolled needs a model and an embedder")
	}
	e := &Enrolled{model: model, emb: emb, opts: opts}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	if err := d.Validate(); err != nil {
		return nil, err
	}
	// The thresholds were chosen on the features of the model that reads
	// the crops; another network's features compare crops on another
	// scale.
	if src, ok := model.(interface{ Metadata() Metadata }); ok {
		if got, want := emb.Metadata().SourceSHA256, src.Metadata().SHA256; got != want {
			return nil, fmt.Errorf("classify: the features model was taken from the model with SHA-256 %s, not from the card model (%s): export the card model's features (models/cardindex/features.py)", got, want)
		}
	}
	if !(opts.MinScore > 0 && opts.MinScore <= 1 && opts.ConfirmRatio >= 1 && opts.OverruleRatio >= opts.ConfirmRatio && opts.OverruleRatio <= 100 && opts.Confidence > 0 && opts.Confidence <= 1 && opts.Doubted >= 0 && opts.Doubted < opts.Confidence) {
		return nil, fmt.Errorf("classify: match options %+v: want MinScore in (0, 1], 1 ≤ ConfirmRatio ≤ OverruleRatio ≤ 100, Confidence in (0, 1], 0 ≤ Doubted < Confidence", opts)
	}
	var crops []gocv.Mat
	defer func() {
		for _, c := range crops {
			c.Close()
		}
	}()
	for _, c := range d.Cards {
		for _, t := range c.Corners {
			vs, err := variants(t.BGR)
			crops = append(crops, vs...)
			if err != nil {
				return nil, err
			}
			for range vs {
				e.cards = append(e.cards, c.Card)
			}
		}
	}
	vecs, err := e.embed(crops)
	if err != nil {
		return nil, err
	}
	e.vecs = gocv.NewMatWithSize(len(vecs), emb.Metadata().Size, gocv.MatTypeCV32F)
	data, err := e.vecs.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("classify: %w", err)
	}
	for i, v := range vecs {
		copy(data[i*len(v):], v)
	}
	return e, nil
}

// OpenEnrolled returns a reader of the deck file at deckPath, comparing
// crops by the features model at featuresPath, that falls back on model.
// It takes ownership of model: Close closes it, also when OpenEnrolled
// fails.
func OpenEnrolled(model Model, deckPath, featuresPath string) (*Enrolled, error) {
	d, err := LoadDeck(deckPath)
	if err != nil {
		model.Close()
		return nil, err
	}
	emb, err := OpenEmbedder(featuresPath)
	if err != nil {
		model.Close()
		return nil, err
	}
	return NewEnrolled(model, emb, d, DefaultMatchOptions())
}

// variants returns an enrolled corner's crop (its BGR bytes), shifted by
// each of variantShifts, and blurred. The caller closes them.
func variants(bgr []byte) ([]gocv.Mat, error) {
	src, err := gocv.NewMatFromBytes(CropRows, CropCols, gocv.MatTypeCV8UC3, bgr)
	if err != nil {
		return nil, fmt.Errorf("classify: enrolled crop: %w", err)
	}
	defer src.Close()
	shift := gocv.NewMatWithSize(2, 3, gocv.MatTypeCV64F)
	defer shift.Close()
	shift.SetDoubleAt(0, 0, 1)
	shift.SetDoubleAt(1, 1, 1)
	out := make([]gocv.Mat, 0, len(variantShifts)+1)
	for _, s := range variantShifts {
		m := gocv.NewMat()
		shift.SetDoubleAt(0, 2, float64(s.X))
		shift.SetDoubleAt(1, 2, float64(s.Y))
		gocv.WarpAffineWithParams(src, &m, shift, image.Pt(CropCols, CropRows), gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
		out = append(out, m)
	}
	b := gocv.NewMat()
	gocv.GaussianBlur(src, &b, image.Pt(0, 0), variantBlur, variantBlur, gocv.BorderReplicate)
	return append(out, b), nil
}

// embed returns the features of any number of checked crops.
func (e *Enrolled) embed(crops []gocv.Mat) ([][]float32, error) {
	var out [][]float32
	for done := 0; done < len(crops); {
		part, err := e.emb.Embed(crops[done:min(len(crops), done+MaxBatch)])
		if err != nil {
			return nil, err
		}
		out, done = append(out, part...), done+len(part)
	}
	return out, nil
}

// Close closes the model and the embedder and releases the deck's
// features. It is safe to call more than once.
func (e *Enrolled) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if e.vecs.Ptr() != nil {
		e.vecs.Close()
	}
	err := e.model.Close()
	return errors.Join(err, e.emb.Close())
}

// Classify reads the crops as Classifier.Classify does (at most MaxBatch,
// a Result per crop, in order), with the enrolled deck deciding the card
// wherever it is clear. Each Result that names a card carries the crop's
// Likeness with every enrolled card.
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
		res[i].Likeness = m.Likeness
		decided := m.Decided(e.opts, res[i].Card)
		switch {
		case decided && res[i].Card == m.Card:
			res[i].Confidence = math.Max(res[i].Confidence, e.opts.Confidence)
			res[i].OtherSuit = 0 // the deck told the card from every other
		case decided:
			res[i] = Result{Card: m.Card, Confidence: e.opts.Confidence, Likeness: m.Likeness}
		case e.opts.Doubted > 0 && m.Score >= e.opts.MinScore && m.Likeness.Prefers(m.Card, res[i].Card, e.opts.OverruleRatio):
			res[i] = Result{Card: m.Card, Confidence: e.opts.Doubted, Likeness: m.Likeness}
		}
	}
	return res, nil
}

// Match compares each crop (CropCols×CropRows, 8-bit BGR) with the
// enrolled deck, whatever the model reads there: for measuring and for
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

// match compares checked crops with the deck: one matrix product of the
// crops' features with every enrolled variant's gives each cosine.
func (e *Enrolled) match(crops []gocv.Mat) ([]Match, error) {
	qs, err := e.embed(crops)
	if err != nil {
		return nil, err
	}
	q := gocv.NewMatWithSize(len(qs), e.vecs.Cols(), gocv.MatTypeCV32F)
	defer q.Close()
	qd, err := q.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("classify: %w", err)
	}
	for i, v := range qs {
		copy(qd[i*len(v):], v)
	}
	none := gocv.NewMat()
	defer none.Close()
	cos := gocv.NewMat()
	defer cos.Close()
	gocv.Gemm(q, e.vecs, 1, none, 0, &cos, 2 /* GEMM_2_T: q · vecsᵀ */)
	cd, err := cos.DataPtrFloat32()
	if err != nil || len(cd) != len(qs)*len(e.cards) {
		return nil, fmt.Errorf("classify: deck cosines: %d values for %d×%d (%v)", len(cd), len(qs), len(e.cards), err)
	}
	out := make([]Match, len(qs))
	for j := range qs {
		out[j] = e.best(cd[j*len(e.cards) : (j+1)*len(e.cards)])
	}
	return out, nil
}

// best reads a crop's cosines with every enrolled variant: a card's score
// is its best variant's (a card's rows of vecs follow each other, and
// Deck.Validate allows no card twice). It returns the best card, and the
// best of the others, with every card's score.
func (e *Enrolled) best(cos []float32) Match {
	m := Match{Score: math.Inf(-1), Second: math.Inf(-1), Likeness: new(Likeness)}
	for k := 0; k < len(cos); {
		c, s := e.cards[k], math.Inf(-1)
		for ; k < len(cos) && e.cards[k] == c; k++ {
			s = math.Max(s, float64(cos[k]))
		}
		m.Likeness.Set(c, s)
		switch {
		case s > m.Score:
			m.Second, m.RunnerUp = m.Score, m.Card
			m.Score, m.Card = s, c
		case s > m.Second:
			m.Second, m.RunnerUp = s, c
		}
	}
	return m
}

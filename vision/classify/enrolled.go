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
	// ConfirmRatio is how many times farther (in 1 − correlation) the
	// best other card's template must be from the crop than the best
	// card's, for the templates to confirm the card the model reads;
	// OverruleRatio, for them to put another card in its place.
	ConfirmRatio, OverruleRatio float64
	// Confidence is what a reading the templates decide is reported
	// with (the model's own, when it read the same card surer).
	Confidence float64
}

// DefaultMatchOptions returns the thresholds chosen on the gnome decks
// only, never on the KDE acceptance decks (enroll/README.md): of 1,352
// corners of 13 enrolled gnome decks dealt into hands, templates that
// agreed with the model at a ratio of 2 decided 583, none wrong; every
// match that disagreed with the model was wrong, up to a ratio of 4.4, so
// overruling takes 5. The score floor of 0.8 keeps a corner that looks
// like no enrolled card from deciding anything.
func DefaultMatchOptions() MatchOptions {
	return MatchOptions{MinScore: 0.8, ConfirmRatio: 2, OverruleRatio: 5, Confidence: 0.99}
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
	// other card, Runner-up.
	Card, RunnerUp cards.Card
	Score, Second  float64
}

// Ratio is how many times farther the runner-up is from the crop than
// the best card, in 1 − correlation.
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
// reads as a card with the templates of the table's own enrolled deck.
// Where one card's template is clearly the best (MatchOptions: clearer to
// put another card in the model's place than to confirm the model's),
// that card is the answer; otherwise the model's answer stands. "none"
// and "back" are always the model's.
//
// The comparison is the normalised cross-correlation (NCC) of a template
// with the crop over the template's index box (the box of its index's
// ink, with half a millimetre of paper round it), with the template slid
// up to 1 mm each way; the upper and the lower half of the box (rank and
// pip) are compared apart, and the worse half counts. Each pixel counts twice: its brightness, which
// gives the shapes of rank and pip, and its redness (red less green),
// which tells hearts and diamonds from spades and clubs. NCC is 1 for a
// crop that is the template under other light, and does not depend on
// the light's brightness or contrast.
//
// It owns the model and its templates: Close releases both. Like the
// model it is not safe for concurrent use.
type Enrolled struct {
	model  Model
	opts   MatchOptions
	region image.Rectangle   // the deck's index region, in crop pixels
	cards  []cards.Card      // the card of each template, two a card
	boxes  []image.Rectangle // each template part's box, in crop pixels, parts a template
	flat   []bool            // a template part with no ink, which says nothing
	// tmpl holds one template part a row: its features over the region,
	// brightness then redness, zero outside its box, zero mean (each
	// feature) and unit norm inside; float32.
	tmpl   gocv.Mat
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
	if !(opts.MinScore > 0 && opts.MinScore <= 1 && opts.ConfirmRatio >= 1 && opts.OverruleRatio >= opts.ConfirmRatio && opts.OverruleRatio <= 100 && opts.Confidence > 0 && opts.Confidence <= 1) {
		model.Close()
		return nil, fmt.Errorf("classify: match options %+v: want MinScore in (0, 1], 1 ≤ ConfirmRatio ≤ OverruleRatio ≤ 100, Confidence in (0, 1]", opts)
	}
	region := deckRegion(d)
	n := 2 * region.Dx() * region.Dy()
	e := &Enrolled{model: model, opts: opts, region: region,
		tmpl: gocv.NewMatWithSize(2*parts*len(d.Cards), n, gocv.MatTypeCV32F)}
	data, err := e.tmpl.DataPtrFloat32()
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("classify: %w", err)
	}
	row := 0
	for _, c := range d.Cards {
		for _, t := range c.Corners {
			f := newFeatures(t.BGR)
			for _, box := range split(t.InkRect().Inset(-1).Intersect(region)) {
				e.flat = append(e.flat, !f.template(data[row*n:(row+1)*n], region, box))
				e.boxes = append(e.boxes, box)
				row++
			}
			e.cards = append(e.cards, c.Card)
		}
	}
	return e, nil
}

// parts is how many parts of its index box a template is compared on:
// the upper half, mostly the rank, and the lower half, mostly the suit's
// pip. A crop matches a template as well as its worse half does, so that
// a small pip that differs (a spade and a club) counts as much as a rank.
const parts = 2

// split cuts an index box into its parts.
func split(b image.Rectangle) [parts]image.Rectangle {
	mid := (b.Min.Y + b.Max.Y) / 2
	return [parts]image.Rectangle{image.Rect(b.Min.X, b.Min.Y, b.Max.X, mid), image.Rect(b.Min.X, mid, b.Max.X, b.Max.Y)}
}

// edgeKeep is how far, in crop pixels (2 mm), index boxes keep from the
// card's edges: once a template slides 1 mm, the felt of a rounded corner
// would show nearer.
const edgeKeep = 2 * shiftPx

// deckRegion is the box holding every template's index box, kept
// edgeKeep from the card's edges and far enough inside the crop that
// every shift of it stays inside.
func deckRegion(d *Deck) image.Rectangle {
	var r image.Rectangle
	for _, c := range d.Cards {
		for _, t := range c.Corners {
			r = r.Union(t.InkRect().Inset(-1))
		}
	}
	return r.Intersect(image.Rect(edgeKeep, edgeKeep, CropCols-shiftPx, CropRows-shiftPx))
}

// features are a crop's two features a pixel, brightness and redness,
// with running sums of each and of their squares, so that the spread of
// any box is found in constant time.
type features struct {
	bright, red [CropRows * CropCols]float64
	s2          [(CropRows + 1) * (CropCols + 1)]float64 // squares of both features
	sb, sr      [(CropRows + 1) * (CropCols + 1)]float64 // each feature
}

// newFeatures computes the features of a crop's BGR bytes.
func newFeatures(bgr []byte) *features {
	f := &features{}
	const w = CropCols + 1
	for y := range CropRows {
		var rs2, rb, rr float64
		for x := range CropCols {
			i := y*CropCols + x
			b, g, r := float64(bgr[3*i]), float64(bgr[3*i+1]), float64(bgr[3*i+2])
			f.bright[i], f.red[i] = (b+g+r)/3, r-g
			rb += f.bright[i]
			rr += f.red[i]
			rs2 += f.bright[i]*f.bright[i] + f.red[i]*f.red[i]
			j := (y+1)*w + x + 1
			f.sb[j] = f.sb[j-w] + rb
			f.sr[j] = f.sr[j-w] + rr
			f.s2[j] = f.s2[j-w] + rs2
		}
	}
	return f
}

// boxSum sums table t over box r.
func boxSum(t *[(CropRows + 1) * (CropCols + 1)]float64, r image.Rectangle) float64 {
	const w = CropCols + 1
	return t[r.Max.Y*w+r.Max.X] - t[r.Min.Y*w+r.Max.X] - t[r.Max.Y*w+r.Min.X] + t[r.Min.Y*w+r.Min.X]
}

// spread is the root of the sum of squared deviations of each feature
// from its mean over box r: the norm the correlation divides by.
func (f *features) spread(r image.Rectangle) float64 {
	if r.Empty() {
		return 0
	}
	n := float64(r.Dx() * r.Dy())
	sb, sr := boxSum(&f.sb, r), boxSum(&f.sr, r)
	v := boxSum(&f.s2, r) - sb*sb/n - sr*sr/n
	if v <= 1e-6 {
		return 0
	}
	return math.Sqrt(v)
}

// template writes into dst, laid over region (brightness, then redness),
// the features inside box less their means, scaled to unit norm, and
// zeros outside box. It reports false for a flat box (all zeros).
func (f *features) template(dst []float32, region, box image.Rectangle) bool {
	clear(dst)
	sp := f.spread(box)
	if sp == 0 {
		return false
	}
	n := float64(box.Dx() * box.Dy())
	mb, mr := boxSum(&f.sb, box)/n, boxSum(&f.sr, box)/n
	half := region.Dx() * region.Dy()
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			i := (y-region.Min.Y)*region.Dx() + x - region.Min.X
			dst[i] = float32((f.bright[y*CropCols+x] - mb) / sp)
			dst[half+i] = float32((f.red[y*CropCols+x] - mr) / sp)
		}
	}
	return true
}

// window writes into dst the features of region shifted by s, as they
// are, brightness then redness.
func (f *features) window(dst []float32, region image.Rectangle, s image.Point) {
	half := region.Dx() * region.Dy()
	i := 0
	for y := region.Min.Y + s.Y; y < region.Max.Y+s.Y; y++ {
		for x := region.Min.X + s.X; x < region.Max.X+s.X; x++ {
			dst[i] = float32(f.bright[y*CropCols+x])
			dst[half+i] = float32(f.red[y*CropCols+x])
			i++
		}
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
		if !m.Decided(e.opts, res[i].Card) {
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

// match compares checked crops with the templates.
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

// matchPart lays every shifted window of every crop in a row of a
// matrix, and one matrix product with the templates gives each
// correlation's numerator; each template is zero-mean over its box and
// zero outside it, so the windows need no centring.
func (e *Enrolled) matchPart(crops []gocv.Mat) ([]Match, error) {
	n := 2 * e.region.Dx() * e.region.Dy()
	win := gocv.NewMatWithSize(len(crops)*shifts, n, gocv.MatTypeCV32F)
	defer win.Close()
	wd, err := win.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("classify: %w", err)
	}
	feats := make([]*features, len(crops))
	row := 0
	for j, c := range crops {
		b, err := c.DataPtrUint8()
		if err != nil || !c.IsContinuous() {
			return nil, fmt.Errorf("classify: crop %d: not a whole Mat (%v)", j, err)
		}
		feats[j] = newFeatures(b)
		for dy := -shiftPx; dy <= shiftPx; dy++ {
			for dx := -shiftPx; dx <= shiftPx; dx++ {
				feats[j].window(wd[row*n:(row+1)*n], e.region, image.Pt(dx, dy))
				row++
			}
		}
	}
	none := gocv.NewMat()
	defer none.Close()
	score := gocv.NewMat()
	defer score.Close()
	gocv.Gemm(e.tmpl, win, 1, none, 0, &score, 2 /* GEMM_2_T: tmpl · winᵀ */)
	sd, err := score.DataPtrFloat32()
	if err != nil || len(sd) != len(e.boxes)*row {
		return nil, fmt.Errorf("classify: template scores: %d values for %d×%d (%v)", len(sd), len(e.boxes), row, err)
	}
	out := make([]Match, len(crops))
	for j := range crops {
		out[j] = e.best(sd, row, j, feats[j])
	}
	return out, nil
}

// best reads crop j's scores off the score matrix (template parts down,
// cols windows across): a template's score at a shift is its worse part's;
// a card's is the best over its two corners and every shift. It returns
// the best card, and the best of the others.
func (e *Enrolled) best(sd []float32, cols, j int, f *features) Match {
	m := Match{Score: math.Inf(-1), Second: math.Inf(-1)}
	for t := 0; t < len(e.cards); t += 2 { // a card's two corners are templates t and t+1
		s := math.Inf(-1)
		for _, tm := range []int{t, t + 1} {
			for k := range shifts {
				at := image.Pt(k%(2*shiftPx+1)-shiftPx, k/(2*shiftPx+1)-shiftPx)
				worst := math.Inf(1)
				for p := range parts {
					r := tm*parts + p
					if e.flat[r] {
						continue
					}
					v := 0.0
					if sp := f.spread(e.boxes[r].Add(at)); sp > 0 {
						v = float64(sd[r*cols+j*shifts+k]) / sp
					}
					worst = math.Min(worst, v)
				}
				if !math.IsInf(worst, 1) {
					s = math.Max(s, worst)
				}
			}
		}
		switch {
		case s > m.Score:
			m.Second, m.RunnerUp = m.Score, m.Card
			m.Score, m.Card = s, e.cards[t]
		case s > m.Second:
			m.Second, m.RunnerUp = s, e.cards[t]
		}
	}
	return m
}

package classify

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardart"

	"gocv.io/x/gocv"
)

// fakeModel answers what answer says, one Result a crop.
type fakeModel struct {
	answer func(i int) Result
	closed int
}

var _ Model = (*fakeModel)(nil)

func (f *fakeModel) Classify(crops []gocv.Mat) ([]Result, error) {
	out := make([]Result, len(crops))
	for i := range crops {
		out[i] = f.answer(i)
	}
	return out, nil
}

func (f *fakeModel) Close() error { f.closed++; return nil }

// enrolDeck is the held-out gnome deck the enrolment tests enrol: the
// models never trained on it.
const enrolDeck = "neoclassical"

// enrolPx and playPx are the resolutions it is enrolled and played at:
// 1080p's, a card lying a little nearer the camera in play.
const (
	enrolPx = 1.5
	playPx  = 1.6
)

// renderedDeck is enrolDeck enrolled from clean renders at enrolPx: the
// crops of each card's two index corners, as monitor enroll cuts them.
var renderedDeck = sync.OnceValues(func() (*Deck, error) {
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		return nil, err
	}
	defer art.Close()
	cr := NewCropper()
	defer cr.Close()
	d := &Deck{Format: DeckFormat, Created: "2026-12-03T12:00:00Z", Source: enrolDeck + " rendered", PxPerMM: enrolPx,
		Crop: DeckCrop{Cols: CropCols, Rows: CropRows, WidthMM: CropWidthMM, HeightMM: CropHeightMM}}
	for _, c := range cards.Deck() {
		dc := DeckCard{Card: c}
		for k, corner := range []string{"TL", "BR"} {
			crop, err := renderedCrop(art, cr, c, corner, enrolPx, 0, 0, 1)
			if err != nil {
				return nil, err
			}
			b := crop.ToBytes()
			crop.Close()
			dc.Corners[k] = Template{Ink: [4]int{2, 2, 30, 60}, BGR: b}
		}
		d.Cards = append(d.Cards, dc)
	}
	return d, nil
})

// renderedCrop cuts card c's corner ("TL" or "BR") of enrolDeck rendered
// at px, the crop's corner moved (dx, dy) mm into the card and its
// light scaled by gain. The caller closes it.
func renderedCrop(art *cardart.Art, cr *Cropper, c cards.Card, corner string, px, dx, dy, gain float64) (gocv.Mat, error) {
	face, err := art.Face(enrolDeck, c)
	if err != nil {
		return gocv.Mat{}, err
	}
	sc, err := renderScene(face, px)
	if err != nil {
		return gocv.Mat{}, err
	}
	defer sc.img.Close()
	f := sc.frames[corner]
	f.Origin = f.Map(Vec{dx, dy})
	crop := gocv.NewMat()
	if err := cr.Cut(sc.img, f, &crop); err != nil {
		crop.Close()
		return gocv.Mat{}, err
	}
	crop.MultiplyFloat(float32(gain))
	return crop, nil
}

// testDeck returns the rendered deck, skipping the test where no card art
// is installed.
func testDeck(tb testing.TB) *Deck {
	tb.Helper()
	d, err := renderedDeck()
	if err != nil {
		tb.Skipf("no card art: %v", err)
	}
	return d
}

// playCrop is card c's corner as in play: at playPx, cut up to dx, dy mm
// off, under dimmer light. The caller closes it.
func playCrop(tb testing.TB, c cards.Card, corner string, dx, dy float64) gocv.Mat {
	tb.Helper()
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer art.Close()
	cr := NewCropper()
	defer cr.Close()
	crop, err := renderedCrop(art, cr, c, corner, playPx, dx, dy, 0.85)
	if err != nil {
		tb.Fatal(err)
	}
	return crop
}

func TestEnrolledClassify(t *testing.T) {
	d := testDeck(t)
	seven, six := cards.MustParse("7H"), cards.MustParse("6H")
	for _, tc := range []struct {
		name  string
		model Result
		crop  cards.Card // whose corner the crop shows
		want  Result
	}{
		{"model wrong, deck clear", Result{Card: six, Confidence: 0.97}, seven, Result{Card: seven, Confidence: 0.99}},
		{"model unsure, deck agrees", Result{Card: seven, Confidence: 0.5}, seven, Result{Card: seven, Confidence: 0.99}},
		{"model surer than the deck", Result{Card: seven, Confidence: 0.999}, seven, Result{Card: seven, Confidence: 0.999}},
		{"the deck tells the suit, the model could not", Result{Card: seven, Confidence: 0.9, OtherSuit: 0.08}, seven, Result{Card: seven, Confidence: 0.99}},
		{"the deck overrules the model and its other suit", Result{Card: six, Confidence: 0.9, OtherSuit: 0.08}, seven, Result{Card: seven, Confidence: 0.99}},
		{"none stays none", Result{Confidence: 0.9}, seven, Result{Confidence: 0.9}},
		{"back stays back", Result{Back: true, Confidence: 0.8}, seven, Result{Back: true, Confidence: 0.8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{answer: func(int) Result { return tc.model }}
			e, err := NewEnrolled(model, openEmbedder(t), d, DefaultMatchOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			crop := playCrop(t, tc.crop, "BR", 0.5, -0.5)
			defer crop.Close()
			got, err := e.Classify([]gocv.Mat{crop})
			if err != nil {
				t.Fatal(err)
			}
			like := got[0].Likeness
			got[0].Likeness = nil
			if got[0] != tc.want {
				t.Errorf("Classify = %v, want %v", got[0], tc.want)
			}
			switch {
			case !tc.want.Card.Valid() && like != nil:
				t.Errorf("Likeness set on %v", got[0])
			case tc.want.Card.Valid() && like == nil:
				t.Errorf("no Likeness on %v", got[0])
			case tc.want.Card.Valid() && !like.Prefers(seven, six, 1):
				t.Errorf("the crop of %v does not look more like it than like %v", seven, six)
			}
		})
	}
}

// TestEnrolledFeaturesOfItsModel: the features must be the card model's
// own; the fast model's are refused.
func TestEnrolledFeaturesOfItsModel(t *testing.T) {
	d := testDeck(t)
	for _, tc := range []struct {
		path string
		ok   bool
	}{{modelPath, true}, {fastModelPath, false}} {
		m, err := Open(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewEnrolled(m, openEmbedder(t), d, DefaultMatchOptions())
		if (err == nil) != tc.ok {
			t.Errorf("NewEnrolled with %s: error %v, want ok %v", filepath.Base(tc.path), err, tc.ok)
		}
		if err == nil {
			e.Close()
		}
	}
}

func TestLikeness(t *testing.T) {
	a, b, c := cards.MustParse("9D"), cards.MustParse("6D"), cards.MustParse("KS")
	l := new(Likeness)
	l.Set(a, 0.95)
	l.Set(b, 0.7)
	l.Set(cards.Card{}, 0.99) // not a card: ignored
	if got, ok := l.Of(a); !ok || math.Abs(got-0.95) > 1e-6 {
		t.Errorf("Of(%v) = %v, %v; want 0.95, true", a, got, ok)
	}
	if _, ok := l.Of(c); ok {
		t.Errorf("Of(%v) set, want not enrolled", c)
	}
	var none *Likeness
	for _, tc := range []struct {
		l     *Likeness
		a, b  cards.Card
		ratio float64
		want  bool
	}{
		{l, a, b, 5, true}, // 0.3 ≥ 5 × 0.05
		{l, a, b, 7, false},
		{l, b, a, 1, false}, // nearer a than b
		{l, a, c, 1, false}, // c not enrolled
		{l, a, a, 1, false}, // one card is no comparison
		{none, a, b, 1, false},
	} {
		if got := tc.l.Prefers(tc.a, tc.b, tc.ratio); got != tc.want {
			t.Errorf("Prefers(%v, %v, %v) = %v, want %v", tc.a, tc.b, tc.ratio, got, tc.want)
		}
	}
}

// TestEnrolledUnclear: where the deck cannot tell two cards apart, it
// decides nothing; the model's reading stands where it is one of the
// two, and where it is neither, the deck's best card stands in doubt.
func TestEnrolledUnclear(t *testing.T) {
	d := *testDeck(t)
	d.Cards = append([]DeckCard(nil), d.Cards...)
	// Two cards enrolled with one's corners: a crop of it cannot tell
	// them apart.
	d.Cards[1].Corners = d.Cards[0].Corners
	crop := playCrop(t, d.Cards[0].Card, "TL", 0, 0)
	defer crop.Close()
	twins := []cards.Card{d.Cards[0].Card, d.Cards[1].Card}
	for _, tc := range []struct {
		name  string
		model cards.Card
		want  []cards.Card // any of them
		conf  float64
	}{
		{"the model reads one of the two", d.Cards[1].Card, twins[1:], 0.6},
		{"the model reads neither", d.Cards[2].Card, twins, DefaultMatchOptions().Doubted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{answer: func(int) Result { return Result{Card: tc.model, Confidence: 0.6} }}
			e, err := NewEnrolled(model, openEmbedder(t), &d, DefaultMatchOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ms, err := e.Match([]gocv.Mat{crop})
			if err != nil {
				t.Fatal(err)
			}
			if ms[0].Decided(DefaultMatchOptions(), tc.model) {
				t.Errorf("Match = %+v decided, want undecided (two cards share the corners)", ms[0])
			}
			got, err := e.Classify([]gocv.Mat{crop})
			if err != nil {
				t.Fatal(err)
			}
			if got[0].Likeness == nil {
				t.Errorf("no Likeness on %v", got[0])
			}
			if !slices.Contains(tc.want, got[0].Card) || got[0].Confidence != tc.conf {
				t.Errorf("Classify = %v, want one of %v at %.2f", got[0], tc.want, tc.conf)
			}
		})
	}
}

// TestEnrolledReadsEveryCard reads a corner of every card, in play at
// another resolution and light and cut up to 0.75 mm off, with a model
// that is always wrong.
func TestEnrolledReadsEveryCard(t *testing.T) {
	d := testDeck(t)
	model := &fakeModel{answer: func(int) Result { return Result{Card: cards.MustParse("2C"), Confidence: 0.9} }}
	e, err := NewEnrolled(model, openEmbedder(t), d, DefaultMatchOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var crops []gocv.Mat
	defer func() {
		for _, c := range crops {
			c.Close()
		}
	}()
	for i, dc := range d.Cards {
		corner := []string{"TL", "BR"}[i%2]
		crops = append(crops, playCrop(t, dc.Card, corner, 0.25*float64(i%7-3), 0.25*float64((i/7)%7-3)))
	}
	got, err := e.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	for i, dc := range d.Cards {
		if got[i].Card != dc.Card {
			t.Errorf("crop of %v read %v", dc.Card, got[i])
		}
	}
}

func TestEnrolledClose(t *testing.T) {
	model := &fakeModel{answer: func(int) Result { return Result{} }}
	e, err := NewEnrolled(model, openEmbedder(t), synthDeck(7), DefaultMatchOptions())
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	e.Close()
	if model.closed != 1 {
		t.Errorf("model closed %d times, want 1", model.closed)
	}
	if _, err := e.Classify(nil); err == nil {
		t.Error("Classify after Close = nil error, want one")
	}
	bad := synthDeck(8)
	bad.Format = "x"
	model2 := &fakeModel{}
	if _, err := NewEnrolled(model2, openEmbedder(t), bad, DefaultMatchOptions()); !errors.Is(err, ErrDeck) || model2.closed != 1 {
		t.Errorf("NewEnrolled(bad deck) = %v, model closed %d times; want ErrDeck and 1", err, model2.closed)
	}
	model3 := &fakeModel{}
	if _, err := NewEnrolled(model3, nil, synthDeck(9), DefaultMatchOptions()); err == nil || model3.closed != 1 {
		t.Errorf("NewEnrolled(no embedder) = %v, model closed %d times; want an error and 1", err, model3.closed)
	}
}

// BenchmarkEnrolledMatch times the comparison with the deck alone, per
// crop: the cost enrolment adds to every corner the model reads as a
// card. BenchmarkEnrolledOpen times building the deck's features.
func BenchmarkEnrolledMatch(b *testing.B) {
	d := testDeck(b)
	e, err := NewEnrolled(&fakeModel{answer: func(int) Result { return Result{} }}, openEmbedder(b), d, DefaultMatchOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var crops []gocv.Mat
	for i := range 32 {
		crops = append(crops, playCrop(b, d.Cards[i].Card, "TL", 0.5, 0.5))
	}
	defer func() {
		for _, c := range crops {
			c.Close()
		}
	}()
	b.ResetTimer()
	for range b.N {
		if _, err := e.Match(crops); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(crops)), "µs/crop")
}

func BenchmarkEnrolledOpen(b *testing.B) {
	d := testDeck(b)
	for range b.N {
		e, err := NewEnrolled(&fakeModel{answer: func(int) Result { return Result{} }}, openEmbedder(b), d, DefaultMatchOptions())
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}

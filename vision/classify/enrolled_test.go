package classify

import (
	"errors"
	"testing"

	"bjmonitor/cards"

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

// templateCrop returns corner k of card c's template as a BGR crop,
// shifted by (dx, dy) pixels, with the paper a little darker (other
// light). The caller closes it.
func templateCrop(tb testing.TB, d *Deck, c cards.Card, k, dx, dy int) gocv.Mat {
	tb.Helper()
	var src []byte
	for _, dc := range d.Cards {
		if dc.Card == c {
			src = dc.Corners[k].BGR
		}
	}
	out := make([]byte, len(src))
	for y := range CropRows {
		for x := range CropCols {
			sx, sy := min(max(x-dx, 0), CropCols-1), min(max(y-dy, 0), CropRows-1)
			for ch := range 3 {
				out[3*(y*CropCols+x)+ch] = byte(0.8*float64(src[3*(sy*CropCols+sx)+ch]) + 10)
			}
		}
	}
	m, err := gocv.NewMatFromBytes(CropRows, CropCols, gocv.MatTypeCV8UC3, out)
	if err != nil {
		tb.Fatal(err)
	}
	defer m.Close()
	return m.Clone()
}

func TestEnrolledClassify(t *testing.T) {
	d := synthDeck(4)
	seven, six := cards.MustParse("7H"), cards.MustParse("6H")
	for _, tc := range []struct {
		name  string
		model Result
		crop  cards.Card // whose template the crop shows
		want  Result
	}{
		{"model wrong, templates clear", Result{Card: six, Confidence: 0.97}, seven, Result{Card: seven, Confidence: 0.99}},
		{"model unsure, templates agree", Result{Card: seven, Confidence: 0.5}, seven, Result{Card: seven, Confidence: 0.99}},
		{"model surer than templates", Result{Card: seven, Confidence: 0.999}, seven, Result{Card: seven, Confidence: 0.999}},
		{"none stays none", Result{Confidence: 0.9}, seven, Result{Confidence: 0.9}},
		{"back stays back", Result{Back: true, Confidence: 0.8}, seven, Result{Back: true, Confidence: 0.8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{answer: func(int) Result { return tc.model }}
			e, err := NewEnrolled(model, d, DefaultMatchOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			crop := templateCrop(t, d, tc.crop, 1, 1, -2)
			defer crop.Close()
			got, err := e.Classify([]gocv.Mat{crop})
			if err != nil {
				t.Fatal(err)
			}
			if got[0] != tc.want {
				t.Errorf("Classify = %v, want %v", got[0], tc.want)
			}
		})
	}
}

func TestEnrolledUnclearLeavesTheModel(t *testing.T) {
	d := synthDeck(5)
	// Two cards with one template: the crop cannot tell them apart.
	d.Cards[1].Corners = d.Cards[0].Corners
	model := &fakeModel{answer: func(int) Result { return Result{Card: d.Cards[2].Card, Confidence: 0.6} }}
	e, err := NewEnrolled(model, d, DefaultMatchOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	crop := templateCrop(t, d, d.Cards[0].Card, 0, 0, 0)
	defer crop.Close()
	ms, err := e.Match([]gocv.Mat{crop})
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Decided(DefaultMatchOptions(), d.Cards[0].Card) {
		t.Errorf("Match = %+v decided, want undecided (two cards share the template)", ms[0])
	}
	got, err := e.Classify([]gocv.Mat{crop})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Result{Card: d.Cards[2].Card, Confidence: 0.6}); got[0] != want {
		t.Errorf("Classify = %v, want the model's %v", got[0], want)
	}
}

// TestEnrolledReadsEveryCard reads a crop of every template, shifted by
// up to 1 mm, with a model that is always wrong.
func TestEnrolledReadsEveryCard(t *testing.T) {
	d := synthDeck(6)
	model := &fakeModel{answer: func(int) Result { return Result{Card: cards.MustParse("2C"), Confidence: 0.9} }}
	e, err := NewEnrolled(model, d, DefaultMatchOptions())
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
		crops = append(crops, templateCrop(t, d, dc.Card, i%2, i%5-2, (i/5)%5-2))
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
	e, err := NewEnrolled(model, synthDeck(7), DefaultMatchOptions())
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
	if _, err := NewEnrolled(model2, bad, DefaultMatchOptions()); !errors.Is(err, ErrDeck) || model2.closed != 1 {
		t.Errorf("NewEnrolled(bad deck) = %v, model closed %d times; want ErrDeck and 1", err, model2.closed)
	}
}

// BenchmarkEnrolledMatch times the template comparison alone, per crop:
// the cost enrolment adds to every corner the model reads as a card.
func BenchmarkEnrolledMatch(b *testing.B) {
	d := synthDeck(9)
	e, err := NewEnrolled(&fakeModel{answer: func(int) Result { return Result{} }}, d, DefaultMatchOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var crops []gocv.Mat
	for i := range matchBatch {
		crops = append(crops, templateCrop(b, d, d.Cards[i].Card, 0, 1, 1))
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

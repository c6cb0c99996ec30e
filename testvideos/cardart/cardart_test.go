package cardart

import (
	"flag"
	"image"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"bjmonitor/cards"

	"gocv.io/x/gocv"
)

var sheetsDir = flag.String("sheets", "", "write a contact sheet of every usable deck into this folder (for a person to check)")

// newArt returns an Art caching under the test's temp folder, closed at
// cleanup. Small faces keep the tests fast.
func newArt(tb testing.TB, w, h int) *Art {
	tb.Helper()
	if _, err := os.Stat(DefaultDeckDir); err != nil {
		tb.Skipf("gnome-cards-data not installed: %v", err)
	}
	a, err := New(Options{CacheDir: tb.TempDir(), Width: w, Height: h})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	return a
}

func TestFace(t *testing.T) {
	a := newArt(t, 90, 126)
	tests := []struct {
		name string
		deck string
		card string
		// red reports whether the index ink should be red.
		red bool
	}{
		{"anglo seven of spades", "anglo", "7S", false},
		{"anglo king of hearts", "anglo", "KH", true},
		{"paris ace of diamonds", "paris", "AD", true},
		{"tigullio queen of clubs", "tigullio", "QC", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := a.Face(tt.deck, cards.MustParse(tt.card))
			if err != nil {
				t.Fatalf("Face(%s, %s): %v", tt.deck, tt.card, err)
			}
			if got, want := (image.Pt(m.Cols(), m.Rows())), image.Pt(90, 126); got != want {
				t.Errorf("size = %v, want %v", got, want)
			}
			if m.Type() != gocv.MatTypeCV8UC4 {
				t.Errorf("type = %v, want CV_8UC4", m.Type())
			}
			st := faceStats(m, image.Rect(0, 0, m.Cols(), m.Rows()))
			// A card is a mostly opaque, mostly light rectangle with some
			// dark or coloured ink on it.
			if st.opaque < 0.9 {
				t.Errorf("opaque fraction = %.2f, want >= 0.9", st.opaque)
			}
			if st.light < 0.4 {
				t.Errorf("light fraction = %.2f, want >= 0.4 (a card face is mostly paper)", st.light)
			}
			if st.ink < 0.01 {
				t.Errorf("ink fraction = %.3f, want >= 0.01 (blank face?)", st.ink)
			}
			// The corner index is printed in the suit's colour.
			idx := faceStats(m, image.Rect(0, 0, m.Cols()/5, m.Rows()/4))
			if got := idx.redInk > idx.darkInk; got != tt.red {
				t.Errorf("red index = %v (red %.3f, dark %.3f), want %v", got, idx.redInk, idx.darkInk, tt.red)
			}
		})
	}
}

type stats struct{ opaque, light, ink, redInk, darkInk float64 }

// faceStats classifies the pixels of m inside r.
func faceStats(m gocv.Mat, r image.Rectangle) stats {
	var s stats
	n := float64(r.Dx() * r.Dy())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			v := m.GetVecbAt(y, x)
			if v[3] < 200 {
				continue
			}
			s.opaque++
			b, g, r := int(v[0]), int(v[1]), int(v[2])
			switch {
			case b > 200 && g > 200 && r > 200:
				s.light++
			case r > 130 && g < 90 && b < 90:
				s.redInk++
				s.ink++
			case r < 90 && g < 90 && b < 90:
				s.darkInk++
				s.ink++
			default:
				s.ink++
			}
		}
	}
	return stats{s.opaque / n, s.light / n, s.ink / n, s.redInk / n, s.darkInk / n}
}

func TestFaceErrors(t *testing.T) {
	a := newArt(t, 60, 84)
	tests := []struct {
		name string
		deck string
		card cards.Card
	}{
		{"excluded deck", "berlin", cards.MustParse("AS")},
		{"unknown deck", "no-such-deck", cards.MustParse("AS")},
		{"invalid card", "anglo", cards.Card{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := a.Face(tt.deck, tt.card); err == nil {
				t.Errorf("Face(%q, %v) = nil error, want an error", tt.deck, tt.card)
			}
		})
	}
}

func TestDecks(t *testing.T) {
	if _, err := os.Stat(DefaultDeckDir); err != nil {
		t.Skipf("gnome-cards-data not installed: %v", err)
	}
	decks, err := Decks("")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, d := range decks {
		listed[d.Name] = true
	}
	for name := range Excluded() {
		t.Run("excludes "+name, func(t *testing.T) {
			if listed[name] {
				t.Errorf("Decks lists %q, which is excluded", name)
			}
		})
	}
	t.Run("kept decks are installed", func(t *testing.T) {
		if len(decks) != len(kept) {
			t.Errorf("Decks found %d decks, want all %d kept ones", len(decks), len(kept))
		}
	})
	t.Run("every installed deck is kept or excluded", func(t *testing.T) {
		known := map[string]bool{}
		for _, k := range knownDecks() {
			known[k] = true
		}
		files, _ := filepath.Glob(filepath.Join(DefaultDeckDir, "*.svgz"))
		for _, f := range files {
			name := filepath.Base(f[:len(f)-len(".svgz")])
			if !known[name] {
				t.Errorf("deck %q is installed but neither kept nor excluded: look at it and decide", name)
			}
		}
	})
}

func TestBack(t *testing.T) {
	a := newArt(t, 90, 126)
	m, err := a.Back()
	if err != nil {
		t.Fatal(err)
	}
	st := faceStats(m, image.Rect(0, 0, m.Cols(), m.Rows()))
	if st.opaque < 0.95 {
		t.Errorf("opaque fraction = %.2f, want >= 0.95", st.opaque)
	}
	if st.redInk < 0.5 {
		t.Errorf("back colour fraction = %.2f, want >= 0.5 (solid red field)", st.redInk)
	}
}

// TestConcurrentFace asks for the same deck from several goroutines; the
// deck must be rendered once and every caller must get a face.
func TestConcurrentFace(t *testing.T) {
	a := newArt(t, 60, 84)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := cards.Deck()[i*5]
			if _, err := a.Face("anglo_poker", c); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestContactSheets writes a contact sheet per deck when -sheets is given;
// otherwise it checks one small sheet's size.
func TestContactSheets(t *testing.T) {
	if *sheetsDir == "" {
		a := newArt(t, 60, 84)
		m, err := a.ContactSheet("anglo", 30)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if m.Cols() < 13*30 || m.Rows() < 4*42 {
			t.Errorf("contact sheet is %dx%d, want at least %dx%d", m.Cols(), m.Rows(), 13*30, 4*42)
		}
		return
	}
	a, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	decks, err := Decks("")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decks {
		m, err := a.ContactSheet(d.Name, 100)
		if err != nil {
			t.Fatal(err)
		}
		gocv.IMWrite(filepath.Join(*sheetsDir, d.Name+".png"), m)
		m.Close()
	}
}

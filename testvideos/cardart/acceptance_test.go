package cardart

import (
	"go/ast"
	"go/parser"
	"go/token"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bjmonitor/cards"

	"gocv.io/x/gocv"
)

// newAcceptanceArt returns an acceptance Art caching under the test's temp
// folder, closed at cleanup.
func newAcceptanceArt(tb testing.TB, w, h int) *Art {
	tb.Helper()
	if _, err := os.Stat(AcceptanceDeckDir); err != nil {
		tb.Skipf("kdegames-card-data-kf5 not installed: %v", err)
	}
	a, err := NewAcceptance(Options{CacheDir: tb.TempDir(), Width: w, Height: h})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	return a
}

// TestTrainingSeesNoAcceptanceDeck guards the acceptance set: the decks
// the training data generator draws from (Decks, through New) hold no KDE
// deck, an Art made by New refuses them, and gendata's code never reaches
// for the acceptance API or the KDE folder.
func TestTrainingSeesNoAcceptanceDeck(t *testing.T) {
	acc := map[string]bool{}
	for _, n := range acceptanceKept {
		acc[n], acc[AcceptancePrefix+n] = true, true
	}
	for n := range acceptanceExcluded {
		acc[n], acc[AcceptancePrefix+n] = true, true
	}
	t.Run("Decks", func(t *testing.T) {
		if _, err := os.Stat(DefaultDeckDir); err != nil {
			t.Skipf("gnome-cards-data not installed: %v", err)
		}
		decks, err := Decks("")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range decks {
			if strings.HasPrefix(d.Name, AcceptancePrefix) || strings.HasPrefix(d.Path, AcceptanceDeckDir) {
				t.Errorf("Decks lists %q (%s), an acceptance deck", d.Name, d.Path)
			}
		}
	})
	t.Run("kept list", func(t *testing.T) {
		for _, n := range kept {
			if strings.HasPrefix(n, AcceptancePrefix) {
				t.Errorf("kept lists %q, an acceptance deck", n)
			}
		}
	})
	t.Run("New refuses them", func(t *testing.T) {
		a, err := New(Options{CacheDir: t.TempDir(), Width: 60, Height: 84})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		for n := range acc {
			if !strings.HasPrefix(n, AcceptancePrefix) {
				continue
			}
			if _, err := a.Face(n, cards.MustParse("AS")); err == nil {
				t.Errorf("New(...).Face(%q) = nil error, want a refusal", n)
			}
		}
	})
	t.Run("NewAcceptance refuses gnome decks", func(t *testing.T) {
		a, err := NewAcceptance(Options{CacheDir: t.TempDir(), Width: 60, Height: 84})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		for _, n := range append([]string{"anglo", "kde:dondorf", "kde:no-such-deck"}, kept...) {
			if _, err := a.Face(n, cards.MustParse("AS")); err == nil {
				t.Errorf("NewAcceptance(...).Face(%q) = nil error, want a refusal", n)
			}
		}
	})
	// gendata and glyphs make the training data, and cardface draws
	// the procedural designs.
	for _, dir := range []string{filepath.Join("..", "..", "models", "cardindex", "gendata"), filepath.Join("..", "..", "models", "pipsuit", "glyphs"), filepath.Join("..", "cardface")} {
		t.Run(filepath.Base(dir), func(t *testing.T) { noAcceptanceIn(t, dir) })
	}
}

// noAcceptanceIn fails when the Go source in dir names the acceptance
// API or the KDE decks' folder.
func noAcceptanceIn(t *testing.T, dir string) {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, nil, 0)
	if err != nil || len(pkgs) == 0 {
		t.Fatalf("parse %s: %v", dir, err)
	}
	forbidden := map[string]bool{"NewAcceptance": true, "AcceptanceDecks": true, "AcceptanceDeckDir": true, "AcceptancePrefix": true}
	for _, p := range pkgs {
		for name, f := range p.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if forbidden[n.Sel.Name] {
						t.Errorf("%s uses cardart.%s: training must never see the acceptance decks", name, n.Sel.Name)
					}
				case *ast.BasicLit:
					if n.Kind == token.STRING && (strings.Contains(n.Value, "carddecks") || strings.Contains(n.Value, AcceptancePrefix)) {
						t.Errorf("%s mentions %s: training must never see the acceptance decks", name, n.Value)
					}
				}
				return true
			})
		}
	}
}

// TestAcceptanceDecks checks that every KDE deck installed is kept or
// excluded, so that a new one is looked at before it is used.
func TestAcceptanceDecks(t *testing.T) {
	if _, err := os.Stat(AcceptanceDeckDir); err != nil {
		t.Skipf("kdegames-card-data-kf5 not installed: %v", err)
	}
	decks, err := AcceptanceDecks("")
	if err != nil {
		t.Fatal(err)
	}
	if len(decks) != len(acceptanceKept) {
		t.Errorf("AcceptanceDecks found %d decks, want all %d kept ones", len(decks), len(acceptanceKept))
	}
	folders, _ := filepath.Glob(filepath.Join(AcceptanceDeckDir, "svg-*"))
	for _, f := range folders {
		name := strings.TrimPrefix(filepath.Base(f), "svg-")
		_, ex := acceptanceExcluded[name]
		in := false
		for _, k := range acceptanceKept {
			in = in || k == name
		}
		if in == ex {
			t.Errorf("KDE deck %q is kept %v and excluded %v: look at it and decide", name, in, ex)
		}
	}
}

// TestAcceptanceFace renders one small KDE deck and checks a few faces as
// TestFace does for the gnome ones.
func TestAcceptanceFace(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a whole deck")
	}
	a := newAcceptanceArt(t, 90, 126)
	for _, tt := range []struct {
		card string
		red  bool
	}{{"7S", false}, {"KH", true}, {"AD", true}, {"TC", false}} {
		t.Run(tt.card, func(t *testing.T) {
			m, err := a.Face("kde:standard", cards.MustParse(tt.card))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := image.Pt(m.Cols(), m.Rows()), image.Pt(90, 126); got != want {
				t.Errorf("size = %v, want %v", got, want)
			}
			st := faceStats(m, image.Rect(0, 0, m.Cols(), m.Rows()))
			if st.opaque < 0.9 {
				t.Errorf("opaque fraction = %.2f, want >= 0.9", st.opaque)
			}
			if st.light < 0.4 {
				t.Errorf("light fraction = %.2f, want >= 0.4", st.light)
			}
			idx := faceStats(m, image.Rect(0, 0, m.Cols()/5, m.Rows()/4))
			if got := idx.redInk > idx.darkInk; got != tt.red {
				t.Errorf("red index = %v (red %.3f, dark %.3f), want %v", got, idx.redInk, idx.darkInk, tt.red)
			}
		})
	}
}

// TestAcceptanceContactSheets writes a contact sheet of every acceptance
// deck into -sheets, for a person to check; it does nothing without it.
func TestAcceptanceContactSheets(t *testing.T) {
	if *sheetsDir == "" {
		t.Skip("no -sheets folder")
	}
	a, err := NewAcceptance(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	decks, err := AcceptanceDecks("")
	if err != nil {
		t.Fatal(err)
	}
	only := os.Getenv("ACCEPTANCE_DECKS") // space-separated, to look at a few
	for _, d := range decks {
		if only != "" && !strings.Contains(" "+only+" ", " "+d.Name+" ") {
			continue
		}
		m, err := a.ContactSheet(d.Name, 100)
		if err != nil {
			t.Error(err)
			continue
		}
		gocv.IMWrite(filepath.Join(*sheetsDir, strings.TrimPrefix(d.Name, AcceptancePrefix)+".png"), m)
		m.Close()
	}
}

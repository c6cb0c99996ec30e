package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"bjmonitor/alerts"
	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/evaluator"
	"bjmonitor/game"
	"bjmonitor/vision/classify"
)

// writeDeck writes a deck file whose templates are plain paper with one
// dark mark, enough for the pipeline to load it.
func writeDeck(tb testing.TB) string {
	tb.Helper()
	d := &classify.Deck{Format: classify.DeckFormat, Created: "2026-12-01T16:00:00Z", Source: "test", PxPerMM: 1.5,
		Crop: classify.DeckCrop{Cols: classify.CropCols, Rows: classify.CropRows, WidthMM: classify.CropWidthMM, HeightMM: classify.CropHeightMM}}
	for i, c := range cards.Deck() {
		dc := classify.DeckCard{Card: c}
		for k := range dc.Corners {
			px := make([]byte, 3*classify.CropCols*classify.CropRows)
			for j := range px {
				px[j] = 230
			}
			px[3*((10+i%20)*classify.CropCols+8+k)] = 20
			dc.Corners[k] = classify.Template{Ink: [4]int{6, 6, 20, 40}, BGR: px}
		}
		d.Cards = append(d.Cards, dc)
	}
	b, err := d.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(tb.TempDir(), "table.deck.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// Config.Deck wraps the model in the enrolled deck; a deck file that is
// missing or damaged stops New with the cause.
func TestDeck(t *testing.T) {
	table, err := calibration.Load(filepath.Join("..", "testvideos", "freebet-1080p.table.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.deck.json")
	if err := os.WriteFile(bad, []byte(`{"format":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	features := filepath.Join("..", "models", "cardindex", "cardindex-features.onnx")
	for _, tc := range []struct {
		name           string
		deck, features string
		want           error
	}{
		{"enrolled", writeDeck(t), features, nil},
		{"missing", filepath.Join(t.TempDir(), "none.json"), features, fs.ErrNotExist},
		{"damaged", bad, features, classify.ErrDeck},
		{"no features model", writeDeck(t), filepath.Join(t.TempDir(), "none.onnx"), fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meter, err := evaluator.NewMeter(1000, 0.15, 0)
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(Config{
				Table: table, Model: filepath.Join("..", "models", "cardindex", "cardindex.onnx"), Deck: tc.deck, FeaturesModel: tc.features, FPS: 25,
				Rules: game.DefaultRules(), Meter: meter,
				Reconcile: alerts.Config{Table: "t", Rules: game.DefaultRules(), Tables: evaluator.DefaultPayTables()},
			})
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Errorf("New = %v, want %v", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if _, ok := p.clf.(*classify.Enrolled); !ok {
				t.Errorf("the pipeline reads with %T, want *classify.Enrolled", p.clf)
			}
		})
	}
}

// Command gendata writes the training and validation crops for the card
// index model (models/cardindex): synthetic overhead views of card corners,
// cut with the same classify.Cropper the monitor uses, with the camera's
// faults added (see DESIGN.md "Scenes"). See models/README.md for the
// recipe.
//
//	go run ./models/cardindex/gendata -out .cache/cardindex -train 120000 -val 12000
//
// It writes, under -out:
//
//	train_x.u8, val_x.u8     N×72×40×3 uint8 crops, BGR, row-major
//	train_y.u8, val_y.u8     N class indices (meta.json "classes")
//	val_deck.u8              N indices into meta.json "val_decks" of the
//	                         card the crop shows (255 for felt and chips):
//	                         the held-out decks, then with -proc the
//	                         procedural designs of held-out font families
//	val_res.f32              N source resolutions in px/mm (little endian)
//	meta.json                classes, crop geometry, decks, counts, seed
//
// The held-out decks never appear in the training set, not even as the
// next card of a hand lying over a crop.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/cardface"
	"bjmonitor/vision/classify"
)

// HeldOut are the decks kept out of training, chosen to differ from each
// other: dondorf (bold serif indices, black border), neoclassical (plain
// sans-serif) and tigullio (cream paper, narrow serif). Each shares no art
// with a training deck, unlike anglo_bitmap (anglo's indices) or
// gnomangelo_bitmap (gnomangelo's), which would flatter the score.
var HeldOut = []string{"dondorf", "neoclassical", "tigullio"}

func main() {
	out := flag.String("out", ".cache/cardindex", "output folder (keep it out of git)")
	nTrain := flag.Int("train", 120000, "training crops")
	nVal := flag.Int("val", 12000, "validation crops, from the held-out decks")
	seed := flag.Uint64("seed", 1, "random seed; the same seed writes the same files")
	restyle := flag.Float64("restyle", 0, "probability that a face is repainted as another design (restyle.go); 0 draws as the committed model's recipe did, 0.75 is the v2 experiment's")
	wide := flag.Bool("wide", false, "with -restyle, the wide recipe: larger changes of index size and aspect, and slanted print (restyle.go)")
	proc := flag.Float64("proc", 0, "share of crops whose card is a procedural design (procedural.go); 0 draws as the earlier recipes did")
	fx := flag.Float64("camfx", 0, "probability of each of the still camera's faults of package camfx (motion blur, a soft shadow, a bent card; camfx.go); 0 draws as the earlier recipes did")
	cover := flag.Float64("cover", 0, "probability that the next card of a hand lies over part of a card's index (coverPlace); 0 draws as the earlier recipes did")
	upright := flag.Float64("upright", 0, "with -proc, share of procedural designs that print their second index upright (markUpright); 0 draws as the earlier recipes did")
	tight := flag.Float64("tight", 0, "with -proc, share of procedural designs that print their index tight in the corner (markTight); 0 draws as the earlier recipes did")
	pointClubs := flag.Float64("pointclubs", 0, "with -proc, share of procedural designs whose clubs have pointed lobes (markPointClubs); 0 draws as the earlier recipes did")
	flag.Parse()
	if err := run(*out, *nTrain, *nVal, *seed, recipe{*restyle, *wide, *proc, *fx, *cover, *upright, *tight, *pointClubs}); err != nil {
		log.Fatal(err)
	}
}

// recipe is how crops are drawn, beyond the seed.
type recipe struct {
	restyle float64 // probability that a face is restyled (restyle.go)
	wide    bool    // the wide restyle recipe
	proc    float64 // share of procedural designs (procedural.go)
	camfx   float64 // probability of each camfx fault (camfx.go)
	cover   float64 // probability of the next card over the index (coverPlace)
	upright float64 // share of procedural designs with an upright second index
	tight   float64 // share of procedural designs with the index tight in the corner
	points  float64 // share of procedural designs with pointed club lobes
}

func run(out string, nTrain, nVal int, seed uint64, rc recipe) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	g, err := newGenerator(rc.proc > 0, seed)
	if err != nil {
		return err
	}
	defer g.Close()
	markUpright(g.trainStyles, rc.upright, seed)
	markUpright(g.valStyles, rc.upright, seed+1)
	markTight(g.trainStyles, rc.tight, seed)
	markTight(g.valStyles, rc.tight, seed+1)
	markPointClubs(g.trainStyles, rc.points, seed)
	markPointClubs(g.valStyles, rc.points, seed+1)
	valDecks := HeldOut
	if rc.proc > 0 {
		valDecks = append(slices.Clip(HeldOut), procDeck)
	}
	for _, set := range []struct {
		name   string
		n      int
		decks  []string
		styles []cardface.Style
	}{{"train", nTrain, g.train, g.trainStyles}, {"val", nVal, HeldOut, g.valStyles}} {
		start := time.Now()
		x, y, deck, res, err := g.generate(set.n, set.decks, set.styles, seed+uint64(len(set.name))<<32, rc)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, set.name+"_x.u8"), x, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, set.name+"_y.u8"), y, 0o644); err != nil {
			return err
		}
		if set.name == "val" {
			if err := os.WriteFile(filepath.Join(out, "val_deck.u8"), deck, 0o644); err != nil {
				return err
			}
			b := make([]byte, 4*len(res))
			for i, r := range res {
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(r))
			}
			if err := os.WriteFile(filepath.Join(out, "val_res.f32"), b, 0o644); err != nil {
				return err
			}
		}
		log.Printf("%s: %d crops in %v", set.name, set.n, time.Since(start).Round(time.Second))
	}
	meta := map[string]any{
		"classes":        classNames(),
		"crop":           map[string]any{"width_mm": classify.CropWidthMM, "height_mm": classify.CropHeightMM, "cols": classify.CropCols, "rows": classify.CropRows, "channels": 3, "order": "BGR"},
		"training_decks": g.train,
		"training_fonts": g.trainFonts,
		"heldout_fonts":  g.valFonts,
		"heldout_decks":  HeldOut,
		"val_decks":      valDecks,
		"train":          nTrain,
		"val":            nVal,
		"seed":           seed,
		"restyle":        rc.restyle,
		"wide":           rc.wide,
		"proc":           rc.proc,
		"camfx":          rc.camfx,
		"cover":          rc.cover,
		"upright":        rc.upright,
		"tight":          rc.tight,
		"pointclubs":     rc.points,
		"generated":      time.Now().UTC().Format(time.RFC3339),
	}
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "meta.json"), append(b, '\n'), 0o644)
}

// Classes: the 52 cards in cards.Deck order, then none, then back.
const (
	classNone = 52
	classBack = 53
	nClasses  = 54
)

func classNames() []string {
	var out []string
	for _, c := range cards.Deck() {
		out = append(out, c.String())
	}
	return append(out, "none", "back")
}

// indexExtent is how far each deck's corner index (rank and suit pip)
// reaches from the corner, in mm, with a margin, read off contact sheets.
// The next card of a hand is laid over the crop only beyond it.
var indexExtent = map[string]Vec{
	"dondorf":    {X: 12, Y: 26},
	"plastic":    {X: 13, Y: 25},
	"tango":      {X: 18, Y: 31},
	"ornamental": {X: 18, Y: 36},
}

func extentOf(deck string) Vec {
	if e, ok := indexExtent[deck]; ok {
		return e
	}
	return Vec{X: 12, Y: 25}
}

type generator struct {
	art   *cardart.Art
	backs []*cardart.Art // one per back colour; only Back is used
	train []string
	// Procedural designs (-proc), each split's from its own font
	// families; empty without -proc.
	trainStyles, valStyles []cardface.Style
	trainFonts, valFonts   []string
}

// Designs drawn for each split: enough that no one design is seen often.
const (
	nTrainStyles = 3000
	nValStyles   = 400
)

// Back colours of casino decks, before the colour cast varies them.
var backColors = []color.RGBA{
	{150, 24, 32, 255}, {30, 50, 140, 255}, {20, 90, 50, 255}, {25, 25, 30, 255},
	{90, 30, 110, 255}, {190, 60, 30, 255}, {40, 110, 160, 255}, {120, 20, 60, 255},
}

func newGenerator(proc bool, seed uint64) (*generator, error) {
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		return nil, err
	}
	g := &generator{art: art}
	if proc {
		if err := g.drawStyles(seed); err != nil {
			g.Close()
			return nil, err
		}
	}
	decks, err := cardart.Decks("")
	if err != nil {
		g.Close()
		return nil, err
	}
	for _, d := range decks {
		if !slices.Contains(HeldOut, d.Name) {
			g.train = append(g.train, d.Name)
		}
	}
	if len(g.train)+len(HeldOut) != len(decks) {
		g.Close()
		return nil, fmt.Errorf("held-out decks %v are not all installed", HeldOut)
	}
	for _, c := range backColors {
		a, err := cardart.New(cardart.Options{BackColor: c})
		if err != nil {
			g.Close()
			return nil, err
		}
		g.backs = append(g.backs, a)
	}
	return g, nil
}

// drawStyles draws the procedural designs of both splits.
func (g *generator) drawStyles(seed uint64) error {
	fonts, err := cardface.LoadFonts(cardface.DefaultFontDirs...)
	if err != nil {
		return err
	}
	train := func(f string) bool { return !cardface.HeldOutFamily(f) }
	if g.trainStyles, g.trainFonts, err = styles(fonts, train, nTrainStyles, seed); err != nil {
		return fmt.Errorf("training designs: %w", err)
	}
	if g.valStyles, g.valFonts, err = styles(fonts, cardface.HeldOutFamily, nValStyles, seed+1); err != nil {
		return fmt.Errorf("validation designs: %w", err)
	}
	return nil
}

func (g *generator) Close() {
	g.art.Close()
	for _, a := range g.backs {
		a.Close()
	}
}

// generate makes n crops from the given decks. Sample i uses its own
// random source (seed, i), so the output does not depend on the number of
// workers.
func (g *generator) generate(n int, decks []string, sts []cardface.Style, seed uint64, rc recipe) (x, y, deck []byte, res []float32, err error) {
	const sz = classify.CropCols * classify.CropRows * 3
	x = make([]byte, n*sz)
	y = make([]byte, n)
	deck = make([]byte, n)
	res = make([]float32, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newScene(g, rc, sts)
			defer s.Close()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				rng := rand.New(rand.NewPCG(seed, uint64(i)))
				smp, err := s.sample(rng, decks)
				if err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					return
				}
				copy(x[i*sz:(i+1)*sz], smp.crop)
				y[i] = byte(smp.class)
				deck[i] = 255
				if k := slices.Index(decks, smp.deck); k >= 0 {
					deck[i] = byte(k)
				} else if smp.deck == procDeck {
					deck[i] = byte(len(decks))
				}
				res[i] = float32(smp.pxPerMM)
			}
		}()
	}
	wg.Wait()
	return x, y, deck, res, firstErr
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

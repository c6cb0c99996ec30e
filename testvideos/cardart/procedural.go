package cardart

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardface"

	"gocv.io/x/gocv"
)

// ProceduralPrefix names procedural decks: "proc:7" is the deck that
// cardface draws from seed 7, in one of heldOutFaces. Any seed is a deck
// no model saw, so clips of them measure recognition on unseen designs
// without spending the KDE acceptance decks. They need the font packages
// of scripts/setup-fonts.
const ProceduralPrefix = "proc:"

// procSeedSalt keeps the designs of procedural decks apart from those
// gendata draws from the same small seeds.
const procSeedSalt = 0xdec5

// TrainingPrefix names procedural decks drawn for training: "train:7" is
// the deck that cardface draws from seed 7 in a face of a family not held
// out (cardface.HeldOutFamily), as gendata's training designs are. Clips
// of them give the model crops of play in many designs
// (models/cardindex/harvest); they measure nothing, since the model may
// have trained on them.
const TrainingPrefix = "train:"

// trainSeedSalt keeps the training decks' designs apart from the
// procedural decks' of the same seed.
const trainSeedSalt = 0x7a1

// heldOutFaces are the faces procedural decks are drawn in, in the order
// a deck's seed picks from: every face of a family held out of training
// (cardface.HeldOutFamily) that the font packages of scripts/setup-fonts
// install on Debian 12. A face installed besides is never drawn, and a
// face missing is an error, not a deck drawn in another: proc:7 is the
// same deck on every machine, or none.
var heldOutFaces = []string{
	"Anonymous Pro B", "CharisSIL-Bold", "CharisSIL-Regular",
	"DejaVuSans", "DejaVuSans-Bold", "DejaVuSerif", "DejaVuSerif-Bold",
	"FreeMono", "FreeSansBold", "FreeSerifBold",
	"LiberationSans-Bold", "LiberationSans-Regular", "LiberationSerif-Bold", "LiberationSerif-Regular",
	"OldStandard-Bold", "OldStandard-Regular", "Prociono", "RadisSans-medium",
	"RobotoCondensed-Bold", "RobotoCondensed-Medium", "RobotoCondensed-Regular", "STIXMath-Regular",
}

// trainingFonts are the installed faces of the families not held out,
// sorted by name: what a TrainingPrefix deck is drawn in. Unlike
// heldOutFaces they are not pinned, so train:7 may differ between
// machines with other font packages.
var trainingFonts = sync.OnceValues(func() ([]*cardface.Font, error) {
	all, err := cardface.LoadFonts(cardface.DefaultFontDirs...)
	if err != nil {
		return nil, err
	}
	var out []*cardface.Font
	for _, f := range all {
		if !cardface.HeldOutFamily(f.Family()) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no font of a training family is installed: run scripts/setup-fonts")
	}
	return out, nil
})

var heldOutFonts = sync.OnceValues(func() ([]*cardface.Font, error) {
	all, err := cardface.LoadFonts(cardface.DefaultFontDirs...)
	if err != nil {
		return nil, err
	}
	byName := map[string]*cardface.Font{}
	for _, f := range all {
		byName[f.Name] = f
	}
	var out []*cardface.Font
	var missing []string
	for _, name := range heldOutFaces {
		if f, ok := byName[name]; ok {
			out = append(out, f)
		} else {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("procedural decks are drawn in %d faces; %d are not installed (%s): run scripts/setup-fonts", len(heldOutFaces), len(missing), strings.Join(missing, ", "))
	}
	return out, nil
})

// UprightSuffix, after a procedural deck's seed ("proc:7u"), prints the
// deck's second index upright instead of turned (cardface.Style's
// UprightSecond), a design no model trained on: it is otherwise the deck
// of the same seed.
const UprightSuffix = "u"

// TightSuffix, after a procedural deck's seed or its UprightSuffix
// ("proc:7t", "proc:7ut"), prints the deck's index tight in its corner,
// its ink tightInsetMM from the card's edges (cardface.Style.Inset), as
// some decks print theirs and none drawn for training does: it is
// otherwise the deck of the same seed.
const TightSuffix = "t"

// LeafSuffix, after a procedural deck's seed and its other suffixes
// ("proc:7l", "proc:7tl"), draws the deck's clubs with lobes that run out
// to a point, leafClubPoint lobe radii beyond the round
// (cardface.Style.PointClubs), as some decks print them: it is otherwise
// the deck of the same name without it.
const LeafSuffix = "l"

// FrameSuffix, after a procedural deck's seed and its other suffixes
// ("proc:7f", "proc:7tf"), draws the deck's cards with a dark frame
// frameMM wide along their edges (cardface.Style.Frame), as some decks
// print them and none drawn for training does: it is otherwise the deck
// of the same name without it.
const FrameSuffix = "f"

// frameMM is how wide a FrameSuffix deck's frame is, and frameInk its
// colour.
const frameMM = 1.2

var frameInk = color.NRGBA{25, 25, 30, 255}

// leafClubPoint is how far a LeafSuffix deck's club lobes run out to a
// point, in lobe radii.
const leafClubPoint = 0.6

// tightInsetMM is how far a tight index's ink lies from the card's long
// and short edges.
const tightInsetMM = 1.0

// procVariant is how a procedural deck's name changes the design its
// seed draws.
type procVariant struct{ upright, tight, leaf, frame, training bool }

// proceduralSeed returns the seed of a procedural deck's name, and how
// its suffixes change the design.
func proceduralSeed(name string) (seed uint64, v procVariant, ok bool) {
	s, ok := strings.CutPrefix(name, ProceduralPrefix)
	if !ok {
		if s, ok = strings.CutPrefix(name, TrainingPrefix); !ok {
			return 0, v, false
		}
		v.training = true
	}
	s, v.frame = strings.CutSuffix(s, FrameSuffix)
	s, v.leaf = strings.CutSuffix(s, LeafSuffix)
	s, v.tight = strings.CutSuffix(s, TightSuffix)
	s, v.upright = strings.CutSuffix(s, UprightSuffix)
	seed, err := strconv.ParseUint(s, 10, 64)
	return seed, v, err == nil
}

// ProceduralStyle returns the design of a procedural deck.
func ProceduralStyle(name string) (cardface.Style, error) {
	seed, v, ok := proceduralSeed(name)
	if !ok {
		return cardface.Style{}, fmt.Errorf("cardart: %q is not a procedural deck (want %s<seed> or %s<seed>, then any of %s, %s, %s, %s in that order)", name, ProceduralPrefix, TrainingPrefix, UprightSuffix, TightSuffix, LeafSuffix, FrameSuffix)
	}
	fonts, salt := heldOutFonts, uint64(procSeedSalt)
	if v.training {
		fonts, salt = trainingFonts, trainSeedSalt
	}
	ff, err := fonts()
	if err != nil {
		return cardface.Style{}, fmt.Errorf("cardart: %w", err)
	}
	st, err := cardface.NewStyle(rand.New(rand.NewPCG(seed, salt)), ff)
	if err != nil {
		return cardface.Style{}, fmt.Errorf("cardart: %s: %w", name, err)
	}
	st.UprightSecond = v.upright
	if v.tight {
		if err := st.Inset(tightInsetMM, tightInsetMM); err != nil {
			return cardface.Style{}, fmt.Errorf("cardart: %s: %w", name, err)
		}
	}
	if v.leaf {
		st.PointClubs(leafClubPoint)
	}
	if v.frame {
		if err := st.Frame(frameMM, frameInk); err != nil {
			return cardface.Style{}, fmt.Errorf("cardart: %s: %w", name, err)
		}
	}
	return st, nil
}

// ensureProceduralRendered is ensureRendered for a procedural deck.
// Its cache folder names the face as well as the deck, so faces drawn in
// another face (fonts installed since) are never taken for it.
func (a *Art) ensureProceduralRendered(deck string) (string, error) {
	st, err := ProceduralStyle(deck)
	if err != nil {
		return "", err
	}
	face := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, st.FontName())
	final := a.cacheDir(strings.Replace(deck, ":", "-", 1) + "-" + face)
	if complete(final) {
		return final, nil
	}
	return renderInto(final, deck, func(tmp string) error { return a.drawDeck(st, tmp) })
}

// drawDeck draws the 52 faces of style st into dir as PNGs.
func (a *Art) drawDeck(st cardface.Style, dir string) error {
	for _, c := range cards.Deck() {
		img, err := cardface.Draw(st, c, a.opt.Width, a.opt.Height)
		if err != nil {
			return fmt.Errorf("card %v: %w", c, err)
		}
		if err := writeNRGBA(filepath.Join(dir, c.String()+".png"), img); err != nil {
			return fmt.Errorf("card %v: %w", c, err)
		}
	}
	return nil
}

// writeNRGBA writes img as a BGRA PNG.
func writeNRGBA(path string, img *image.NRGBA) error {
	b := img.Bounds()
	m := gocv.NewMatWithSize(b.Dy(), b.Dx(), gocv.MatTypeCV8UC4)
	defer m.Close()
	d, err := m.DataPtrUint8()
	if err != nil {
		return err
	}
	for y := 0; y < b.Dy(); y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*b.Dx()]
		out := d[y*4*b.Dx():]
		for i := 0; i < len(row); i += 4 {
			out[i], out[i+1], out[i+2], out[i+3] = row[i+2], row[i+1], row[i], row[i+3]
		}
	}
	if !gocv.IMWrite(path, m) {
		return fmt.Errorf("cannot write PNG %s", path)
	}
	return nil
}

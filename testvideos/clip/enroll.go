package clip

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"gocv.io/x/gocv"

	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/scene"
)

// The enrolment layout: one deck face up in four rows, spades, hearts,
// diamonds and clubs from the dealer's side, each row A, 2, …, 10, J, Q,
// K from left to right as the camera sees it (monitor enroll). Cards lie
// 9 mm apart in a row and rows 16 mm apart, so no two touch even when
// laid a little crooked; the rows fill the default camera's view between
// the chip tray and the marks on the rail side.
const (
	enrolPitchX = scene.CardW + 9
	enrolPitchY = scene.CardH + 16
	enrolFirstY = 185 // the spades row's centre
)

// EnrolmentSuits are the rows' suits, from the dealer's side.
var EnrolmentSuits = [4]cards.Suit{cards.Spades, cards.Hearts, cards.Diamonds, cards.Clubs}

// EnrolmentCards lays out deck in the enrolment layout, in row order (AS,
// 2S, …, KC). Each card is shifted up to 2 mm and turned up to 2° at
// random, as hands lay them.
func EnrolmentCards(deck string, rng *rand.Rand) []scene.PlacedCard {
	out := make([]scene.PlacedCard, 0, 52)
	for row, s := range EnrolmentSuits {
		for pos := range 13 {
			c := cards.New(cards.Rank(pos+1), s)
			at := scene.Point{X: (float64(pos) - 6) * enrolPitchX, Y: enrolFirstY + float64(row)*enrolPitchY}
			at = at.Add(scene.Point{X: rng.Float64()*4 - 2, Y: rng.Float64()*4 - 2})
			out = append(out, scene.PlacedCard{Card: c, Deck: deck, Pose: scene.Pose{Center: at, RotDeg: rng.Float64()*4 - 2}})
		}
	}
	return out
}

// EnrolmentOptions describe an enrolment still.
type EnrolmentOptions struct {
	// Image is the still's path (.png or .jpg); the table file and the
	// monitor configuration go beside it, as NAME.table.json and
	// NAME.yaml.
	Image string
	Scene scene.Config
	// Art supplies the card faces; the caller owns it.
	Art  *cardart.Art
	Seed uint64
	// Change, when set, edits the cards as laid out before the still is
	// rendered (a card taken away, two swapped): tests of refusals.
	Change func([]scene.PlacedCard) []scene.PlacedCard
}

// Enrolment is a rendered enrolment still and where each card lies in it.
type Enrolment struct {
	Image, Table, Config string
	Cards                []scene.PlacedCard
	// Quads are the cards' corners in image pixels (scene.ImageQuad).
	Quads [][4]gocv.Point2f
}

// WriteEnrolmentStill renders the table of opts.Scene with a deck laid out
// for enrolment, and writes the still, the table file and a monitor
// configuration for it.
func WriteEnrolmentStill(opts EnrolmentOptions) (*Enrolment, error) {
	if opts.Art == nil {
		return nil, errors.New("clip: no card art")
	}
	ext := strings.ToLower(filepath.Ext(opts.Image))
	if ext != ".png" && ext != ".jpg" && ext != ".jpeg" {
		return nil, fmt.Errorf("clip: enrolment still %q: want a .png or .jpg name", opts.Image)
	}
	// The installer clears the players' chips and the discard holder
	// before laying out the deck.
	opts.Scene.NoChips, opts.Scene.NoDiscards = true, true
	sc, err := scene.New(opts.Scene, opts.Art, rand.New(rand.NewPCG(opts.Seed, 7)))
	if err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	defer sc.Close()
	placed := EnrolmentCards(opts.Scene.Deck, rand.New(rand.NewPCG(opts.Seed, 8)))
	if opts.Change != nil {
		placed = opts.Change(placed)
	}
	if err := sc.SetCards(placed); err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	frame := gocv.NewMat()
	defer frame.Close()
	if err := sc.Render(&frame, 0); err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(opts.Image), 0o755); err != nil {
		return nil, err
	}
	params := []int{gocv.IMWriteJpegQuality, 90}
	if ext == ".png" {
		params = []int{gocv.IMWritePngCompression, 3}
	}
	if !gocv.IMWriteWithParams(opts.Image, frame, params) {
		return nil, fmt.Errorf("clip: cannot write %s", opts.Image)
	}
	base := strings.TrimSuffix(opts.Image, filepath.Ext(opts.Image))
	e := &Enrolment{Image: opts.Image, Table: base + ".table.json", Config: base + ".yaml", Cards: placed}
	for _, p := range placed {
		e.Quads = append(e.Quads, sc.ImageQuad(p))
	}
	if err := sc.WriteCalibration(e.Table); err != nil {
		return nil, err
	}
	if err := writeConfig(e.Config, filepath.Base(base), game.DefaultRules()); err != nil {
		return nil, err
	}
	return e, nil
}

// writeConfig writes the monitor configuration of the files named name
// in the folder of path.
func writeConfig(path, name string, r game.Rules) error {
	cfg := fmt.Sprintf(`# Monitor configuration for the synthetic clip %s.
table:
  id: %s
  variant: %s
  decks: %d
  hit_soft_17: %v
  hole_card: %v
  calibration: %s.table.json
`, name, name, r.Variant, r.Decks, r.HitSoft17, r.HoleCard, name)
	return os.WriteFile(path, []byte(cfg), 0o644)
}

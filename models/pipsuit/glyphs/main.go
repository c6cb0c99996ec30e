// Command glyphs writes the pip glyphs the suit reader (models/pipsuit)
// trains and is measured on: each number card of each deck named is
// rendered (testvideos/cardart), shown as an overhead camera does at 1.2
// to 2.5 px/mm (testvideos/camfx.Face), either end up, cut again at the
// 2 px/mm the monitor cuts faces at, and read by vision/pips; each glyph
// of a face pips.Read counts is written with its card's suit.
//
//	go run ./models/pipsuit/glyphs -out .cache/pipsuit/val.bin -decks dondorf,neoclassical,tigullio -n 3
//
// The file holds one record a glyph: its suit (the index in cards.Suits),
// its rank, its deck (the index in -decks, two bytes, little-endian) and
// the card's render (four bytes, little-endian, counted from 1), then
// pips.GlyphPx² grey pixels. The deck names, one a line, go to OUT.decks.
// Only the decks cardart.New serves are drawn: never an acceptance deck.
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"image"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"gocv.io/x/gocv"

	"bjmonitor/cards"
	"bjmonitor/testvideos/camfx"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/vision/pips"
)

// cutPxPerMM is the scale the monitor cuts a face at for its pips
// (vision's pipsPxPerMM).
const cutPxPerMM = 2.0

func main() {
	log.SetFlags(0)
	out := flag.String("out", "", "file to write the glyphs to")
	decks := flag.String("decks", "", "comma-separated deck names (cardart's)")
	n := flag.Int("n", 1, "renders of each number card")
	seed := flag.Uint64("seed", 1, "seed of the camera's draws")
	flag.Parse()
	if *out == "" || *decks == "" || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	faces, glyphs, err := run(*out, strings.Split(*decks, ","), *n, *seed)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("glyphs: %d faces, %d glyphs in %s", faces, glyphs, *out)
}

// run writes the glyphs of every render of every number card of decks to
// out, and the deck names to out.decks. It returns how many faces and
// glyphs it wrote.
func run(out string, decks []string, n int, seed uint64) (faces, glyphs int, err error) {
	if len(decks) > math.MaxUint16 {
		return 0, 0, fmt.Errorf("%d decks, at most %d", len(decks), math.MaxUint16)
	}
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		return 0, 0, err
	}
	defer art.Close()
	if err := os.WriteFile(out+".decks", []byte(strings.Join(decks, "\n")+"\n"), 0o644); err != nil {
		return 0, 0, err
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(seed, 3))
	cut := gocv.NewMat()
	defer cut.Close()
	renders := 0
	for di, deck := range decks {
		for _, c := range cards.Deck() {
			if c.Rank < 2 || c.Rank > 10 {
				continue
			}
			face, err := art.Face(deck, c)
			if err != nil {
				f.Close()
				return 0, 0, fmt.Errorf("%s %v: %w", deck, c, err)
			}
			for range n {
				renders++
				got, err := read(face, rng, &cut)
				if err != nil {
					f.Close()
					return 0, 0, fmt.Errorf("%s %v: %w", deck, c, err)
				}
				if len(got) == 0 {
					continue
				}
				faces++
				for _, g := range got {
					var hdr [8]byte
					hdr[0] = byte(suitIndex(c.Suit))
					hdr[1] = byte(c.Rank)
					binary.LittleEndian.PutUint16(hdr[2:], uint16(di))
					binary.LittleEndian.PutUint32(hdr[4:], uint32(renders))
					w.Write(hdr[:])
					w.Write(g)
					glyphs++
				}
			}
		}
	}
	return faces, glyphs, errors.Join(w.Flush(), f.Close())
}

// read shows face through the camera, either end up, cuts it at
// cutPxPerMM into cut, and returns the glyphs pips.Read finds there
// (none where it counts no pips).
func read(face gocv.Mat, rng *rand.Rand, cut *gocv.Mat) ([][]byte, error) {
	r := 1.2 + rng.Float64()*1.3
	img, err := camfx.Face(face, cards.Width, cards.Length, r, rng)
	if err != nil {
		return nil, err
	}
	defer img.Close()
	if rng.IntN(2) == 1 {
		gocv.Rotate(img, &img, gocv.Rotate180Clockwise)
	}
	size := image.Pt(int(math.Round(cards.Width*cutPxPerMM)), int(math.Round(cards.Length*cutPxPerMM)))
	gocv.Resize(img, cut, size, 0, 0, gocv.InterpolationLinear)
	f, ok := pips.Read(*cut, cutPxPerMM)
	if !ok {
		return nil, nil
	}
	return f.Glyphs, nil
}

// suitIndex returns s's place in cards.Suits.
func suitIndex(s cards.Suit) int {
	for i, x := range cards.Suits {
		if x == s {
			return i
		}
	}
	panic(fmt.Sprintf("glyphs: no suit %v", s))
}

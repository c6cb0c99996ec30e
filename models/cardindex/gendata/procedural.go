package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardface"

	"gocv.io/x/gocv"
)

// The procedural recipe (-proc): card faces drawn by cardface in designs
// no deck has (many fonts, jumbo indices, four-colour suits, tinted
// paper) stand in for the gnome decks' faces in a share of the crops, and
// the camera gets two more faults: resolution down to 1.2 px/mm and a
// specular glare band. Fonts are split by family: the validation split
// draws its designs only from families the training split never sees.

// procDeck names the procedural designs in meta.json's val_decks.
const procDeck = "procedural"

// styles draws n designs from the fonts for which keep is true.
func styles(fonts []*cardface.Font, keep func(string) bool, n int, seed uint64) ([]cardface.Style, []string, error) {
	var use []*cardface.Font
	var names []string
	for _, f := range fonts {
		if keep(f.Family()) {
			use = append(use, f)
			names = append(names, f.Name)
		}
	}
	if len(use) == 0 {
		return nil, nil, fmt.Errorf("no font left for this split")
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([]cardface.Style, n)
	for i := range out {
		st, err := cardface.NewStyle(r, use)
		if err != nil {
			return nil, nil, err
		}
		out[i] = st
	}
	return out, names, nil
}

// markShare calls mark on a share of the designs, drawn from a random
// stream of their own (stream), with that stream for any draws of its
// own: share 0 leaves every design and every other draw as before.
func markShare(sts []cardface.Style, share float64, seed, stream uint64, mark func(*rand.Rand, *cardface.Style)) {
	if share <= 0 {
		return
	}
	r := rand.New(rand.NewPCG(seed, stream))
	for i := range sts {
		if r.Float64() < share {
			mark(r, &sts[i])
		}
	}
}

// markUpright has a share of the designs print their second index
// upright (cardface.Style.UprightSecond), as some decks do: a card lying
// the other way round then shows its index glyphs upside down, and the
// model is to read that corner as the card too.
func markUpright(sts []cardface.Style, share float64, seed uint64) {
	markShare(sts, share, seed, 0x0b7e, func(_ *rand.Rand, st *cardface.Style) { st.UprightSecond = true })
}

// markTight has a share of the designs print their index tight in the
// corner (cardface.Style.Inset), its ink 0.8 to 1.6 mm from the card's
// long and short edges, as some decks do. A design whose index cannot
// come so near stays as it was.
func markTight(sts []cardface.Style, share float64, seed uint64) {
	markShare(sts, share, seed, 0x7197, func(r *rand.Rand, st *cardface.Style) {
		tight := *st
		if err := tight.Inset(uni(r, 0.8, 1.6), uni(r, 0.8, 1.6)); err == nil {
			*st = tight
		}
	})
}

// markPointClubs has a share of the designs draw their clubs with lobes
// that run out to a point (cardface.Style.PointClubs, 0.25 to 0.9 lobe
// radii), as some decks do: a club is then told from a spade by its three
// lobes, not by their roundness.
func markPointClubs(sts []cardface.Style, share float64, seed uint64) {
	markShare(sts, share, seed, 0xc1b5, func(r *rand.Rand, st *cardface.Style) { st.PointClubs(uni(r, 0.25, 0.9)) })
}

// indexCorner is the index corner a crop of card c is cut at: either,
// drawn from r, except that on a design printing its second index
// upright a 6♦ or 9♦ is cut at its first only: turned, a 9♦ in a
// point-symmetric figure is a 6♦, and no crop can say which.
func indexCorner(r *rand.Rand, st *cardface.Style, c cards.Card) corner {
	k := []corner{cornerTL, cornerBR}[r.IntN(2)]
	if st != nil && st.UprightSecond && c.Suit == cards.Diamonds && (c.Rank == cards.Six || c.Rank == cards.Nine) {
		return cornerTL
	}
	return k
}

// procFace draws card c in style st into dst as a BGRA face of the gnome
// decks' size.
func procFace(st cardface.Style, c cards.Card, dst *gocv.Mat) error {
	const w, h = 300, 420
	img, err := cardface.Draw(st, c, w, h)
	if err != nil {
		return err
	}
	if dst.Empty() || dst.Cols() != w || dst.Rows() != h || dst.Type() != gocv.MatTypeCV8UC4 {
		dst.Close()
		*dst = gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC4)
	}
	d, err := dst.DataPtrUint8()
	if err != nil {
		return err
	}
	p := img.Pix
	for i := 0; i < len(d); i += 4 {
		d[i], d[i+1], d[i+2], d[i+3] = p[i+2], p[i+1], p[i], p[i+3]
	}
	return nil
}

// glare lays a soft band of specular light across the canvas, as a glossy
// card under a spotlight shows: brightness added towards white, strongest
// on the band's centre line.
func glare(r *rand.Rand, canvas *gocv.Mat, px float64) {
	d, err := canvas.DataPtrUint8()
	if err != nil {
		return
	}
	w, h := canvas.Cols(), canvas.Rows()
	theta := uni(r, 0, math.Pi)
	nx, ny := math.Cos(theta), math.Sin(theta)
	c := uni(r, -0.3, 0.3)*float64(w) + float64(w)/2*nx + float64(h)/2*ny
	width := uni(r, 3, 15) * px
	peak := uni(r, 0.25, 0.75)
	for y := range h {
		for x := range w {
			t := (float64(x)*nx + float64(y)*ny - c) / width
			a := peak * math.Exp(-t*t)
			if a < 0.01 {
				continue
			}
			i := (y*w + x) * 3
			for k := 0; k < 3; k++ {
				d[i+k] = clamp8(float64(d[i+k]) + a*(255-float64(d[i+k])))
			}
		}
	}
}

package cardface

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"

	"bjmonitor/cards"
)

// Card size in mm.
const (
	cardW = cards.Width
	cardH = cards.Length
)

// The index must fit the corner crop the card index model reads (20 ×
// 36 mm, classify.CropWidthMM × CropHeightMM) with room for the corner
// finder's error.
const (
	maxExtentX = 19.0
	maxExtentY = 34.5
)

// box is a rectangle on the face in mm.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) w() float64 { return b.x1 - b.x0 }
func (b box) h() float64 { return b.y1 - b.y0 }

// Style is one deck's design. Make one with NewStyle.
type Style struct {
	// FourCorners is true when the index is printed in all four corners
	// (upright at the top right, turned at the bottom left), not only at
	// the top left and bottom right.
	FourCorners bool
	// UprightSecond is true when the second index (bottom right, and
	// bottom left with FourCorners) is printed upright, its pip above its
	// rank, instead of the first turned half round: a card turned half
	// round shows its index glyphs upside down. NewStyle never draws it;
	// a caller sets it (cardart's "proc:7u").
	UprightSecond bool
	// Extent is how far the index (rank and pip) reaches from the card's
	// corner along its short and long edge, in mm, over every rank.
	Extent struct{ X, Y float64 }

	font      *Font
	grow      int     // ink grown (>0) or thinned (<0), pixels at glyphEm
	scale     float64 // mm per glyph pixel, vertically
	wide      float64 // ranks' width factor against the font's own
	tenWide   float64 // extra width factor of "10"
	axis      float64 // mm from the left edge to the index's centre line
	top       float64 // mm from the top edge to the rank's cap line
	capH      float64 // the rank's cap height, mm
	rankW     float64 // the K's width, mm: the index column's width
	pipH      float64 // index pip height, mm
	pipW      float64 // index pip width, mm
	pipGap    float64 // mm between rank and pip
	beside    bool    // the index pip right of the rank instead of below it
	fontPips  bool    // suit glyphs from the font instead of drawn pips
	pips      pipSet
	ink       [4]color.NRGBA // by cards.Suits order
	paper     color.NRGBA
	edge      color.NRGBA // outline drawn around the card; alpha 0 for none
	edgeW     float64     // the outline's width, mm; 0 for the usual 0.3
	radius    float64     // corner radius, mm
	body      box         // where the pips and court art go
	bodyPipH  float64     // number cards' pip height, mm
	acePipH   float64
	courtSeed uint64
}

// NewStyle draws a deck design from r, its rank type from fonts.
func NewStyle(r *rand.Rand, fonts []*Font) (Style, error) {
	if len(fonts) == 0 {
		return Style{}, fmt.Errorf("cardface: no font")
	}
	// A font whose index cannot fit the corner (a very wide face) is
	// passed over for another.
	var err error
	for range 10 {
		var st Style
		if st, err = newStyle(r, fonts[r.IntN(len(fonts))]); err == nil {
			return st, nil
		}
	}
	return Style{}, err
}

func newStyle(r *rand.Rand, f *Font) (Style, error) {
	st := Style{
		font:        f,
		FourCorners: r.Float64() < 0.25,
		pips:        newPipSet(r),
		radius:      uni(r, 2.5, 4),
		courtSeed:   r.Uint64(),
	}
	st.fontPips = st.font.Suits && r.Float64() < 0.35
	// A bolder or thinner cut of the type: strokes from 0.6 to 1.8 times
	// the font's own width, and never under 7 px at glyphEm (about
	// 0.35 mm on a 7 mm rank).
	if r.Float64() < 0.4 {
		w := f.stroke * math.Exp(uni(r, math.Log(0.6), math.Log(1.8)))
		st.grow = int(math.Round((math.Max(w, math.Min(7, f.stroke)) - f.stroke) / 2))
	}
	st.drawColours(r)
	if err := st.drawIndex(r); err != nil {
		return Style{}, err
	}
	st.drawBody(r)
	return st, nil
}

// FontName names the font the ranks are printed in.
func (st Style) FontName() string { return st.font.Name }

// drawColours picks the inks and the paper.
func (st *Style) drawColours(r *rand.Rand) {
	black := color.NRGBA{uint8(uni(r, 0, 45)), uint8(uni(r, 0, 45)), uint8(uni(r, 0, 50)), 255}
	if r.Float64() < 0.2 { // blue-black
		black = color.NRGBA{uint8(uni(r, 10, 30)), uint8(uni(r, 20, 45)), uint8(uni(r, 60, 100)), 255}
	}
	red := color.NRGBA{uint8(uni(r, 170, 235)), uint8(uni(r, 0, 45)), uint8(uni(r, 10, 55)), 255}
	if r.Float64() < 0.25 { // orange-red
		red.G = uint8(uni(r, 40, 90))
	}
	st.ink = [4]color.NRGBA{black, red, red, black}
	if r.Float64() < 0.15 { // four-colour deck
		st.ink[3] = color.NRGBA{uint8(uni(r, 0, 40)), uint8(uni(r, 110, 160)), uint8(uni(r, 30, 80)), 255}
		st.ink[2] = color.NRGBA{uint8(uni(r, 0, 40)), uint8(uni(r, 60, 110)), uint8(uni(r, 170, 225)), 255}
		if r.Float64() < 0.3 {
			st.ink[2] = color.NRGBA{uint8(uni(r, 220, 250)), uint8(uni(r, 120, 170)), uint8(uni(r, 0, 40)), 255}
		}
	}
	v := uni(r, 238, 255)
	st.paper = color.NRGBA{uint8(v), uint8(v), uint8(v), 255}
	switch u := r.Float64(); {
	case u < 0.15: // cream
		st.paper = color.NRGBA{uint8(uni(r, 245, 255)), uint8(uni(r, 236, 248)), uint8(uni(r, 205, 230)), 255}
	case u < 0.25: // grey
		g := uni(r, 215, 235)
		st.paper = color.NRGBA{uint8(g), uint8(g), uint8(g + uni(r, -4, 6)), 255}
	case u < 0.32: // a blue, green or pink tint
		st.paper = color.NRGBA{uint8(uni(r, 225, 250)), uint8(uni(r, 230, 250)), uint8(uni(r, 230, 255)), 255}
	}
	if r.Float64() < 0.4 {
		g := uint8(uni(r, 90, 190))
		st.edge = color.NRGBA{g, g, g, 255}
	}
}

// drawIndex lays out the corner index: rank size and width, pip size and
// place, margins; then shrinks it until every rank's index fits the crop.
func (st *Style) drawIndex(r *rand.Rand) error {
	k, err := st.font.mask("K", st.grow)
	if err != nil {
		return err
	}
	capPx := float64(-k.Rect.Min.Y) // K sits on the baseline: its top is the cap height
	if capPx < glyphEm/5 {
		return fmt.Errorf("cardface: font %s has a cap height of %.0f px at %d px", st.font.Name, capPx, glyphEm)
	}
	jumbo := r.Float64() < 0.3
	st.capH = uni(r, 6.5, 10.5)
	if jumbo {
		st.capH = uni(r, 11, 20)
	}
	st.wide = math.Exp(uni(r, math.Log(0.75), math.Log(1.2)))
	st.tenWide = uni(r, 0.65, 1)
	st.beside = r.Float64() < 0.2
	ratio := uni(r, 0.55, 0.95)
	if jumbo {
		ratio = uni(r, 0.4, 0.7)
	}
	st.pipH = math.Max(3.5, math.Min(11, ratio*st.capH))
	st.pipW = st.pipH * uni(r, 0.8, 1)
	st.pipGap = uni(r, 0.3, 2)
	marginX, marginY := uni(r, 1.5, 4.5), uni(r, 2, 5)
	for range 20 {
		st.scale = st.capH / capPx
		st.rankW = float64(k.Rect.Dx()) * st.scale * st.wide
		st.axis = marginX + st.rankW/2
		if !st.beside {
			st.axis = marginX + math.Max(st.rankW, st.pipW)/2
		}
		st.top = marginY
		ext, err := st.extent()
		if err != nil {
			return err
		}
		if ext.X <= maxExtentX && ext.Y <= maxExtentY {
			st.Extent.X, st.Extent.Y = ext.X, ext.Y
			return nil
		}
		st.capH *= 0.93
		st.pipH, st.pipW = st.pipH*0.93, st.pipW*0.93
		marginX, marginY = math.Max(1, marginX*0.9), math.Max(1.5, marginY*0.9)
	}
	return fmt.Errorf("cardface: font %s: no index fits the corner", st.font.Name)
}

// Inset moves the index so that its ink comes to x mm from the card's
// long edge and y mm from its short edge, over every rank, and sets
// Extent again: tighter than NewStyle draws (1.5 and 2 mm or more to the
// index's column and cap line), as some decks print theirs. The card's
// body stays where it was.
func (st *Style) Inset(x, y float64) error {
	nearX, nearY, err := st.indexNear()
	if err != nil {
		return err
	}
	st.axis += x - nearX
	st.top += y - nearY
	ext, err := st.extent()
	if err != nil {
		return err
	}
	if math.IsInf(ext.X, 1) {
		return fmt.Errorf("cardface: an index %.1f mm from the long edge runs off the card", x)
	}
	st.Extent.X, st.Extent.Y = ext.X, ext.Y
	return nil
}

// Frame draws the design's cards with a frame of colour c, width mm wide,
// along their edges, as some decks print them and NewStyle never draws
// (its outline, where it draws one, is a 0.3 mm grey line). An index
// nearer the edges than frameClearMM inside the frame is moved in that
// far (Inset).
func (st *Style) Frame(width float64, c color.NRGBA) error {
	nearX, nearY, err := st.indexNear()
	if err != nil {
		return err
	}
	if need := width + frameClearMM; nearX < need || nearY < need {
		if err := st.Inset(math.Max(nearX, need), math.Max(nearY, need)); err != nil {
			return err
		}
	}
	st.edge, st.edgeW = c, width
	return nil
}

// indexNear is how near the index's ink comes, over every rank, to the
// card's long edge (x) and short edge (y), in mm.
func (st *Style) indexNear() (x, y float64, err error) {
	x, y = math.Inf(1), math.Inf(1)
	for _, rk := range ranks {
		rb, pb, err := st.indexBoxes(rk)
		if err != nil {
			return 0, 0, err
		}
		x = math.Min(x, math.Min(rb.x0, pb.x0))
		y = math.Min(y, math.Min(rb.y0, pb.y0))
	}
	return x, y, nil
}

// frameClearMM is the least paper Frame leaves between its frame and
// the index's ink.
const frameClearMM = 0.3

// PointClubs draws the design's clubs, in the indices and on the face,
// with lobes that run out to a point, leaf-shaped, as some decks print
// them and NewStyle never draws: point is how far beyond a round lobe, in
// lobe radii (0 draws round lobes). The suits are then drawn, never the
// font's glyphs.
func (st *Style) PointClubs(point float64) {
	st.pips.clubPoint = max(point, 0)
	st.fontPips = false
}

// extent is the index's reach over every rank, with half a millimetre of
// margin.
func (st *Style) extent() (struct{ X, Y float64 }, error) {
	var e struct{ X, Y float64 }
	for _, rk := range ranks {
		rb, pb, err := st.indexBoxes(rk)
		if err != nil {
			return e, err
		}
		e.X = math.Max(e.X, math.Max(rb.x1, pb.x1)+0.5)
		e.Y = math.Max(e.Y, math.Max(rb.y1, pb.y1)+0.5)
		if rb.x0 < 0.8 {
			e.X = math.Inf(1) // the rank runs off the card's edge
		}
	}
	return e, nil
}

// ranks lists every rank.
var ranks = []cards.Rank{cards.Ace, cards.Two, cards.Three, cards.Four, cards.Five, cards.Six,
	cards.Seven, cards.Eight, cards.Nine, cards.Ten, cards.Jack, cards.Queen, cards.King}

// rankText is the rank as printed in a corner.
func rankText(rk cards.Rank) string {
	if rk == cards.Ten {
		return "10"
	}
	return rk.String()
}

// indexBoxes places the top-left index of rank rk: the rank's ink and the
// pip, in face mm.
func (st *Style) indexBoxes(rk cards.Rank) (rank, pip box, err error) {
	m, err := st.font.mask(rankText(rk), st.grow)
	if err != nil {
		return box{}, box{}, err
	}
	w := float64(m.Rect.Dx()) * st.scale * st.wide
	if rk == cards.Ten {
		w *= st.tenWide
	}
	baseline := st.top + st.capH
	rank = box{st.axis - w/2, baseline + float64(m.Rect.Min.Y)*st.scale, st.axis + w/2, baseline + float64(m.Rect.Max.Y)*st.scale}
	if st.beside {
		x := math.Max(st.axis+st.rankW/2, rank.x1) + st.pipGap
		pip = box{x, st.top, x + st.pipW, st.top + st.pipH}
		return rank, pip, nil
	}
	y := math.Max(baseline, rank.y1) + st.pipGap
	pip = box{st.axis - st.pipW/2, y, st.axis + st.pipW/2, y + st.pipH}
	return rank, pip, nil
}

// drawBody sizes the area of pips and court art, between the indices.
func (st *Style) drawBody(r *rand.Rand) {
	x0 := math.Min(22, st.Extent.X+uni(r, 0.8, 3))
	y0 := uni(r, 7, 14)
	if st.Extent.Y > 30 && !st.FourCorners {
		y0 = uni(r, 7, 10)
	}
	st.body = box{x0, y0, cardW - x0, cardH - y0}
	rows := st.body.h() / 4.6 // ten pips stand in four rows and a half
	cols := st.body.w() / 2.5 // and in two columns with room between
	st.bodyPipH = math.Min(uni(r, 8, 13), math.Min(rows, cols*1.1))
	st.acePipH = math.Min(uni(r, 14, 28), st.body.w()*0.9)
}

package cardart

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"bjmonitor/cards"

	"gocv.io/x/gocv"
)

// DefaultDeckDir is where Debian's gnome-cards-data installs its decks.
const DefaultDeckDir = "/usr/share/aisleriot/cards"

// Default face size in pixels. 300×420 keeps the 63×88 mm proportions at
// about 4.8 px/mm, a little above what 4K footage of a table needs (about
// 3.2 px/mm at the card area), so faces are only ever scaled down.
const (
	DefaultWidth  = 300
	DefaultHeight = 420
)

// kept lists the decks whose indices and suits match the cards dealt at a
// casino table: A, K, Q, J and 2–10 in the corners, and the four French
// suits in red and black. The order is the order Decks returns.
var kept = []string{
	"anglo",
	"anglo_bitmap",
	"anglo_modern",
	"anglo_poker",
	"atlasnye",
	"bellot",
	"dondorf",
	"gnomangelo",
	"gnomangelo_bitmap",
	"neoclassical",
	"orell",
	"ornamental",
	"paris",
	"plastic",
	"simplistic",
	"tango",
	"tigullio",
}

// excluded says why each other deck of gnome-cards-data is left out.
// README.md repeats this list for people.
var excluded = map[string]string{
	"ancient_french":       "French indices (1, V, D, R)",
	"anglo_modern_4_color": "four-colour suits (green clubs, yellow diamonds, blue spades); casino decks are red and black, and Blazing 7's pays by colour",
	"atlasnye_skat":        "German indices (B, D, K) and four-colour suits",
	"berlin":               "German indices (B, D, K)",
	"guyenne-classic":      "court cards carry no rank index",
	"lattmann":             "German indices (B, D, K)",
	"neoclassical_4_color": "four-colour suits (green clubs, yellow diamonds, blue spades)",
	"rheinland":            "German indices (B, D, K)",
	"slavic_costumes":      "Russian indices (Т, В, Д)",
	"swiss-xvii":           "Swiss suits (acorns, bells, roses, shields) instead of French ones",
	"tango_nuevo":          "one jumbo pip on every card whatever its rank, unlike any casino deck",
	"tarocco":              "Italian indices (F, D, R)",
	"Атласные":             "Russian indices (Т, В, Д); the same art as atlasnye, which is kept",
}

// Deck is one usable card design.
type Deck struct {
	// Name is the theme's file name without .svgz, such as "anglo". It is
	// the key for Face and for the cache.
	Name string
	// Path is the SVGZ file the faces are rendered from.
	Path string
}

// Decks lists the usable decks found in dir (DefaultDeckDir when empty),
// in a fixed order. A kept deck that is not installed is skipped; no deck
// at all is an error, since footage cannot be made without one.
func Decks(dir string) ([]Deck, error) {
	if dir == "" {
		dir = DefaultDeckDir
	}
	var out []Deck
	for _, name := range kept {
		p := filepath.Join(dir, name+".svgz")
		if _, err := os.Stat(p); err == nil {
			out = append(out, Deck{Name: name, Path: p})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cardart: no usable deck in %s (install gnome-cards-data)", dir)
	}
	return out, nil
}

// Excluded returns the names of the decks left out, each with the reason.
// The map is a copy.
func Excluded() map[string]string {
	out := make(map[string]string, len(excluded))
	for k, v := range excluded {
		out[k] = v
	}
	return out
}

// Options configure an Art. The zero value is ready to use.
type Options struct {
	// DeckDir holds the .svgz decks; DefaultDeckDir when empty.
	DeckDir string
	// CacheDir holds the rendered PNGs; os.UserCacheDir()/bjmonitor/cardart
	// when empty (that is $XDG_CACHE_HOME or ~/.cache on Linux).
	CacheDir string
	// Width and Height of every face and back, in pixels;
	// DefaultWidth×DefaultHeight when zero.
	Width, Height int
	// BackColor is the colour of the plain back; casino red when zero.
	BackColor color.RGBA
}

// Art renders, caches and hands out card images. It owns every Mat it
// returns; Close releases them all. Its methods are safe for concurrent use.
type Art struct {
	opt Options

	mu     sync.Mutex
	decks  map[string]*deckCache
	back   gocv.Mat
	closed bool
	// acceptance marks an Art made by NewAcceptance: it serves the KDE
	// acceptance decks and nothing else.
	acceptance bool
}

// deckCache guards the rendering of one deck so that two goroutines asking
// for the same deck render it once, while other decks proceed.
type deckCache struct {
	once  sync.Once
	dir   string // the deck's cache folder, complete once once has run
	err   error
	mu    sync.Mutex
	faces map[cards.Card]gocv.Mat
}

// New returns an Art. It renders nothing yet.
func New(opt Options) (*Art, error) {
	if opt.DeckDir == "" {
		opt.DeckDir = DefaultDeckDir
	}
	if opt.CacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("cardart: no cache folder (set Options.CacheDir): %w", err)
		}
		opt.CacheDir = filepath.Join(base, "bjmonitor", "cardart")
	}
	if opt.Width == 0 && opt.Height == 0 {
		opt.Width, opt.Height = DefaultWidth, DefaultHeight
	}
	if opt.Width < 16 || opt.Height < 16 || opt.Width > 4000 || opt.Height > 4000 {
		return nil, fmt.Errorf("cardart: face size %dx%d out of range 16..4000", opt.Width, opt.Height)
	}
	if opt.BackColor == (color.RGBA{}) {
		opt.BackColor = color.RGBA{R: 150, G: 24, B: 32, A: 255}
	}
	return &Art{opt: opt, decks: map[string]*deckCache{}}, nil
}

// Size returns the size of every face and back, in pixels.
func (a *Art) Size() image.Point { return image.Pt(a.opt.Width, a.opt.Height) }

// ErrClosed is returned by an Art after Close.
var ErrClosed = errors.New("cardart: Art is closed")

// Face returns card c of the named deck (a kept gnome deck, or a
// procedural deck named with ProceduralPrefix or TrainingPrefix) as a
// BGRA Mat of Size(), transparent outside the card's outline. The first
// call for a deck renders the whole deck into the cache (about a
// second); later calls read PNGs or memory.
// The Art owns the returned Mat: do not Close or modify it, and do not use
// it after the Art is closed.
func (a *Art) Face(deck string, c cards.Card) (gocv.Mat, error) {
	if !c.Valid() {
		return gocv.Mat{}, fmt.Errorf("cardart: invalid card %v", c)
	}
	dc, err := a.deck(deck)
	if err != nil {
		return gocv.Mat{}, err
	}
	render := a.ensureRendered
	switch {
	case a.acceptance:
		render = a.ensureAcceptanceRendered
	case strings.HasPrefix(deck, ProceduralPrefix), strings.HasPrefix(deck, TrainingPrefix):
		render = a.ensureProceduralRendered
	}
	dc.once.Do(func() { dc.dir, dc.err = render(deck) })
	if dc.err != nil {
		return gocv.Mat{}, dc.err
	}
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if m, ok := dc.faces[c]; ok {
		return m, nil
	}
	p := filepath.Join(dc.dir, c.String()+".png")
	m := gocv.IMRead(p, gocv.IMReadUnchanged)
	if m.Empty() || m.Type() != gocv.MatTypeCV8UC4 || m.Cols() != a.opt.Width || m.Rows() != a.opt.Height {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("cardart: cached face %s is unreadable or of the wrong size; delete %s to re-render", p, dc.dir)
	}
	a.mu.Lock()
	closed := a.closed
	if !closed {
		dc.faces[c] = m
	}
	a.mu.Unlock()
	if closed {
		m.Close()
		return gocv.Mat{}, ErrClosed
	}
	return m, nil
}

// deck returns the cache record of a usable deck.
func (a *Art) deck(name string) (*deckCache, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, ErrClosed
	}
	if dc, ok := a.decks[name]; ok {
		return dc, nil
	}
	if a.acceptance {
		if _, err := acceptanceDeck(name); err != nil {
			return nil, err
		}
		dc := &deckCache{faces: map[cards.Card]gocv.Mat{}}
		a.decks[name] = dc
		return dc, nil
	}
	if why, ok := excluded[name]; ok {
		return nil, fmt.Errorf("cardart: deck %q is excluded: %s", name, why)
	}
	_, _, usable := proceduralSeed(name)
	for _, k := range kept {
		usable = usable || k == name
	}
	if !usable {
		return nil, fmt.Errorf("cardart: unknown deck %q", name)
	}
	dc := &deckCache{faces: map[cards.Card]gocv.Mat{}}
	a.decks[name] = dc
	return dc, nil
}

// Back returns the plain back used for the hole card and other face-down
// cards: a solid colour inside a thin white border, as on casino decks,
// BGRA of Size(). The Art owns it, as with Face.
func (a *Art) Back() (gocv.Mat, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return gocv.Mat{}, ErrClosed
	}
	if a.back.Ptr() == nil || a.back.Empty() {
		a.back = drawBack(a.opt.Width, a.opt.Height, a.opt.BackColor)
	}
	return a.back, nil
}

// Close releases every Mat handed out. It is safe to call more than once.
func (a *Art) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.closed = true
	for _, dc := range a.decks {
		dc.mu.Lock()
		for k, m := range dc.faces {
			m.Close()
			delete(dc.faces, k)
		}
		dc.mu.Unlock()
	}
	if a.back.Ptr() != nil {
		a.back.Close()
	}
	return nil
}

// cacheDir is the folder of one deck's faces at this Art's size.
func (a *Art) cacheDir(deck string) string {
	return filepath.Join(a.opt.CacheDir, deck, fmt.Sprintf("%dx%d", a.opt.Width, a.opt.Height))
}

// ensureRendered makes sure the deck's 52 faces are in the cache and
// returns their folder. The faces are written to a temporary folder that is
// renamed into place, so another process never sees half a deck.
func (a *Art) ensureRendered(deck string) (string, error) {
	final := a.cacheDir(deck)
	if complete(final) {
		return final, nil
	}
	svg := filepath.Join(a.opt.DeckDir, deck+".svgz")
	if _, err := os.Stat(svg); err != nil {
		return "", fmt.Errorf("cardart: deck %q: %w", deck, err)
	}
	return renderInto(final, deck, func(tmp string) error { return a.renderDeck(svg, tmp) })
}

// renderInto has render write a deck's faces into a temporary folder beside
// final, then renames it into place, so another process never sees half a
// deck. It returns final.
func renderInto(final, deck string, render func(tmp string) error) (string, error) {
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("cardart: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".render-")
	if err != nil {
		return "", fmt.Errorf("cardart: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := render(tmp); err != nil {
		return "", fmt.Errorf("cardart: deck %q: %w", deck, err)
	}
	if err := os.Rename(tmp, final); err != nil && !complete(final) {
		return "", fmt.Errorf("cardart: %w", err)
	}
	return final, nil
}

// complete reports whether dir holds all 52 faces.
func complete(dir string) bool {
	for _, c := range cards.Deck() {
		if _, err := os.Stat(filepath.Join(dir, c.String()+".png")); err != nil {
			return false
		}
	}
	return true
}

// Every aisleriot theme lays its cards out on a 13×5 grid: columns ace to
// king, rows clubs, diamonds, hearts, spades, then jokers and backs. Cutting
// the grid is more reliable than rsvg-convert --export-id, whose bounding
// boxes are wrong for many themes (cards built from <use> elements come
// out as slivers or whole rows).
const (
	gridCols = 13
	gridRows = 5
)

var suitRow = map[cards.Suit]int{cards.Clubs: 0, cards.Diamonds: 1, cards.Hearts: 2, cards.Spades: 3}

// renderDeck renders the sheet once and cuts it into 52 PNGs in dir.
func (a *Art) renderDeck(svg, dir string) error {
	// Render the sheet about 15% larger than the faces so that the final
	// resize only shrinks (INTER_AREA), which keeps thin index strokes crisp.
	sheetW := gridCols * a.opt.Width * 115 / 100
	sheetPNG := filepath.Join(dir, "sheet.png")
	cmd := exec.Command("rsvg-convert", "--width", fmt.Sprint(sheetW), "--output", sheetPNG, svg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("rsvg-convert: %v: %s", err, strings.TrimSpace(string(out)))
	}
	sheet := gocv.IMRead(sheetPNG, gocv.IMReadUnchanged)
	defer sheet.Close()
	if sheet.Empty() || sheet.Type() != gocv.MatTypeCV8UC4 {
		return fmt.Errorf("rsvg-convert wrote no RGBA image to %s", sheetPNG)
	}
	defer os.Remove(sheetPNG)
	cellW := float64(sheet.Cols()) / gridCols
	cellH := float64(sheet.Rows()) / gridRows
	alpha := gocv.NewMat()
	defer alpha.Close()
	gocv.ExtractChannel(sheet, &alpha, 3)
	face := gocv.NewMat()
	defer face.Close()
	for _, c := range cards.Deck() {
		col, row := int(c.Rank)-1, suitRow[c.Suit]
		cell := image.Rect(int(float64(col)*cellW+0.5), int(float64(row)*cellH+0.5),
			int(float64(col+1)*cellW+0.5), int(float64(row+1)*cellH+0.5)).Intersect(image.Rect(0, 0, sheet.Cols(), sheet.Rows()))
		box, ok := opaqueBounds(alpha, cell)
		if !ok || box.Dx() < cell.Dx()/2 || box.Dy() < cell.Dy()/2 {
			return fmt.Errorf("card %v: no card found in grid cell %v", c, cell)
		}
		src := sheet.Region(box)
		// Cards of the themes are 0.64–0.72 wide for 1 high; casino cards
		// are 63×88 mm (0.716). Stretching a few per cent is invisible, and
		// gives every card the same physical size on the table.
		gocv.Resize(src, &face, image.Pt(a.opt.Width, a.opt.Height), 0, 0, gocv.InterpolationArea)
		src.Close()
		if !gocv.IMWrite(filepath.Join(dir, c.String()+".png"), face) {
			return fmt.Errorf("card %v: cannot write PNG in %s", c, dir)
		}
	}
	return nil
}

// opaqueBounds returns the bounding box, in sheet coordinates, of the
// mostly opaque pixels of alpha inside cell. Themes leave gaps of varying
// width between cards; the box is the card itself.
func opaqueBounds(alpha gocv.Mat, cell image.Rectangle) (image.Rectangle, bool) {
	roi := alpha.Region(cell)
	defer roi.Close()
	sub := roi.Clone() // continuous copy, so its bytes can be read directly
	defer sub.Close()
	b, err := sub.DataPtrUint8()
	if err != nil {
		return image.Rectangle{}, false
	}
	w, h := sub.Cols(), sub.Rows()
	// A row or column belongs to the card when a quarter of it is opaque:
	// that skips stray strokes drawn outside the card, and still catches
	// the card's rounded ends.
	rowOK := func(y int) bool {
		n := 0
		for x := 0; x < w; x++ {
			if b[y*w+x] >= 128 {
				n++
			}
		}
		return n*4 >= w
	}
	colOK := func(x int) bool {
		n := 0
		for y := 0; y < h; y++ {
			if b[y*w+x] >= 128 {
				n++
			}
		}
		return n*4 >= h
	}
	y0, y1, x0, x1 := 0, h-1, 0, w-1
	for y0 < h && !rowOK(y0) {
		y0++
	}
	for y1 > y0 && !rowOK(y1) {
		y1--
	}
	for x0 < w && !colOK(x0) {
		x0++
	}
	for x1 > x0 && !colOK(x1) {
		x1--
	}
	if y0 >= y1 || x0 >= x1 {
		return image.Rectangle{}, false
	}
	return image.Rect(x0, y0, x1+1, y1+1).Add(cell.Min), true
}

// drawBack draws the plain back: rounded white card, thin white border,
// solid colour field with a fine inner line.
func drawBack(w, h int, fill color.RGBA) gocv.Mat {
	m := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC4)
	m.SetTo(gocv.NewScalar(0, 0, 0, 0))
	r := w / 16 // corner radius: about 4 mm on a 63 mm card
	white := color.RGBA{R: 250, G: 250, B: 247, A: 255}
	roundedRect(&m, image.Rect(0, 0, w, h), r, white)
	border := w / 20
	roundedRect(&m, image.Rect(border, border, w-border, h-border), r/2, fill)
	in := border + w/40
	line := color.RGBA{R: fill.R/2 + 100, G: fill.G/2 + 100, B: fill.B/2 + 100, A: 255}
	gocv.RectangleWithParams(&m, image.Rect(in, in, w-in, h-in), line, max(1, w/150), gocv.LineAA, 0)
	return m
}

// roundedRect fills r with corners of radius rad. (gocv turns color.RGBA
// into OpenCV's BGRA order itself.)
func roundedRect(m *gocv.Mat, r image.Rectangle, rad int, bgra color.RGBA) {
	gocv.Rectangle(m, image.Rect(r.Min.X+rad, r.Min.Y, r.Max.X-rad, r.Max.Y), bgra, -1)
	gocv.Rectangle(m, image.Rect(r.Min.X, r.Min.Y+rad, r.Max.X, r.Max.Y-rad), bgra, -1)
	for _, p := range []image.Point{
		{r.Min.X + rad, r.Min.Y + rad}, {r.Max.X - rad - 1, r.Min.Y + rad},
		{r.Min.X + rad, r.Max.Y - rad - 1}, {r.Max.X - rad - 1, r.Max.Y - rad - 1},
	} {
		gocv.CircleWithParams(m, p, rad, bgra, -1, gocv.LineAA, 0)
	}
}

// ContactSheet draws all 52 faces of a deck on a grey board, 13 columns
// (ace to king) by 4 rows (spades, hearts, diamonds, clubs), each cardWidth
// pixels wide, so that a person can check the deck at a glance. It returns
// a new BGR Mat that the caller owns and must Close.
func (a *Art) ContactSheet(deck string, cardWidth int) (gocv.Mat, error) {
	if cardWidth < 8 || cardWidth > 1000 {
		return gocv.Mat{}, fmt.Errorf("cardart: contact sheet card width %d out of range 8..1000", cardWidth)
	}
	cw := cardWidth
	ch := cw * a.opt.Height / a.opt.Width
	gap := max(2, cw/12)
	sheet := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(96, 96, 96, 0),
		4*(ch+gap)+gap, gridCols*(cw+gap)+gap, gocv.MatTypeCV8UC3)
	small := gocv.NewMat()
	defer small.Close()
	for row, s := range cards.Suits {
		for r := cards.Ace; r <= cards.King; r++ {
			face, err := a.Face(deck, cards.New(r, s))
			if err != nil {
				sheet.Close()
				return gocv.Mat{}, err
			}
			gocv.Resize(face, &small, image.Pt(cw, ch), 0, 0, gocv.InterpolationArea)
			at := image.Pt(gap+int(r-1)*(cw+gap), gap+row*(ch+gap))
			blendOnto(&sheet, small, at)
		}
	}
	return sheet, nil
}

// blendOnto draws a BGRA image over a continuous BGR one at `at`, by its
// alpha. The caller keeps src inside dst. It works on the bytes directly:
// a cgo call per pixel would be a hundred times slower.
func blendOnto(dst *gocv.Mat, src gocv.Mat, at image.Point) {
	d, err1 := dst.DataPtrUint8()
	s, err2 := src.DataPtrUint8()
	if err1 != nil || err2 != nil {
		return
	}
	dw, sw := dst.Cols(), src.Cols()
	for y := 0; y < src.Rows(); y++ {
		for x := 0; x < sw; x++ {
			si := (y*sw + x) * 4
			al := int(s[si+3])
			if al == 0 {
				continue
			}
			di := ((at.Y+y)*dw + at.X + x) * 3
			for ch := 0; ch < 3; ch++ {
				d[di+ch] = uint8((int(s[si+ch])*al + int(d[di+ch])*(255-al) + 127) / 255)
			}
		}
	}
}

// knownDecks lists kept and excluded names together, for tests.
func knownDecks() []string {
	out := append([]string(nil), kept...)
	for k := range excluded {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

package cardface

import (
	"fmt"
	"hash/fnv"
	"image"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
)

// DefaultFontDirs is where Debian's font packages install their files.
var DefaultFontDirs = []string{"/usr/share/fonts/truetype", "/usr/share/fonts/opentype"}

// rankChars must all be drawn by a font for it to print ranks; suitRunes
// by a font for its suit glyphs to serve as pips (♠ ♥ ♦ ♣, in cards.Suits
// order).
const rankChars = "0123456789AJQK"

var suitRunes = [4]rune{'♠', '♥', '♦', '♣'}

// glyphEm is the size in pixels at which glyphs are rasterised before
// they are scaled to the card: large enough that scaling down to a 20 mm
// jumbo rank at 4.8 px/mm only ever shrinks.
const glyphEm = 160

// A Font is one font file that can print every rank. Its methods are safe
// for concurrent use.
type Font struct {
	// Name is the file's base name without extension, such as
	// "DejaVuSans-Bold".
	Name string
	// Path is the font file.
	Path string
	// Suits reports whether the font also draws the four suit symbols,
	// each in its own suit's shape (suitsLookRight).
	Suits bool

	// stroke is the width of the font's strokes in pixels at glyphEm,
	// as its 8 shows them.
	stroke float64

	f     *sfnt.Font
	mu    sync.Mutex
	masks map[maskKey]*image.Alpha
}

type maskKey struct {
	text string
	grow int // pixels of ink added (>0) or taken (<0) at glyphEm
}

// Family is the font's family as far as its file name tells: the name
// without its weight and style, so that DejaVuSans-Bold and DejaVuSans
// are one family. Fonts are held out for validation by family.
func (f *Font) Family() string {
	n := f.Name
	if i := strings.IndexAny(n, "-_"); i > 0 {
		n = n[:i]
	}
	return strings.ToLower(n)
}

// HeldOutFamily reports whether a font family is held out of training:
// about one family in five, chosen by a hash of its name, so the split
// does not depend on which font packages are installed. Designs drawn
// from these families are for validation and for clips of decks the model
// never saw.
func HeldOutFamily(family string) bool {
	h := fnv.New32a()
	h.Write([]byte(family))
	return h.Sum32()%5 == 0
}

// LoadFonts reads every .ttf and .otf file under dirs that prints all of
// A, J, Q, K and the digits in upright type of a weight fit for an index,
// sorted by name. Italic, oblique and hairline faces are left out: no
// card maker prints an index in them.
// A folder that does not exist is skipped; finding no font at all is an
// error.
func LoadFonts(dirs ...string) ([]*Font, error) {
	var out []*Font
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return fs.SkipDir
				}
				return err
			}
			ext := strings.ToLower(filepath.Ext(p))
			if d.IsDir() || (ext != ".ttf" && ext != ".otf") {
				return nil
			}
			name := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f, err := ParseFont(name, src)
			if err != nil {
				return nil // a font this package cannot use is not an error
			}
			f.Path = p
			out = append(out, f)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cardface: reading fonts under %s: %w", dir, err)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cardface: no usable font under %v (install Debian's font packages, see models/README.md)", dirs)
	}
	slices.SortFunc(out, func(a, b *Font) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ParseFont reads one font from its file's bytes. It fails when the font
// lacks a glyph of rankChars.
func ParseFont(name string, src []byte) (*Font, error) {
	f, err := opentype.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("cardface: font %s: %w", name, err)
	}
	var buf sfnt.Buffer
	sub, _ := f.Name(&buf, sfnt.NameIDSubfamily)
	if lower := strings.ToLower(name + " " + sub); strings.Contains(lower, "italic") || strings.Contains(lower, "oblique") ||
		strings.Contains(lower, "thin") || strings.Contains(lower, "hairline") || strings.Contains(lower, "light") {
		return nil, fmt.Errorf("cardface: font %s is %s", name, sub)
	}
	for _, c := range rankChars {
		if i, err := f.GlyphIndex(&buf, c); err != nil || i == 0 {
			return nil, fmt.Errorf("cardface: font %s has no glyph for %q", name, c)
		}
	}
	out := &Font{Name: name, f: f, Suits: true, masks: map[maskKey]*image.Alpha{}}
	var glyphs [4]*image.Alpha
	for k, c := range suitRunes {
		if i, err := f.GlyphIndex(&buf, c); err != nil || i == 0 {
			out.Suits = false
			break
		}
		if glyphs[k], err = out.mask(string(c), 0); err != nil {
			out.Suits = false
			break
		}
	}
	out.Suits = out.Suits && suitsLookRight(glyphs)
	// A font whose digits are drawn but empty (some symbol fonts map
	// every code point to a blank glyph) prints nothing.
	m, err := out.mask("8", 0)
	if err != nil || m.Bounds().Dx() < glyphEm/10 || m.Bounds().Dy() < glyphEm/4 {
		return nil, fmt.Errorf("cardface: font %s draws no visible 8", name)
	}
	out.stroke = strokeWidth(m)
	return out, nil
}

// mask returns text drawn in the font, white on transparent, cropped to
// its ink, with its strokes grown by grow pixels (thinned when negative).
// Masks are cached: the caller must not modify one.
func (f *Font) mask(text string, grow int) (*image.Alpha, error) {
	k := maskKey{text, grow}
	f.mu.Lock()
	defer f.mu.Unlock()
	if m, ok := f.masks[k]; ok {
		return m, nil
	}
	face, err := opentype.NewFace(f.f, &opentype.FaceOptions{Size: glyphEm, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, err
	}
	defer face.Close()
	// The mask's coordinates keep the pen's origin on the baseline at
	// (0, 0), so that glyphs of one font line up on it.
	b, _ := font.BoundString(face, text)
	pad := 4 + max(grow, 0)
	r := image.Rect(b.Min.X.Floor()-pad, b.Min.Y.Floor()-pad, b.Max.X.Ceil()+pad, b.Max.Y.Ceil()+pad)
	if r.Dx() <= 2*pad || r.Dy() <= 2*pad || r.Dx() > 20*glyphEm || r.Dy() > 4*glyphEm {
		return nil, fmt.Errorf("cardface: font %s draws %q %dx%d px", f.Name, text, r.Dx(), r.Dy())
	}
	dst := image.NewAlpha(r)
	d := font.Drawer{Dst: dst, Src: image.Opaque, Face: face}
	d.DrawString(text)
	m := morph(dst, grow)
	ink, ok := inkBounds(m)
	if !ok {
		return nil, fmt.Errorf("cardface: font %s draws %q with no ink", f.Name, text)
	}
	out := m.SubImage(ink).(*image.Alpha)
	f.masks[k] = out
	return out, nil
}

// strokeWidth estimates the width of the strokes in m as twice its ink's
// area over its outline's length: exact for a long thin bar.
func strokeWidth(m *image.Alpha) float64 {
	b := m.Bounds()
	area, edge := 0, 0
	ink := func(x, y int) bool { return image.Pt(x, y).In(b) && m.AlphaAt(x, y).A >= 128 }
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !ink(x, y) {
				continue
			}
			area++
			for _, d := range [4]image.Point{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				if !ink(x+d.X, y+d.Y) {
					edge++
				}
			}
		}
	}
	if edge == 0 {
		return 0
	}
	// A pixel outline runs along the axes, about 4/π longer than the
	// curve it follows.
	return 2 * float64(area) / (float64(edge) * math.Pi / 4)
}

// inkBounds is the smallest rectangle holding every pixel of m above a
// faint threshold.
func inkBounds(m *image.Alpha) (image.Rectangle, bool) {
	r := image.Rectangle{}
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := m.Pix[(y-b.Min.Y)*m.Stride : (y-b.Min.Y)*m.Stride+b.Dx()]
		for x, v := range row {
			if v > 24 {
				r = r.Union(image.Rect(b.Min.X+x, y, b.Min.X+x+1, y+1))
			}
		}
	}
	return r, !r.Empty()
}

// morph grows (k > 0) or shrinks (k < 0) the ink of m by |k| pixels with a
// separable max or min filter, as a bolder or thinner cut of the type
// would. It returns m itself when k is 0.
func morph(m *image.Alpha, k int) *image.Alpha {
	if k == 0 {
		return m
	}
	pick := func(a, b uint8) uint8 { return max(a, b) }
	if k < 0 {
		pick = func(a, b uint8) uint8 { return min(a, b) }
		k = -k
	}
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	tmp := image.NewAlpha(b)
	out := image.NewAlpha(b)
	for y := range h {
		src := m.Pix[y*m.Stride : y*m.Stride+w]
		dst := tmp.Pix[y*tmp.Stride : y*tmp.Stride+w]
		for x := range w {
			v := src[x]
			for d := max(0, x-k); d <= min(w-1, x+k); d++ {
				v = pick(v, src[d])
			}
			dst[x] = v
		}
	}
	for x := range w {
		for y := range h {
			v := tmp.Pix[y*tmp.Stride+x]
			for d := max(0, y-k); d <= min(h-1, y+k); d++ {
				v = pick(v, tmp.Pix[d*tmp.Stride+x])
			}
			out.Pix[y*out.Stride+x] = v
		}
	}
	return out
}

// suitsLookRight reports whether a font's suit glyphs, in cards.Suits
// order, are the suits they stand for. Some fonts draw one suit at
// another's code point (FreeSerifBold of fonts-freefont-ttf 20120503
// draws a club at U+2660, the spade, and a spade at U+2663): a design
// printing those glyphs would label every club a spade. The suits that
// share a colour are told apart as a pair, spade from club and heart from
// diamond: the glyphs fit the drawn pips better in their own order than
// swapped.
func suitsLookRight(glyphs [4]*image.Alpha) bool {
	const n = 24 // cells a side of the grid the shapes are compared on
	ref := pipSet{heartDip: 0.18, heartTip: 1.02, diamondIn: 0.08, stemWidth: 0.4, stemHeight: 0.24, clubLobe: 0.265}
	var cells, pips [4][]bool
	for s, g := range glyphs {
		var ok bool
		if g == nil {
			return false
		}
		if cells[s], ok = inkGrid(g, n); !ok {
			return false
		}
		pips[s], _ = inkGrid(ref.draw(s, 4*n, 4*n), n)
	}
	for _, pair := range [][2]int{{0, 3}, {1, 2}} { // spade, club; heart, diamond
		a, b := pair[0], pair[1]
		if overlap(cells[a], pips[a])+overlap(cells[b], pips[b]) <= overlap(cells[a], pips[b])+overlap(cells[b], pips[a]) {
			return false
		}
	}
	return true
}

// inkGrid samples m's ink box on an n×n grid: true where the ink is at
// least half opaque. It reports false for a mask with no ink.
func inkGrid(m *image.Alpha, n int) ([]bool, bool) {
	b, ok := inkBounds(m)
	if !ok {
		return nil, false
	}
	out := make([]bool, n*n)
	for y := range n {
		for x := range n {
			sx := b.Min.X + (2*x+1)*b.Dx()/(2*n)
			sy := b.Min.Y + (2*y+1)*b.Dy()/(2*n)
			out[y*n+x] = m.AlphaAt(sx, sy).A >= 128
		}
	}
	return out, true
}

// overlap is the intersection over union of two ink grids.
func overlap(a, b []bool) float64 {
	both, either := 0, 0
	for i := range a {
		if a[i] && b[i] {
			both++
		}
		if a[i] || b[i] {
			either++
		}
	}
	if either == 0 {
		return 0
	}
	return float64(both) / float64(either)
}

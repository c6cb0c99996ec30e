package cardart

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"bjmonitor/cards"

	"gocv.io/x/gocv"
)

// The KDE decks are the acceptance set: card designs that neither the
// recognition model nor any threshold was ever trained or tuned on. They
// are reachable only through NewAcceptance and AcceptanceDecks, which the
// training data generator (models/cardindex/gendata) does not call; an Art
// made by New refuses them, and Decks never lists them. TestTrainingSeesNoAcceptanceDeck
// keeps it so.

// AcceptanceDeckDir is where Debian's kdegames-card-data-kf5 installs its
// decks, one folder per deck (svg-<name>/index.desktop and an SVGZ).
const AcceptanceDeckDir = "/usr/share/carddecks"

// AcceptancePrefix starts the name of every acceptance deck ("kde:oxygen"),
// so that it can never be mistaken for a gnome deck of the same name
// (both packages ship a "dondorf", for one).
const AcceptancePrefix = "kde:"

// acceptanceKept lists the KDE decks, by folder name without "svg-", whose
// corners carry A, K, Q, J, 10–2 and the four French suits in red and
// black, and whose art is not that of a gnome deck.
var acceptanceKept = []string{
	"ancient-egyptians",
	"jolly-royal",
	"nicu-white",
	"penguins",
	"standard",
}

// acceptanceExcluded says why each other KDE deck is left out. README.md
// repeats this list for people.
var acceptanceExcluded = map[string]string{
	"dondorf":                "the same art as gnome's dondorf, a held-out deck of the model that scripts/accuracy measures and tuning looks at: not independent",
	"future":                 "not a French deck: \"memory cards\" with binary numbers and coloured tabs, no rank letters or suit pips",
	"gm-paris":               "the same art as gnome's paris, which the model trains on: not independent",
	"konqi-modern":           "four-colour suits (red spades, green hearts, teal diamonds, blue clubs); Blazing 7's pays by colour",
	"nicu-ornamental":        "the same art as gnome's ornamental, which the model trains on: not independent",
	"oxygen":                 "rank only in the top-right corner and a lone suit pip in the bottom-left, white ink on full-bleed black and red faces: no casino deck is laid out so",
	"oxygen-air":             "rank only in the top-right corner and a lone suit pip in the top-left: no casino deck is laid out so",
	"oxygen-white":           "rank only in the top-right corner and a lone suit pip in the bottom-left: no casino deck is laid out so",
	"tigullio-international": "the same court and pip art as gnome's tigullio, a held-out deck that scripts/accuracy measures: not independent",
	"xskat-french":           "German indices (B, D, K) in all four corners",
	"xskat-german":           "German suits (acorns, leaves, hearts, bells) and German indices",
}

// AcceptanceDecks lists the kept KDE decks installed in dir
// (AcceptanceDeckDir when empty), named with AcceptancePrefix, in a fixed
// order. Path is the deck's SVGZ. None at all is an error.
//
// For acceptance tests only: never train or tune on these decks.
func AcceptanceDecks(dir string) ([]Deck, error) {
	if dir == "" {
		dir = AcceptanceDeckDir
	}
	var out []Deck
	for _, name := range acceptanceKept {
		p, err := kdeSVG(filepath.Join(dir, "svg-"+name))
		if err == nil {
			out = append(out, Deck{Name: AcceptancePrefix + name, Path: p})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cardart: no acceptance deck in %s (install kdegames-card-data-kf5)", dir)
	}
	return out, nil
}

// AcceptanceExcluded returns the KDE decks left out (without the prefix),
// each with the reason. The map is a copy.
func AcceptanceExcluded() map[string]string {
	out := make(map[string]string, len(acceptanceExcluded))
	for k, v := range acceptanceExcluded {
		out[k] = v
	}
	return out
}

// NewAcceptance returns an Art that serves the KDE acceptance decks, and
// only them: Face takes names such as "kde:oxygen" (see AcceptanceDecks).
// Options.DeckDir defaults to AcceptanceDeckDir, and Options.CacheDir to
// os.UserCacheDir()/bjmonitor/cardart-acceptance, with the same layout and
// 300×420 PNG faces as New's cache. Back is the same plain back as New's.
//
// For acceptance tests only: never train or tune on these decks.
func NewAcceptance(opt Options) (*Art, error) {
	if opt.DeckDir == "" {
		opt.DeckDir = AcceptanceDeckDir
	}
	if opt.CacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("cardart: no cache folder (set Options.CacheDir): %w", err)
		}
		opt.CacheDir = filepath.Join(base, "bjmonitor", "cardart-acceptance")
	}
	a, err := New(opt)
	if err != nil {
		return nil, err
	}
	a.acceptance = true
	return a, nil
}

// acceptanceDeck checks the name of an acceptance deck and returns its
// folder name without "svg-".
func acceptanceDeck(name string) (string, error) {
	bare, ok := strings.CutPrefix(name, AcceptancePrefix)
	if !ok {
		return "", fmt.Errorf("cardart: %q is not an acceptance deck (want %s<name>)", name, AcceptancePrefix)
	}
	if why, ok := acceptanceExcluded[bare]; ok {
		return "", fmt.Errorf("cardart: acceptance deck %q is excluded: %s", name, why)
	}
	for _, k := range acceptanceKept {
		if k == bare {
			return bare, nil
		}
	}
	return "", fmt.Errorf("cardart: unknown acceptance deck %q", name)
}

// kdeSVG returns the SVG(Z) named by a KDE deck folder's index.desktop.
func kdeSVG(folder string) (string, error) {
	b, err := os.ReadFile(filepath.Join(folder, "index.desktop"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "SVG="); ok {
			p := filepath.Join(folder, strings.TrimSpace(v))
			if _, err := os.Stat(p); err != nil {
				return "", err
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("%s/index.desktop names no SVG", folder)
}

// ensureAcceptanceRendered is ensureRendered for a KDE deck: the 52 faces
// go to the cache through a temporary folder renamed into place.
func (a *Art) ensureAcceptanceRendered(deck string) (string, error) {
	bare, err := acceptanceDeck(deck)
	if err != nil {
		return "", err
	}
	final := a.cacheDir(bare)
	if complete(final) {
		return final, nil
	}
	svgz, err := kdeSVG(filepath.Join(a.opt.DeckDir, "svg-"+bare))
	if err != nil {
		return "", fmt.Errorf("cardart: deck %q: %w", deck, err)
	}
	return renderInto(final, deck, func(tmp string) error { return a.renderKDEDeck(svgz, tmp) })
}

// kdeID is the element id of card c in a KDE deck: "1_club", "10_heart",
// "king_spade".
func kdeID(c cards.Card) string {
	var r string
	switch c.Rank {
	case cards.Jack:
		r = "jack"
	case cards.Queen:
		r = "queen"
	case cards.King:
		r = "king"
	default:
		r = fmt.Sprint(int(c.Rank))
	}
	s := map[cards.Suit]string{cards.Clubs: "club", cards.Diamonds: "diamond", cards.Hearts: "heart", cards.Spades: "spade"}[c.Suit]
	return r + "_" + s
}

// Each KDE deck is one SVG whose element ids name the cards. Exporting by
// id (rsvg-convert --export-id) is not reliable: its bounding boxes come
// out as whole rows, or slivers, for cards built from <use> elements and
// filters, and as nothing at all for embedded bitmaps. So each card is
// isolated instead: the SVG is rewritten without the elements drawn
// beside it (definitions stay, and elements it refers to move into
// <defs>), the whole page is rendered, and the card is found where the page
// is opaque. A first render at low resolution finds the card; a second
// renders just that region at the face size.
const (
	kdeFindWidth = 1600 // page width of the finding render, px
	kdeMargin    = 0.04 // margin around the found card, share of its width
)

// renderKDEDeck writes the 52 faces of the deck svgz into dir.
func (a *Art) renderKDEDeck(svgz, dir string) error {
	src, err := readSVG(svgz)
	if err != nil {
		return err
	}
	doc, err := parseSVG(src)
	if err != nil {
		return err
	}
	face := gocv.NewMat()
	defer face.Close()
	for _, c := range cards.Deck() {
		id := kdeID(c)
		iso, err := doc.isolate(id)
		if err != nil {
			return fmt.Errorf("card %v: %w", c, err)
		}
		isoPath := filepath.Join(dir, "card.svg")
		if err := os.WriteFile(isoPath, iso, 0o644); err != nil {
			return err
		}
		// Find the card on the page.
		findPNG := filepath.Join(dir, "find.png")
		if err := rsvg("--width", fmt.Sprint(kdeFindWidth), "--output", findPNG, isoPath); err != nil {
			return fmt.Errorf("card %v (#%s): %w", c, id, err)
		}
		box, err := pngInkBounds(findPNG)
		if err != nil {
			return fmt.Errorf("card %v (#%s): %w", c, id, err)
		}
		// Render that region about 15% larger than the face, as the gnome
		// loader does, so that the final resize only shrinks. Some decks
		// (ancient-egyptians) make rsvg-convert fail with NoMemory when the
		// whole page is that large; a smaller render, slightly enlarged
		// afterwards, is then the best there is.
		cropPNG := filepath.Join(dir, "crop.png")
		scale := float64(a.opt.Width*115/100) / float64(box.Dx())
		for try := 0; ; try++ {
			m := kdeMargin * float64(box.Dx())
			x0, y0 := (float64(box.Min.X)-m)*scale, (float64(box.Min.Y)-m)*scale
			w, h := (float64(box.Dx())+2*m)*scale, (float64(box.Dy())+2*m)*scale
			err := rsvg("--width", fmt.Sprint(int(kdeFindWidth*scale+0.5)),
				"--page-width", fmt.Sprintf("%dpx", int(w+0.5)), "--page-height", fmt.Sprintf("%dpx", int(h+0.5)),
				fmt.Sprintf("--left=%dpx", -int(x0+0.5)), fmt.Sprintf("--top=%dpx", -int(y0+0.5)),
				"--output", cropPNG, isoPath)
			if err == nil {
				break
			}
			if try == 3 || scale < 1 {
				return fmt.Errorf("card %v (#%s): %w", c, id, err)
			}
			scale *= 0.75
		}
		crop := gocv.IMRead(cropPNG, gocv.IMReadUnchanged)
		if crop.Empty() || crop.Type() != gocv.MatTypeCV8UC4 {
			crop.Close()
			return fmt.Errorf("card %v (#%s): rsvg-convert wrote no RGBA image", c, id)
		}
		cbox, ok := inkBounds(crop)
		full := image.Rect(0, 0, crop.Cols(), crop.Rows())
		if !ok || cbox.Min.X == 0 || cbox.Min.Y == 0 || cbox.Max.X == full.Max.X || cbox.Max.Y == full.Max.Y {
			crop.Close()
			return fmt.Errorf("card %v (#%s): the card is not inside its crop (%v in %v)", c, id, cbox, full)
		}
		if ar := float64(cbox.Dx()) / float64(cbox.Dy()); ar < 0.55 || ar > 0.85 {
			crop.Close()
			return fmt.Errorf("card %v (#%s): %dx%d px is not card-shaped", c, id, cbox.Dx(), cbox.Dy())
		}
		reg := crop.Region(cbox)
		// Stretched to 63×88 mm as the gnome faces are (see renderDeck).
		gocv.Resize(reg, &face, image.Pt(a.opt.Width, a.opt.Height), 0, 0, gocv.InterpolationArea)
		reg.Close()
		crop.Close()
		if !gocv.IMWrite(filepath.Join(dir, c.String()+".png"), face) {
			return fmt.Errorf("card %v: cannot write PNG in %s", c, dir)
		}
	}
	for _, f := range []string{"card.svg", "find.png", "crop.png"} {
		os.Remove(filepath.Join(dir, f))
	}
	return nil
}

func rsvg(args ...string) error {
	out, err := exec.Command("rsvg-convert", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("rsvg-convert: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// readSVG reads an SVG, gunzipping an SVGZ.
func readSVG(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return io.ReadAll(zr)
	}
	return b, nil
}

// pngInkBounds reads a BGRA PNG and returns the box of its opaque pixels.
func pngInkBounds(p string) (image.Rectangle, error) {
	m := gocv.IMRead(p, gocv.IMReadUnchanged)
	defer m.Close()
	if m.Empty() || m.Type() != gocv.MatTypeCV8UC4 {
		return image.Rectangle{}, fmt.Errorf("rsvg-convert wrote no RGBA image to %s", p)
	}
	box, ok := inkBounds(m)
	if !ok {
		return image.Rectangle{}, errors.New("nothing drawn: the card is empty or hidden")
	}
	return box, nil
}

// inkBounds returns the box of the mostly opaque pixels of a BGRA Mat that
// holds one card: rows and columns with at least a quarter as many opaque
// pixels as the fullest one, which skips anti-aliasing and thin strokes
// drawn outside the card.
func inkBounds(m gocv.Mat) (image.Rectangle, bool) {
	alpha := gocv.NewMat()
	defer alpha.Close()
	gocv.ExtractChannel(m, &alpha, 3)
	b, err := alpha.DataPtrUint8()
	if err != nil {
		return image.Rectangle{}, false
	}
	w, h := alpha.Cols(), alpha.Rows()
	rows, cols := make([]int, h), make([]int, w)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if b[y*w+x] >= 128 {
				rows[y]++
				cols[x]++
			}
		}
	}
	span := func(n []int) (int, int, bool) {
		mx := 0
		for _, v := range n {
			mx = max(mx, v)
		}
		if mx == 0 {
			return 0, 0, false
		}
		lo, hi := 0, len(n)-1
		for n[lo]*4 < mx {
			lo++
		}
		for n[hi]*4 < mx {
			hi--
		}
		return lo, hi + 1, true
	}
	y0, y1, ok1 := span(rows)
	x0, x1, ok2 := span(cols)
	if !ok1 || !ok2 {
		return image.Rectangle{}, false
	}
	return image.Rect(x0, y0, x1, y1), true
}

// svgDoc is an SVG's text with the byte ranges of its elements, enough to
// cut elements out without re-encoding the XML (encoding/xml would mangle
// the namespace prefixes).
type svgDoc struct {
	src   []byte
	nodes []svgNode // in document order; nodes[0] is the root
	byID  map[string]int
}

type svgNode struct {
	local       string // element name without prefix
	start, end  int    // byte range of the whole element
	startTagEnd int    // byte offset just after the start tag
	parent      int    // -1 for the root
	kids        []int
}

func parseSVG(src []byte) (*svgDoc, error) {
	d := xml.NewDecoder(bytes.NewReader(src))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	doc := &svgDoc{src: src, byID: map[string]int{}}
	var stack []int
	for {
		off := int(d.InputOffset())
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("svg: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := svgNode{local: t.Name.Local, start: off, startTagEnd: int(d.InputOffset()), parent: -1}
			i := len(doc.nodes)
			if len(stack) > 0 {
				n.parent = stack[len(stack)-1]
				doc.nodes[n.parent].kids = append(doc.nodes[n.parent].kids, i)
			}
			for _, a := range t.Attr {
				if a.Name.Local == "id" && (a.Name.Space == "" || a.Name.Space == "xml") {
					if _, dup := doc.byID[a.Value]; !dup {
						doc.byID[a.Value] = i
					}
				}
			}
			doc.nodes = append(doc.nodes, n)
			stack = append(stack, i)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, errors.New("svg: unbalanced end tag")
			}
			doc.nodes[stack[len(stack)-1]].end = int(d.InputOffset())
			stack = stack[:len(stack)-1]
		}
	}
	if len(doc.nodes) == 0 || doc.nodes[0].local != "svg" || len(stack) != 0 {
		return nil, errors.New("svg: no complete <svg> root")
	}
	return doc, nil
}

// notDrawn names elements that draw nothing where they stand; they stay
// in an isolated card because the card may refer to them.
var notDrawn = map[string]bool{
	"defs": true, "style": true, "script": true, "metadata": true, "title": true, "desc": true,
	"namedview": true, "clipPath": true, "mask": true, "pattern": true, "linearGradient": true,
	"radialGradient": true, "filter": true, "marker": true, "symbol": true, "font": true, "font-face": true,
}

var refRE = regexp.MustCompile(`(?:href\s*=\s*["']#([^"']+)["']|url\(\s*["']?#([^)"'\s]+))`)

// isolate returns the SVG with only element id drawn, where it stands.
func (doc *svgDoc) isolate(id string) ([]byte, error) {
	t, ok := doc.byID[id]
	if !ok {
		return nil, fmt.Errorf("no element with id %q", id)
	}
	onPath := map[int]bool{}
	for i := t; i >= 0; i = doc.nodes[i].parent {
		onPath[i] = true
	}
	// Drop every drawn sibling of the path from the root to the card.
	dropped := map[int]bool{}
	for i := range onPath {
		if i == t {
			continue
		}
		for _, k := range doc.nodes[i].kids {
			if !onPath[k] && !notDrawn[doc.nodes[k].local] {
				dropped[k] = true
			}
		}
	}
	inDropped := func(i int) (int, bool) {
		for j := i; j >= 0; j = doc.nodes[j].parent {
			if dropped[j] {
				return j, true
			}
		}
		return 0, false
	}
	// Elements the card refers to, directly or not, that were dropped go
	// into <defs>: a <use> needs only the element itself, not where it was.
	var moved []int
	isMoved := map[int]bool{}
	queue := []int{t}
	seen := map[int]bool{t: true}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		n := doc.nodes[i]
		for _, m := range refRE.FindAllSubmatch(doc.src[n.start:n.end], -1) {
			ref := string(m[1]) + string(m[2])
			j, ok := doc.byID[ref]
			if !ok || seen[j] {
				continue
			}
			seen[j] = true
			queue = append(queue, j)
			if _, ok := inDropped(j); ok && !isMoved[j] {
				moved = append(moved, j)
				isMoved[j] = true
			}
		}
		// Ancestors' attributes (a filter or clip on a layer) count too.
		if i == t {
			for p := n.parent; p >= 0; p = doc.nodes[p].parent {
				pn := doc.nodes[p]
				for _, m := range refRE.FindAllSubmatch(doc.src[pn.start:pn.startTagEnd], -1) {
					if j, ok := doc.byID[string(m[1])+string(m[2])]; ok && !seen[j] {
						seen[j] = true
						queue = append(queue, j)
					}
				}
			}
		}
	}
	var out bytes.Buffer
	root := doc.nodes[0]
	out.Write(doc.src[:root.startTagEnd])
	if len(moved) > 0 {
		out.WriteString("<defs>")
		for _, j := range moved {
			// Skip one already inside another moved element.
			inner := false
			for p := doc.nodes[j].parent; p >= 0; p = doc.nodes[p].parent {
				inner = inner || isMoved[p]
			}
			if !inner {
				out.Write(doc.src[doc.nodes[j].start:doc.nodes[j].end])
			}
		}
		out.WriteString("</defs>")
	}
	pos := root.startTagEnd
	for i := 1; i < len(doc.nodes); i++ {
		if !dropped[i] || doc.nodes[i].start < pos {
			continue
		}
		out.Write(doc.src[pos:doc.nodes[i].start])
		pos = doc.nodes[i].end
	}
	out.Write(doc.src[pos:])
	return out.Bytes(), nil
}

package cardart

import (
	"fmt"
	"image"
	"path/filepath"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardface"

	"gocv.io/x/gocv"
)

func TestProceduralDeck(t *testing.T) {
	if _, err := heldOutFonts(); err != nil {
		t.Skipf("procedural decks need the fonts of scripts/setup-fonts: %v", err)
	}
	a := newArt(t, 90, 126)
	st, err := ProceduralStyle("proc:3")
	if err != nil {
		t.Fatal(err)
	}
	var font *cardface.Font
	fonts, _ := cardface.LoadFonts(cardface.DefaultFontDirs...)
	for _, f := range fonts {
		if f.Name == st.FontName() {
			font = f
		}
	}
	if font == nil || !cardface.HeldOutFamily(font.Family()) {
		t.Errorf("proc:3 prints in %q, not a font of a family held out of training", st.FontName())
	}

	face := func(deck, card string) gocv.Mat {
		t.Helper()
		m, err := a.Face(deck, cards.MustParse(card))
		if err != nil {
			t.Fatalf("Face(%s, %s): %v", deck, card, err)
		}
		return m
	}
	for _, tt := range []struct {
		card string
		red  bool
	}{{"7H", true}, {"7S", false}} {
		m := face("proc:3", tt.card)
		s := faceStats(m, image.Rect(0, 0, m.Cols(), m.Rows()))
		if s.opaque < 0.9 || s.light < 0.5 || (s.redInk > s.darkInk) != tt.red {
			t.Errorf("proc:3 %s: %+v, want an opaque light card with red ink %v", tt.card, s, tt.red)
		}
	}
	// The faces are cached under the deck's face, not its name alone:
	// faces drawn while other fonts were installed are not proc:3's.
	if dirs, _ := filepath.Glob(filepath.Join(a.opt.CacheDir, "proc-3*")); len(dirs) != 1 || filepath.Base(dirs[0]) != "proc-3-OldStandard-Regular" {
		t.Errorf("proc:3 cached in %q, want one folder proc-3-OldStandard-Regular", dirs)
	}
	if diff := gocv.Norm(face("proc:3", "7S"), gocv.NormL1) - gocv.Norm(face("proc:4", "7S"), gocv.NormL1); diff == 0 {
		t.Error("proc:3 and proc:4 draw the same 7S; want two designs")
	}
	again, err := ProceduralStyle("proc:3")
	if err != nil || again.FontName() != st.FontName() || again.Extent != st.Extent {
		t.Errorf("proc:3 drawn twice differs: %v %v / %v %v (err %v)", st.FontName(), st.Extent, again.FontName(), again.Extent, err)
	}
	// proc:3u is proc:3 with its second index upright: the same top
	// half, another bottom corner.
	up, err := ProceduralStyle("proc:3" + UprightSuffix)
	if err != nil || !up.UprightSecond || st.UprightSecond || up.FontName() != st.FontName() {
		t.Errorf("proc:3u: upright %v (proc:3 %v), font %q (proc:3 %q), err %v; want proc:3 upright", up.UprightSecond, st.UprightSecond, up.FontName(), st.FontName(), err)
	}
	plain, upright := face("proc:3", "7S"), face("proc:3u", "7S")
	half := func(m gocv.Mat, top bool) gocv.Mat {
		r := image.Rect(0, m.Rows()/2, m.Cols(), m.Rows())
		if top {
			r = image.Rect(0, 0, m.Cols(), m.Rows()/2)
		}
		return m.Region(r)
	}
	for _, top := range []bool{true, false} {
		a, b := half(plain, top), half(upright, top)
		same := gocv.NormWithMats(a, b, gocv.NormL1) == 0
		a.Close()
		b.Close()
		if same != top {
			t.Errorf("proc:3 and proc:3u 7S: top half %v, the same %v; want the same top half only", top, same)
		}
	}
	// proc:3t is proc:3 with its index tight in the corner: the same
	// font, an index moved, the same body.
	tight, err := ProceduralStyle("proc:3" + TightSuffix)
	if err != nil || tight.FontName() != st.FontName() || tight.Extent == st.Extent || tight.UprightSecond {
		t.Errorf("proc:3t: font %q (proc:3 %q), extent %+v (proc:3 %+v), upright %v, err %v; want proc:3 with its index moved", tight.FontName(), st.FontName(), tight.Extent, st.Extent, tight.UprightSecond, err)
	}
	if both, err := ProceduralStyle("proc:3" + UprightSuffix + TightSuffix); err != nil || !both.UprightSecond || both.Extent != tight.Extent {
		t.Errorf("proc:3ut: upright %v, extent %+v (proc:3t %+v), err %v; want proc:3t upright", both.UprightSecond, both.Extent, tight.Extent, err)
	}
	centre := func(m gocv.Mat) gocv.Mat {
		return m.Region(image.Rect(m.Cols()/3, m.Rows()/3, 2*m.Cols()/3, 2*m.Rows()/3))
	}
	for _, c := range []string{"7S", "KH"} {
		a, b := centre(face("proc:3", c)), centre(face("proc:3t", c))
		if gocv.NormWithMats(a, b, gocv.NormL1) != 0 {
			t.Errorf("proc:3 and proc:3t %s differ in the card's middle; want the same body", c)
		}
		a.Close()
		b.Close()
	}
	// proc:3l is proc:3 with pointed club lobes: its clubs differ, its
	// spades do not.
	for _, tc := range []struct {
		card string
		same bool
	}{{"8C", false}, {"8S", true}} {
		a, b := face("proc:3", tc.card), face("proc:3"+LeafSuffix, tc.card)
		if same := gocv.NormWithMats(a, b, gocv.NormL1) == 0; same != tc.same {
			t.Errorf("proc:3 and proc:3l %s: the same %v, want %v", tc.card, same, tc.same)
		}
	}
	if leaf, err := ProceduralStyle("proc:3" + UprightSuffix + TightSuffix + LeafSuffix); err != nil || !leaf.UprightSecond || leaf.Extent != tight.Extent {
		t.Errorf("proc:3utl: upright %v, extent %+v (proc:3t %+v), err %v; want proc:3ut with pointed clubs", leaf.UprightSecond, leaf.Extent, tight.Extent, err)
	}
	// proc:3f is proc:3 framed: its middle the same, its edge dark.
	for _, c := range []string{"7S", "KH"} {
		plain, framed := face("proc:3", c), face("proc:3"+FrameSuffix, c)
		a, b := centre(plain), centre(framed)
		if gocv.NormWithMats(a, b, gocv.NormL1) != 0 {
			t.Errorf("proc:3 and proc:3f %s differ in the card's middle; want the same body", c)
		}
		a.Close()
		b.Close()
		edge := func(m gocv.Mat) float64 { // the mean of the middle of the left edge, 1 px in
			r := m.Region(image.Rect(1, m.Rows()/3, 2, 2*m.Rows()/3))
			defer r.Close()
			return r.Mean().Val1
		}
		if p, f := edge(plain), edge(framed); f > p/2 {
			t.Errorf("proc:3f %s: its left edge %.0f against proc:3's %.0f; want a dark frame", c, f, p)
		}
	}
	for i := 1; i <= 36; i++ {
		if _, err := ProceduralStyle(fmt.Sprintf("proc:%d%s", i, FrameSuffix)); err != nil {
			t.Errorf("proc:%d framed: %v", i, err)
		}
	}
	for _, bad := range []string{"proc:", "proc:x", "proc:-1", "proc:u", "proc:3uu", "proc:t", "proc:3tu", "proc:3tt", "proc:l", "proc:3lt", "proc:3ll", "proc:f", "proc:3ff", "proc:3fl", "proc:3fu"} {
		if _, err := a.Face(bad, cards.MustParse("AS")); err == nil {
			t.Errorf("Face(%q) = nil error, want an unknown deck", bad)
		}
	}
}

// TestHeldOutFaces: every face a procedural deck may be drawn in is of a
// family held out of training, so no procedural deck prints its index in
// a face the model trained on.
func TestHeldOutFaces(t *testing.T) {
	fonts, err := heldOutFonts()
	if err != nil {
		t.Skipf("procedural decks need the fonts of scripts/setup-fonts: %v", err)
	}
	if len(fonts) != len(heldOutFaces) {
		t.Fatalf("%d faces loaded, want %d", len(fonts), len(heldOutFaces))
	}
	for i, f := range fonts {
		if f.Name != heldOutFaces[i] || !cardface.HeldOutFamily(f.Family()) {
			t.Errorf("face %d: %s (family %q, held out: %v), want %s of a held-out family", i, f.Name, f.Family(), cardface.HeldOutFamily(f.Family()), heldOutFaces[i])
		}
	}
}

// TestTrainingDeck checks that a train:N deck is drawn in a font of a
// family not held out of training, and is not the proc:N deck of the
// same seed.
func TestTrainingDeck(t *testing.T) {
	if _, err := trainingFonts(); err != nil {
		t.Skipf("training decks need the fonts of scripts/setup-fonts: %v", err)
	}
	fonts, err := cardface.LoadFonts(cardface.DefaultFontDirs...)
	if err != nil {
		t.Fatal(err)
	}
	family := map[string]string{}
	for _, f := range fonts {
		family[f.Name] = f.Family()
	}
	for _, deck := range []string{"train:1", "train:2", "train:3", "train:7l"} {
		st, err := ProceduralStyle(deck)
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := family[st.FontName()]; !ok || cardface.HeldOutFamily(f) {
			t.Errorf("%s prints in %q (family %q), want a font of a training family", deck, st.FontName(), f)
		}
	}
	if _, err := heldOutFonts(); err != nil {
		return
	}
	a := newArt(t, 90, 126)
	tr, err := a.Face("train:3", cards.MustParse("7S"))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := a.Face("proc:3", cards.MustParse("7S"))
	if err != nil {
		t.Fatal(err)
	}
	if gocv.NormWithMats(tr, pr, gocv.NormL1) == 0 {
		t.Error("train:3 and proc:3 draw the same 7S; want two designs")
	}
}

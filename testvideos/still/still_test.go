package still

import (
	"os"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/internal/matleak"
	"bjmonitor/testvideos/cardart"
)

func TestMain(m *testing.M) { os.Exit(matleak.Run(m)) }

// TestRenderIsReproducible: a seed renders the same bytes and the same
// truth twice, and the truth puts the face-up cards inside the picture.
func TestRenderIsReproducible(t *testing.T) {
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer art.Close()
	opts := Options{Art: art, Deck: "anglo_poker", Seed: 5}
	a, err := Render(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Image.Close()
	b, err := Render(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Image.Close()
	d := gocv.NewMat()
	defer d.Close()
	gocv.AbsDiff(a.Image, b.Image, &d)
	if s := d.Sum(); s.Val1+s.Val2+s.Val3 != 0 || len(a.Cards) != len(b.Cards) || a.JPEGQuality != b.JPEGQuality {
		t.Errorf("seed 5 rendered twice differs: %d and %d cards, JPEG %d and %d", len(a.Cards), len(b.Cards), a.JPEGQuality, b.JPEGQuality)
	}
	if a.PxPerMM < 1.2 || a.PxPerMM > 2.5 || a.TiltDeg < 0 || a.TiltDeg > 30 || a.JPEGQuality < 60 || a.JPEGQuality > 90 {
		t.Errorf("scale %.2f px/mm, tilt %.0f°, JPEG %d: want 1.2–2.5, 0–30, 60–90", a.PxPerMM, a.TiltDeg, a.JPEGQuality)
	}
	inside := 0
	for _, c := range a.Cards {
		if c.Inside {
			inside++
		}
	}
	if len(a.Cards) < 4 || inside == 0 {
		t.Errorf("%d cards dealt, %d inside the picture", len(a.Cards), inside)
	}
}

func TestRenderRejects(t *testing.T) {
	if _, err := Render(Options{Deck: "anglo_poker"}); err == nil {
		t.Error("no art: no error")
	}
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer art.Close()
	if _, err := Render(Options{Art: art, Deck: "anglo_poker", MaxTiltDeg: 50}); err == nil {
		t.Error("a 50° tilt: no error")
	}
}

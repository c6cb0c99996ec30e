package vision_test

import (
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/testvideos/scene"
	"bjmonitor/vision"
)

// TestClippedCard slides a lone card of seat 1 out past the right edge of
// the 1080p picture (where tigullio seed 2212 round 1023 laid a re-split
// hand): a card seen wholly inside the picture is not clipped, and a card
// seen reaching past the edge is.
func TestClippedCard(t *testing.T) {
	st := loneCardStage(t, "")
	clf := openReader(t)
	card := cards.New(cards.Two, cards.Hearts)
	rot := st.sc.Layout().Seats[0].FirstCard.RotDeg
	size := st.sc.Size()
	clippedSeen, insideSeen := 0, 0
	for _, x := range []float64{505, 555, 575, 595} {
		pc := scene.PlacedCard{Card: card, Pose: scene.Pose{Center: scene.Point{X: x, Y: 223}, RotDeg: rot}}
		reaches := false
		for _, q := range st.sc.ImageQuad(pc) {
			reaches = reaches || q.X < 0 || q.Y < 0 || q.X > float32(size.X-1) || q.Y > float32(size.Y-1)
		}
		got := st.detectAlone(t, clf, vision.DefaultOptions(), pc)
		for _, o := range got.Cards {
			if vision.Dist(o.Center, calibration.Point{X: x, Y: 223}) > 8 {
				continue
			}
			if o.Clipped != reaches {
				t.Errorf("card at x %.0f mm: clipped %v, but it reaches past the picture's edge: %v (image quad %v)", x, o.Clipped, reaches, o.ImageQuad)
			}
			t.Logf("card at x %.0f mm: clipped %v", x, o.Clipped)
			if reaches {
				clippedSeen++
			} else {
				insideSeen++
			}
		}
	}
	t.Logf("seen %d times wholly inside the picture, %d times reaching past its edge", insideSeen, clippedSeen)
	if clippedSeen == 0 || insideSeen == 0 {
		t.Errorf("seen %d times inside, %d times reaching past the edge: want both", insideSeen, clippedSeen)
	}
}

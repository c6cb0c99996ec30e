package clip

import (
	"testing"

	"bjmonitor/testvideos/scene"
)

// TestEveryHandInView: every card of a seat's hands, up to six a hand,
// lies wholly inside the default camera's view, or the truth would ask
// for cards no camera can see: up to four split hands at the inner seats,
// and two at the end seats (the layout is more compact than a real table,
// and a re-split there has no room inside the view; the test says so).
func TestEveryHandInView(t *testing.T) {
	l, err := scene.NewLayout(scene.DefaultLayoutConfig())
	if err != nil {
		t.Fatal(err)
	}
	cc := scene.DefaultCameraConfig()
	cam, err := scene.NewCamera(cc)
	if err != nil {
		t.Fatal(err)
	}
	const margin = 4 // px
	for _, s := range l.Seats {
		hands := 4
		if s.Number == 1 || s.Number == len(l.Seats) {
			hands = 2
		}
		for hand := range hands {
			for i := range 6 {
				pose := scene.Pose{Center: handCard(l, s, hand, i), RotDeg: s.FirstCard.RotDeg + 3}
				for _, p := range pose.Corners() {
					x, y := cam.Project(p)
					if x < margin || y < margin || x > float64(cc.Width-margin) || y > float64(cc.Height-margin) {
						t.Errorf("seat %d hand %d card %d: corner at (%.0f, %.0f) px is out of the %d×%d view", s.Number, hand, i, x, y, cc.Width, cc.Height)
					}
				}
			}
		}
	}
}

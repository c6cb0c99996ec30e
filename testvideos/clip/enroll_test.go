package clip

import (
	"math"
	"math/rand/v2"
	"testing"

	"bjmonitor/testvideos/scene"
)

// The enrolment layout lies wholly in the default camera's picture, and
// no two cards touch however they are shifted and turned.
func TestEnrolmentLayoutFits(t *testing.T) {
	cam, err := scene.NewCamera(scene.DefaultCameraConfig())
	if err != nil {
		t.Fatal(err)
	}
	w, h := float64(cam.Config().Width), float64(cam.Config().Height)
	for seed := range uint64(50) {
		placed := EnrolmentCards("anglo", rand.New(rand.NewPCG(seed, 8)))
		if got, want := len(placed), 52; got != want {
			t.Fatalf("%d cards laid out, want %d", got, want)
		}
		boxes := make([][2]scene.Point, len(placed))
		for i, p := range placed {
			b := [2]scene.Point{{X: math.Inf(1), Y: math.Inf(1)}, {X: math.Inf(-1), Y: math.Inf(-1)}}
			for _, c := range p.Pose.Corners() {
				if x, y := cam.Project(c); x < 0 || y < 0 || x >= w || y >= h {
					t.Errorf("seed %d: %v's corner at (%.0f, %.0f) px is outside the picture", seed, p.Card, x, y)
				}
				b[0] = scene.Point{X: math.Min(b[0].X, c.X), Y: math.Min(b[0].Y, c.Y)}
				b[1] = scene.Point{X: math.Max(b[1].X, c.X), Y: math.Max(b[1].Y, c.Y)}
			}
			boxes[i] = b
		}
		for i := range boxes {
			for j := i + 1; j < len(boxes); j++ {
				a, b := boxes[i], boxes[j]
				if a[0].X < b[1].X+1 && b[0].X < a[1].X+1 && a[0].Y < b[1].Y+1 && b[0].Y < a[1].Y+1 {
					t.Errorf("seed %d: %v and %v lie within 1 mm of each other", seed, placed[i].Card, placed[j].Card)
				}
			}
		}
	}
}

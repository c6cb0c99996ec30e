package vision_test

import (
	"math"
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/testvideos/scene"
	"bjmonitor/vision"
)

// TestReadings checks the corners the detector shows for a lone card:
// read at one of the card's corners, in the zone that holds it, from a
// crop cut where the corner lies in the image; none once the picture
// holds still; and the earlier reading kept when the same picture is read
// again.
func TestReadings(t *testing.T) {
	st := loneCardStage(t, "")
	det, err := vision.NewDetector(st.cal, openReader(t), vision.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer det.Close()
	card := cards.New(cards.Seven, cards.Spades)
	centre, deg := scene.Point{X: 505, Y: 276}, 30.0
	if err := st.sc.SetCards([]scene.PlacedCard{{Card: card, Pose: scene.Pose{Center: centre, RotDeg: deg}}}); err != nil {
		t.Fatal(err)
	}
	st.sc.SetOccluders(nil)
	if err := st.sc.Render(&st.frame, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := det.Detect(st.frame, 0, 0); err != nil {
		t.Fatal(err)
	}
	// The card's corners on the table.
	var quad [4]calibration.Point
	a := deg * math.Pi / 180
	for i, s := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		x, y := s[0]*63/2, s[1]*88/2
		quad[i] = calibration.Point{X: centre.X + x*math.Cos(a) - y*math.Sin(a), Y: centre.Y + x*math.Sin(a) + y*math.Cos(a)}
	}
	reads := det.Readings()
	read := 0
	for _, r := range reads {
		if r.Result.Card != card {
			continue
		}
		read++
		near := math.Inf(1)
		for _, q := range quad {
			near = math.Min(near, vision.Dist(r.Corner, q))
		}
		if near > 3 {
			t.Errorf("%v read at (%.1f, %.1f), %.1f mm from the card's nearest corner", card, r.Corner.X, r.Corner.Y, near)
		}
		if r.Zone != "seat 1" && r.Zone != "seat 2" {
			t.Errorf("%v read by zone %q, want a seat's", card, r.Zone)
		}
		if r.Cached || r.Capped {
			t.Errorf("%v: cached %v, capped %v on a first, uncovered reading", card, r.Cached, r.Capped)
		}
		x, y := st.cal.ToImage(r.Corner)
		if d := math.Hypot(r.Crop.Origin.X+0.5-x, r.Crop.Origin.Y+0.5-y); d > 1 {
			t.Errorf("crop cut %.1f px from the corner's place in the image", d)
		}
	}
	if read == 0 {
		t.Fatalf("%v not among the readings %+v", card, reads)
	}

	// Held still: no zone is read, so nothing is shown.
	for i := 1; i <= 3; i++ {
		if _, err := det.Detect(st.frame, i, 0); err != nil {
			t.Fatal(err)
		}
	}
	if r := det.Readings(); len(r) != 0 {
		t.Errorf("a still picture shows %d readings, want none", len(r))
	}

	// Read afresh, the same crops keep their readings.
	det.Forget()
	if _, err := det.Detect(st.frame, 4, 0); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, r := range det.Readings() {
		if r.Result.Card == card && r.Cached {
			kept++
		}
	}
	if kept != read {
		t.Errorf("read afresh: %d of %d readings of %v kept from the same crops", kept, read, card)
	}
}

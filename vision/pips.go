package vision

import (
	"math"

	"gocv.io/x/gocv"

	"bjmonitor/cards"
	"bjmonitor/vision/pips"
)

// What a card's pips say of its reading (checkPips).
const (
	// pipsPxPerMM is the scale a face is cut at for its pips: about the
	// camera's own (1.2 to 2.5 px/mm, where pips.Read was measured), a
	// quarter of the pixels of a finer cut that counted the same.
	pipsPxPerMM = 2.0
	// pipDoubt is the most confidence a reading keeps once its card's
	// pips have counted another rank: below Confident, so that the
	// card's bets go out for review rather than as a sure mismatch, and
	// above the tracker's CountConfidence, so that the card counts.
	pipDoubt = 0.6
)

// checkPips reads the pips of each face-up card the zone shows whole,
// its two index corners read as one card (a shape of z.shapes), and
// where they count another rank than its index reads, takes their count
// for the rank and lowers the reading's confidence to pipDoubt. The
// count owes nothing to the index's font: a small or unfamiliar index
// misread (a 2 as a 9, a turned 6 as a 9) is put right, for review. A
// face that shows no number card's layout (an ace, a court card, one
// partly covered) says nothing (package pips).
func (d *Detector) checkPips(frame gocv.Mat, z *zone) {
	face := gocv.NewMat()
	defer face.Close()
	for i := range z.obs {
		o := &z.obs[i]
		if o.FaceDown || !o.Card.Valid() || o.Clipped || !shownWhole(*o, z.shapes) {
			continue
		}
		pips.CutFace(frame, o.ImageQuad, pipsPxPerMM, &face)
		f, ok := pips.Read(face, pipsPxPerMM)
		if !ok || f.Pips == int(o.Card.Rank) {
			continue
		}
		o.Card.Rank = cards.Rank(f.Pips)
		o.Confidence = math.Min(o.Confidence, pipDoubt)
	}
}

// shownWhole reports whether o lies where a card shape of shapes does,
// turned the same way: a card whose outline or both index corners show.
func shownWhole(o Observation, shapes []cardShape) bool {
	a := o.Angle * math.Pi / 180
	v := pt(math.Cos(a), math.Sin(a))
	for _, s := range shapes {
		if Dist(s.centre, o.Center) <= cornerNearMM && math.Abs(dot(s.v.Unit(), v)) >= -oppositeCos {
			return true
		}
	}
	return false
}

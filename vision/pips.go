package vision

import (
	"math"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
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

// shapePips is what the pips of a card shape's face say (readShapePips).
type shapePips struct {
	face pips.Face
	ok   bool
}

// readShapePips reads the pips of each card shape of the zone (z.shapes,
// found from the outline and the corners' geometry before the model
// reads), on the zone's worker: the faces are cut and counted while the
// model reads other zones, and checkPips only looks the counts up.
func (d *Detector) readShapePips(frame gocv.Mat, z *zone) {
	z.pips = z.pips[:0]
	face := gocv.NewMat()
	defer face.Close()
	for _, s := range z.shapes {
		var quad [4]calibration.Point
		for i, p := range s.corners() {
			x, y := d.cal.ToImage(p)
			quad[i] = pt(x, y)
		}
		pips.CutFace(frame, quad, pipsPxPerMM, &face)
		f, ok := pips.Read(face, pipsPxPerMM)
		z.pips = append(z.pips, shapePips{face: f, ok: ok})
	}
}

// checkPips takes, for each face-up card the zone shows whole (where a
// shape of z.shapes lies), the count of its pips (readShapePips), and
// where they count another rank than its index reads, takes their count
// for the rank and lowers the reading's confidence to pipDoubt. The
// count owes nothing to the index's font: a small or unfamiliar index
// misread (a 2 as a 9, a turned 6 as a 9) is put right, for review. A
// face that shows no number card's layout (an ace, a court card, one
// partly covered) says nothing (package pips).
func (d *Detector) checkPips(z *zone) {
	for i := range z.obs {
		o := &z.obs[i]
		if o.FaceDown || !o.Card.Valid() || o.Clipped {
			continue
		}
		k := shapeAt(*o, z.shapes)
		if k < 0 || !z.pips[k].ok || z.pips[k].face.Pips == int(o.Card.Rank) {
			continue
		}
		o.Card.Rank = cards.Rank(z.pips[k].face.Pips)
		o.Confidence = math.Min(o.Confidence, pipDoubt)
	}
}

// shapeAt returns the index of the shape of shapes that lies where o
// does, turned the same way (a card whose outline or both index corners
// show), or -1.
func shapeAt(o Observation, shapes []cardShape) int {
	a := o.Angle * math.Pi / 180
	v := pt(math.Cos(a), math.Sin(a))
	for k, s := range shapes {
		if Dist(s.centre, o.Center) <= cornerNearMM && math.Abs(dot(s.v.Unit(), v)) >= -oppositeCos {
			return k
		}
	}
	return -1
}

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
	counted := pipsWitness(z.shapes, z.pips)
	if counted == nil {
		return
	}
	for i := range z.obs {
		o := &z.obs[i]
		if o.FaceDown || !o.Card.Valid() || o.Clipped {
			continue
		}
		a := o.Angle * math.Pi / 180
		n, ok := counted(face{centre: o.Center, v: pt(math.Cos(a), math.Sin(a))})
		if !ok || n == o.Card.Rank {
			continue
		}
		o.Card.Rank = n
		o.Confidence = math.Min(o.Confidence, pipDoubt)
	}
}

// pipsWitness returns what the pips of the card shape at a face say of
// its rank: the count of the shape of shapes that lies there (counted,
// one for each shape, readShapePips), where its pips were counted. It
// returns nil where no pips were counted.
func pipsWitness(shapes []cardShape, counted []shapePips) func(face) (cards.Rank, bool) {
	if len(counted) == 0 || len(counted) != len(shapes) {
		return nil
	}
	return func(f face) (cards.Rank, bool) {
		k := shapeAt(f.centre, f.v, shapes)
		if k < 0 || !counted[k].ok {
			return 0, false
		}
		return cards.Rank(counted[k].face.Pips), true
	}
}

// settleByPips empties each group that lies where a group of another
// rank does, when the pips of the card there count the other group's
// rank: the pips settle which of the two cards lies there, whichever the
// model read surer, and the card they side with stands at its own
// confidence, not in dispute (dropSamePlace). A deck that prints its
// second index upright (not turned half round) shows it upside down on
// a card lying the other way round, and the model reads a turned 6 as
// a 9, or a 7 as a 4, as surely as the other corner right; the pips owe
// nothing to the index. Where both groups are of the rank counted (a
// suit in dispute) or neither is, the pips settle nothing.
func settleByPips(faces []*faceGroup, pips func(face) (cards.Rank, bool)) {
	if pips == nil {
		return
	}
	for _, g := range faces {
		if !g.kept() {
			continue
		}
		if n, ok := pips(g.face); !ok || n != g.card.Rank {
			continue
		}
		for _, h := range faces {
			if h != g && h.kept() && h.card.Rank != g.card.Rank && g.centre.Sub(h.centre).Len() < sameCardMM {
				h.at = nil
			}
		}
	}
}

// shapeAt returns the index of the shape of shapes that lies at centre,
// its long axis along v (a card whose outline or both index corners
// show), or -1.
func shapeAt(centre, v calibration.Point, shapes []cardShape) int {
	v = v.Unit()
	for k, s := range shapes {
		if Dist(s.centre, centre) <= cornerNearMM && math.Abs(dot(s.v.Unit(), v)) >= -oppositeCos {
			return k
		}
	}
	return -1
}

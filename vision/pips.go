package vision

import (
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/pips"
)

// What a card's pips say of its reading (checkPips).
const (
	// pipsPxPerMM is the scale a face is cut at for its pips: finer than
	// the camera sees it, so the cut adds no loss.
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
		cutFace(frame, o.ImageQuad, &face)
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

// cutFace cuts the face whose corners in the picture are quad (as
// Observation.ImageQuad has them) into dst, at pipsPxPerMM.
func cutFace(frame gocv.Mat, quad [4]calibration.Point, dst *gocv.Mat) {
	w, h := cardW*pipsPxPerMM, cardH*pipsPxPerMM
	src := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{
		{X: 0, Y: 0}, {X: float32(w), Y: 0}, {X: float32(w), Y: float32(h)}, {X: 0, Y: float32(h)},
	})
	defer src.Close()
	var q []gocv.Point2f
	for _, p := range quad {
		q = append(q, gocv.Point2f{X: float32(p.X), Y: float32(p.Y)})
	}
	dstPts := gocv.NewPoint2fVectorFromPoints(q)
	defer dstPts.Close()
	m := gocv.GetPerspectiveTransform2f(src, dstPts)
	defer m.Close()
	gocv.WarpPerspectiveWithParams(frame, dst, m, image.Pt(int(math.Round(w)), int(math.Round(h))),
		gocv.InterpolationLinear|gocv.WarpInverseMap, gocv.BorderReplicate, color.RGBA{})
}

package vision

import (
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// Colour bounds (OpenCV HSV: H 0..180). Card paper is bright and nearly
// grey; felt is saturated; skin is orange and moderately saturated.
var (
	paperLo = gocv.NewScalar(0, 0, 120, 0)
	paperHi = gocv.NewScalar(180, 75, 255, 0)
	skinLo  = gocv.NewScalar(2, 45, 80, 0)
	skinHi  = gocv.NewScalar(25, 170, 255, 0)
)

// read is one corner the model recognised.
type read struct {
	res    classify.Result
	at     corner // in table mm
	capped bool   // the dealer's hand was near
}

// detectZone rectifies a zone, finds card corners in it, reads them and
// turns the readings into observations.
func (d *Detector) detectZone(frame gocv.Mat, z *zone) error {
	r := d.opts.PxPerMM
	gocv.Remap(frame, &z.rect, &z.mapX, &z.mapY, gocv.InterpolationLinear, gocv.BorderConstant, black)
	gocv.CvtColor(z.rect, &z.hsv, gocv.ColorBGRToHSV)
	gocv.InRangeWithScalar(z.hsv, paperLo, paperHi, &z.mask)
	gocv.MorphologyEx(z.mask, &z.mask, gocv.MorphOpen, d.kernel)
	gocv.InRangeWithScalar(z.hsv, skinLo, skinHi, &z.skin)
	gocv.MorphologyEx(z.skin, &z.skin, gocv.MorphOpen, d.kernel)

	contours := gocv.FindContours(z.mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer contours.Close()
	cardPx := cardW * cardH * r * r
	var corners []corner
	for i := 0; i < contours.Size(); i++ {
		c := contours.At(i)
		a := gocv.ContourArea(c)
		if a < 0.35*cardPx || a > 20*cardPx {
			continue // a chip, printing, or a sleeve across the felt
		}
		approx := gocv.ApproxPolyDP(c, 0.8*r, true)
		pts := approx.ToPoints()
		approx.Close()
		corners = append(corners, findCorners(pts, 7*r, 7*r, 25)...)
	}
	// The dealer's hand: skin outside the cards.
	skinPx := gocv.CountNonZero(z.skin)
	z.busy = float64(skinPx) > 150*r*r

	// Cut a crop at each corner from the full frame.
	for len(d.crops) < len(corners) {
		d.crops = append(d.crops, gocv.NewMat())
	}
	var reads []read
	var batch []gocv.Mat
	for _, c := range corners {
		tc := corner{
			P: point2{z.x0 + c.P.X/r, z.y0 + c.P.Y/r},
			U: c.U, V: c.V, // rectification only scales: directions hold
		}
		f := d.frameAt(tc)
		if f.Validate() != nil {
			continue
		}
		crop := d.crops[len(batch)]
		if err := d.cropper.Cut(frame, f, &crop); err != nil {
			continue
		}
		d.crops[len(batch)] = crop
		batch = append(batch, crop)
		reads = append(reads, read{at: tc, capped: z.busy && d.skinNear(z, c)})
		if len(batch) == classify.MaxBatch {
			break
		}
	}
	if len(batch) > 0 {
		res, err := d.reader.Classify(batch)
		if err != nil {
			return err
		}
		for i := range res {
			reads[i].res = res[i]
		}
	}
	z.obs = d.observe(reads)
	return nil
}

// skinNear reports whether skin lies within a card's length of a corner in
// the rectified zone.
func (d *Detector) skinNear(z *zone, c corner) bool {
	r := d.opts.PxPerMM
	reach := cardH * r
	box := image.Rect(int(c.P.X-reach), int(c.P.Y-reach), int(c.P.X+reach), int(c.P.Y+reach)).
		Intersect(image.Rect(0, 0, z.skin.Cols(), z.skin.Rows()))
	if box.Empty() {
		return false
	}
	roi := z.skin.Region(box)
	defer roi.Close()
	return gocv.CountNonZero(roi) > int(20*r*r)
}

// frameAt maps a corner on the table to a crop frame in image pixels.
func (d *Detector) frameAt(c corner) classify.Frame {
	const step = 5.0 // mm: a finite difference over the lens's gentle curve
	ox, oy := d.cal.ToImage(calibration.Point{X: c.P.X, Y: c.P.Y})
	ux, uy := d.cal.ToImage(calibration.Point{X: c.P.X + step*c.U.X, Y: c.P.Y + step*c.U.Y})
	vx, vy := d.cal.ToImage(calibration.Point{X: c.P.X + step*c.V.X, Y: c.P.Y + step*c.V.Y})
	// The crop's pixel convention puts pixel centres at integers; the
	// corner is a point between pixels.
	return classify.Frame{
		Origin: classify.Vec{X: ox - 0.5, Y: oy - 0.5},
		U:      classify.Vec{X: (ux - ox) / step, Y: (uy - oy) / step},
		V:      classify.Vec{X: (vx - ox) / step, Y: (vy - oy) / step},
	}
}

// observe turns corner readings into cards: the two index corners of a
// card agree on where its centre is, and so do the corners of a back.
func (d *Detector) observe(reads []read) []Observation {
	var out []Observation
	// Faces: the centre lies 31.5 mm along U and 44 mm along V from an
	// index corner.
	type group struct {
		card   cards.Card
		centre point2
		v      point2
		conf   float64
		n      int
		capped bool
	}
	var faces []*group
	for _, rd := range reads {
		if !rd.res.Card.Valid() {
			continue
		}
		c := rd.at.P.add(rd.at.U.scale(cardW / 2)).add(rd.at.V.scale(cardH / 2))
		var g *group
		for _, f := range faces {
			if f.card == rd.res.Card && f.centre.sub(c).len() < 10 {
				g = f
				break
			}
		}
		if g == nil {
			g = &group{card: rd.res.Card, centre: c, v: rd.at.V}
			faces = append(faces, g)
		} else {
			g.centre = g.centre.scale(float64(g.n)).add(c).scale(1 / float64(g.n+1))
		}
		g.n++
		g.conf = math.Max(g.conf, rd.res.Confidence)
		g.capped = g.capped || rd.capped
	}
	for _, g := range faces {
		conf := g.conf
		if g.capped {
			conf = math.Min(conf, d.opts.CoveredConfidence)
		}
		out = append(out, d.observation(g.card, conf, false, g.centre, g.v))
	}
	// Backs: a corner cannot tell which edge is the short one, so each
	// offers two centres; the corners of one back agree on one of them.
	type hyp struct {
		centre, v point2
		votes     int
		conf      float64
	}
	var hyps []*hyp
	for _, rd := range reads {
		if !rd.res.Back {
			continue
		}
		for _, h := range [2]struct{ c, v point2 }{
			{rd.at.P.add(rd.at.U.scale(cardW / 2)).add(rd.at.V.scale(cardH / 2)), rd.at.V},
			{rd.at.P.add(rd.at.U.scale(cardH / 2)).add(rd.at.V.scale(cardW / 2)), rd.at.U},
		} {
			matched := false
			for _, x := range hyps {
				if x.centre.sub(h.c).len() < 8 {
					x.votes++
					x.conf = math.Max(x.conf, rd.res.Confidence)
					matched = true
				}
			}
			if !matched {
				hyps = append(hyps, &hyp{centre: h.c, v: h.v, votes: 1, conf: rd.res.Confidence})
			}
		}
	}
	sort.SliceStable(hyps, func(i, j int) bool { return hyps[i].votes > hyps[j].votes })
	var backs []*hyp
	for _, h := range hyps {
		if h.votes < 2 {
			break
		}
		clash := false
		for _, b := range backs {
			if b.centre.sub(h.centre).len() < 40 {
				clash = true
			}
		}
		if !clash {
			backs = append(backs, h)
		}
	}
	for _, b := range backs {
		out = append(out, d.observation(cards.Card{}, b.conf, true, b.centre, b.v))
	}
	markSideways(out)
	return out
}

// observation builds a card seen at centre with its long edge along v.
func (d *Detector) observation(c cards.Card, conf float64, down bool, centre, v point2) Observation {
	v = v.unit()
	u := point2{-v.Y, v.X} // along the short edge
	o := Observation{
		Card: c, Confidence: conf, FaceDown: down,
		Center: calibration.Point{X: centre.X, Y: centre.Y},
		Angle:  math.Atan2(v.Y, v.X) * 180 / math.Pi,
	}
	for i, k := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		p := centre.add(u.scale(k[0] * cardW / 2)).add(v.scale(k[1] * cardH / 2))
		o.Quad[i] = calibration.Point{X: p.X, Y: p.Y}
		x, y := d.cal.ToImage(o.Quad[i])
		o.ImageQuad[i] = [2]float64{x, y}
	}
	return o
}

// markSideways flags the cards that lie across the others: a double-down
// card is turned a quarter from the rest of its zone.
func markSideways(obs []Observation) {
	if len(obs) < 2 {
		return
	}
	// The zone's usual direction, modulo half a turn: the median angle.
	angles := make([]float64, len(obs))
	for i, o := range obs {
		angles[i] = math.Mod(o.Angle+360, 180)
	}
	sorted := append([]float64(nil), angles...)
	sort.Float64s(sorted)
	med := sorted[len(sorted)/2]
	for i := range obs {
		diff := math.Abs(angles[i] - med)
		diff = math.Min(diff, 180-diff)
		obs[i].Sideways = diff > 45
	}
}

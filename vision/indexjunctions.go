package vision

import (
	"cmp"
	"image"
	"math"
	"slices"

	"bjmonitor/calibration"
)

// indexJunctions finds the corners hidden along a straight stretch of a
// blob's outline that show by nothing but their index. Where cards of the
// same paper lie in a row with their top edges in line, under light that
// leaves no shadow between them (bright paper clipped to white, or a
// glare band across the row), a card's side edge cannot be seen at all,
// and findJunctions has nothing to follow in from the outline. Its index
// still shows: a cluster of ink a few millimetres in from the outline,
// starting a few millimetres along from the card's corner.
//
// So each cluster of ink in the index band along a stretch that no
// corner found on the outline itself explains as its own index offers a
// corner a set inset before it, in the frame findJunctions gives there:
// within about 2 mm of the card's corner, where the model still reads
// the index. The model reads most of them as none, as it reads a corner
// with no index (a big pip near a card's top edge makes a cluster too);
// corners that read the same card at one place are one card
// (groupIndices).
//
// A junction (findJunctions) explains no ink: the line it follows in
// may be a stroke of the index or a pip's edge rather than a card's
// edge, where a large index and a large pip below it line up (the rank's
// right side 14 mm along from a "10"'s corner, the next card's index
// 13 mm past it). Where the junction is its card's corner, the corner its
// own index offers lies within 3 mm of it and is not offered again.
//
// pic is the rectified zone in grey; poly is the blob's outline; r is
// pixels per mm; known are the corners found so far, those found on the
// outline itself (known[:onOutline]) first, then the junctions.
func indexJunctions(pic greyPicture, poly []image.Point, r float64, known []corner, onOutline int) []corner {
	if len(poly) < 3 {
		return nil
	}
	const perStretch = 8 // clusters a stretch offers corners for, at most: face art is not a row of indices
	orient := orientation(poly)
	var out []corner
	for _, st := range straightStretches(poly, straightMM*r) {
		a := st[0]
		d, in, length := edgeAlong(st, orient)
		if length < rowEdgeMM*r {
			continue
		}
		u := d
		if cross(u, in) < 0 {
			u = u.Scale(-1)
		}
		n := 0
		for _, cl := range inkClusters(pic, a, d, in, length, r) {
			// The end of the cluster where its card's corner lies: its
			// start when the card runs on along d from the corner.
			s := cl[0]
			if dot(u, d) < 0 {
				s = cl[1]
			}
			first := a.Add(d.Scale(s))
			if explained(first, in, known[:onOutline], r) {
				continue
			}
			if n++; n > perStretch {
				break
			}
			p := first.Sub(u.Scale(indexInsetMM * r))
			// A corner found already, or offered by a cluster before,
			// stands for one this close.
			near := func(mm float64) func(corner) bool {
				return func(q corner) bool { return q.P.Sub(p).Len() < mm*r && dot(q.U, u) > 0.9 }
			}
			if hiddenOn(poly, p, u, in, a, d, length, r) && !slices.ContainsFunc(known, near(3)) && !slices.ContainsFunc(out, near(1.5)) {
				out = append(out, corner{P: p, U: u, V: in, Guessed: true})
			}
		}
	}
	return out
}

// hiddenOn reports whether a corner at p in frame (u, in) along the
// stretch from a along d (length pixels) could be hidden there:
//   - it lies on the stretch, or up to 4 mm short of its start: the
//     outline rounds off a step between two cards over about a card's
//     corner radius (2.5 to 4 mm), and an index printed closer to the
//     edge than indexInsetMM puts p before the card's corner;
//   - felt lies just beyond the line at p, as beyond any corner on the
//     blob's edge (short of the stretch, a card that reaches past the
//     line there makes the stretch start at no corner: a T-junction);
//   - another card lies behind it: a little way back along the line and
//     in from it is inside the blob (behind a card's corner on the
//     blob's edge is felt, and the outline shows that corner);
//   - the outline runs on after it, along its own top edge, at least as
//     far as the next card in a row would leave its index showing: on
//     the stretch, or past its end, where the row's next card lies a
//     little higher or lower and a stretch of its own begins (rowRunsOn).
func hiddenOn(poly []image.Point, p, u, in, a, d calibration.Point, length, r float64) bool {
	const shortMM, backMM, inMM, aheadMM, outMM = 4.0, 10.0, 4.0, 12.0, 1.5
	s := dot(p.Sub(a), d)
	behind, ahead := s, length-s
	if dot(u, d) < 0 {
		behind, ahead = ahead, behind
	}
	if ahead < aheadMM*r {
		ahead = rowRunsOn(poly, p, u, r, aheadMM) * r
	}
	return behind >= -shortMM*r && ahead >= aheadMM*r &&
		!insidePoly(poly, p.Sub(in.Scale(outMM*r))) &&
		insidePoly(poly, p.Sub(u.Scale(backMM*r)).Add(in.Scale(inMM*r)))
}

// rowRunsOn is how far, in mm up to most, a row's top edge runs on from p
// along u (a unit vector; r pixels a mm): to the last millimetre along
// that lies beside an edge of the outline poly running along u (within
// 30°), no further than 4.5 mm across (a card lying some 3.5 mm lower than
// the one before it, whose step the outline's polygon smooths into an edge
// slanting on down), with no gap longer than a card's rounded corner
// (4 mm) between: the outline rounds off a step between two cards, and a
// gap that opens short of most and closes within 4 mm is run over too.
// Where the row ends, the outline turns round its last card's corner, and
// no edge runs on beside the line.
func rowRunsOn(poly []image.Point, p, u calibration.Point, r, most float64) float64 {
	const stepMM, gapMM = 4.5, 4.0
	cos30 := math.Cos(math.Pi / 6)
	beside := func(q calibration.Point) bool {
		for i := range poly {
			a, b := fromImage(poly[i]), fromImage(poly[(i+1)%len(poly)])
			e := b.Sub(a)
			l := e.Len()
			if l == 0 || math.Abs(dot(e, u)) < cos30*l {
				continue
			}
			if t := dot(q.Sub(a), e) / l; t >= 0 && t <= l && math.Abs(cross(e, q.Sub(a)))/l <= stepMM*r {
				return true
			}
		}
		return false
	}
	last := 0.0
	for t := 1.0; t <= most+gapMM && t-last <= gapMM; t++ {
		if beside(p.Add(u.Scale(t * r))) {
			last = t
		}
	}
	return min(last, most)
}

// guessedConfidence caps the confidence of a reading at a guessed corner,
// below Confident: where the same card shows a corner its edges place, that
// reading stands; where none does, the card is there, for review, unless
// a second crop confirms the reading (confirmGuessed).
const guessedConfidence = 0.7

// indexInsetMM is how far before its first ink a card's corner is looked
// for, along the top edge: decks print the index some 2 to 6 mm in from
// the side edge, and the model, trained on corners cut up to 1.5 mm off,
// still reads most indices 2 mm off (TestIndexJunctions). A second inset
// would cost a crop more for every cluster.
const indexInsetMM = 4.0

// inkClusters returns the clusters of ink along a stretch of outline from
// a along d (length pixels; in points inward): from and to, in pixels
// along, of each run of positions where the index band, 1.5 to 10 mm in,
// holds ink, runs less than a millimetre apart taken as one, in order
// along. Ink is a pixel darker than the paper, the band's upper quartile,
// by inkDrop grey levels, and not part of a line along the stretch
// (alongLines). A thin figure blurred by the camera is dark only at its
// heart, and measured at inkDrop it is narrower than a speck or not there
// at all; so a run of pixels darker than the paper by faintDrop,
// whose darkest is darker by faintInk but not by inkDrop, is a cluster
// too, from its first to its last pixel half as dark as its darkest. Such
// a run is a speck or not by its length at faintDrop: at half its depth,
// a hairline stroke may be a pixel long.
func inkClusters(pic greyPicture, a, d, in calibration.Point, length, r float64) [][2]float64 {
	const (
		// An index's top: 2 to 6 mm in, and some 3 mm more for a rank in
		// figures shorter than the capitals. Most pips and court frames
		// start deeper.
		fromMM, toMM = 1.5, 10.0
		inkDrop      = 45 // ink under a glare band keeps about this much of its contrast
		faintInk     = 28 // a thin figure's stroke, blurred over pixels wider than itself, keeps some 30 levels
		faintDrop    = 12 // the paper's own noise and grain stay within a few levels
		gapMM        = 1.0
		leastMM      = 0.8 // a speck is no index
	)
	// The band's pixels, position along by row in (255 outside the
	// picture), counted by grey level for its upper quartile.
	positions := int(math.Floor(length)) + 1
	rows := 0 // as many as the loop below takes
	for t := fromMM * r; t <= toMM*r; t++ {
		rows++
	}
	b := indexBand{px: make([]uint8, positions*rows), rows: rows}
	var hist [256]int
	n := 0
	for k := range positions {
		col := b.px[k*rows : (k+1)*rows]
		i := 0
		for t := fromMM * r; t <= toMM*r; t++ {
			q := a.Add(d.Scale(float64(k))).Add(in.Scale(t))
			x, y := int(q.X+0.5), int(q.Y+0.5)
			if x < 0 || y < 0 || x >= pic.cols || y >= pic.rows {
				col[i] = 255
			} else {
				v := pic.px[y*pic.step+x]
				hist[v]++
				n++
				col[i] = v
			}
			i++
		}
	}
	if n == 0 {
		return nil
	}
	paper, seen := 255, 0
	for ; paper > 0 && seen+hist[paper] <= n/4; paper-- {
		seen += hist[paper]
	}
	// The band's darkest pixel at each position along, lines along the
	// stretch left out (alongLines).
	along := alongLines(b, paper-faintDrop, r, gapMM*r)
	darkest := make([]uint8, positions)
	for k := range positions {
		low := uint8(255)
		for i, v := range b.col(k) {
			if !along[k*rows+i] {
				low = min(low, v)
			}
		}
		darkest[k] = low
	}
	short := func(c [2]float64) bool { return c[1]-c[0] < leastMM*r }
	out, _ := inkRuns(darkest, paper-inkDrop, gapMM*r)
	out = slices.DeleteFunc(out, short)
	faint, deepest := inkRuns(darkest, paper-faintDrop, gapMM*r)
	for i, c := range faint {
		if drop := paper - deepest[i]; drop < faintInk || drop >= inkDrop || short(c) {
			continue
		}
		half := paper - (paper-deepest[i])/2
		from, to := int(c[0]), int(c[1])
		for int(darkest[from]) >= half {
			from++
		}
		for int(darkest[to]) >= half {
			to--
		}
		out = append(out, [2]float64{float64(from), float64(to)})
	}
	slices.SortFunc(out, func(p, q [2]float64) int { return cmp.Compare(p[0], q[0]) })
	return out
}

// indexBand is the index band along a stretch of outline: its grey
// pixels, position along by row in from the stretch, one position's rows
// after another.
type indexBand struct {
	px   []uint8
	rows int
}

// col returns the pixels of position k, row by row.
func (b indexBand) col(k int) []uint8 { return b.px[k*b.rows : (k+1)*b.rows] }

// alongLines marks the pixels of band b that are part of a line along the
// stretch rather than ink, in b's order: within a row of a pixel darker
// than level in a run across the band no thicker than lineThickMM (r
// pixels a mm), along a run of such positions lineMM long or more in all.
// The run takes in what else is dark along it (an index the line runs
// through, whose pixels stay ink) and gaps of up to gap pixels. Where the
// outline follows a card lying a millimetre or more higher than the next
// in its row, the next cards' top edges, and their shadows, run through
// the index band, and would join the indices along them into one
// cluster, which offers a corner for the first card only. No index or pip
// is anywhere near lineMM across, and where a whole card's paper lies a
// little darker than the band's (a card in a shadow), no line is thin
// enough.
func alongLines(b indexBand, level int, r, gap float64) []bool {
	rows := b.rows
	out := make([]bool, len(b.px))
	if rows == 0 {
		return out
	}
	positions := len(b.px) / rows
	// Each pixel is marked dark (darker than level) and thin (dark, in a
	// run across the band no thicker than lineThickMM); then, for the
	// row-by-row pass, dark and thin in it or in a row beside it.
	const dark, thin, nearDark, nearThin = 1, 2, 4, 8
	mark := make([]uint8, len(b.px))
	for k := range positions {
		col, m := b.col(k), mark[k*rows:(k+1)*rows]
		for i := 0; i < rows; {
			if int(col[i]) >= level {
				i++
				continue
			}
			j := i
			for j < rows && int(col[j]) < level {
				m[j] = dark
				j++
			}
			if float64(j-i) <= lineThickMM*r {
				for t := i; t < j; t++ {
					m[t] |= thin
				}
			}
			i = j
		}
		for i := range rows {
			var near uint8
			for j := max(0, i-1); j <= min(rows-1, i+1); j++ {
				near |= m[j] & (dark | thin)
			}
			m[i] |= near << 2
		}
	}
	// Row by row, runs of positions dark in it or beside it, an index
	// the line runs through taken in; a line where their thin pixels
	// alone run lineMM.
	for i := range rows {
		from, last, n := -1, -1, 0
		line := func() {
			if from < 0 || float64(n) < lineMM*r {
				return
			}
			for k := from; k <= last; k++ {
				out[k*rows+i] = mark[k*rows+i]&nearThin != 0
			}
		}
		for k := range positions {
			m := mark[k*rows+i]
			if m&nearDark == 0 {
				continue
			}
			if from < 0 || float64(k-last) > gap {
				line()
				from, n = k, 0
			}
			last = k
			if m&nearThin != 0 {
				n++
			}
		}
		line()
	}
	return out
}

const (
	// lineMM is how long a run of dark pixels along the index band must
	// be to be a line along the stretch (alongLines): a jumbo rank with
	// its pip beside it spans some 15 mm, a card's top edge a card's
	// width.
	lineMM = 20.0
	// lineThickMM is the thickest a line along the band is across it: a
	// card's edge and its shadow.
	lineThickMM = 3.0
)

// inkRuns returns the runs of positions whose darkest pixel lies below
// level, runs up to gap apart taken as one, each with its darkest pixel.
func inkRuns(darkest []uint8, level int, gap float64) (runs [][2]float64, deepest []int) {
	last := -1e9
	for k, low := range darkest {
		s := float64(k)
		if int(low) >= level {
			continue
		}
		if len(runs) > 0 && s-last <= gap {
			runs[len(runs)-1][1] = s
			deepest[len(deepest)-1] = min(deepest[len(deepest)-1], int(low))
		} else {
			runs = append(runs, [2]float64{s, s})
			deepest = append(deepest, int(low))
		}
		last = s
	}
	return runs, deepest
}

// explained reports whether ink first met at p, on a stretch of outline
// whose blob lies towards in, is the index of a card whose corner is
// known: p lies in that corner's index area, up to 14 mm along one of its
// edges and 30 mm along the other, the rank and the suit below it. A
// corner is known in two frames where the outline cannot tell its short
// edge from its long one, so the area is taken along either edge: where a
// corner is known in both frames, the next card in the row is found by its
// index only if that lies 30 mm or more along from it, and otherwise by
// its edge alone. A corner known to have no index (NoIndex) explains
// nothing: where a row's top edge steps down from one card to the next,
// the higher card's top right corner, in its frame turned a quarter,
// would take the next card's index for its own. A corner whose card
// would lie out of the blob through the stretch (an axis pointing against
// in) explains nothing there: found on a side edge a little below the
// row's top edge, in a frame turned up through it, it would take the next
// card's index for its own.
func explained(p, in calibration.Point, known []corner, r float64) bool {
	const (
		acrossMM = 14.0
		downMM   = 30.0
		slackMM  = 1.5
	)
	return slices.ContainsFunc(known, func(q corner) bool {
		if q.NoIndex || dot(q.U, in) < -0.5 || dot(q.V, in) < -0.5 {
			return false
		}
		w := p.Sub(q.P)
		u, v := dot(w, q.U), dot(w, q.V)
		return u >= -slackMM*r && u <= acrossMM*r && v >= -slackMM*r && v <= downMM*r
	})
}

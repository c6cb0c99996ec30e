package calibration

import (
	"fmt"
	"math"
)

// MaxPairError is the farthest, in mm, a point pair may lie from where the
// solution puts it. One mis-measured pair pulls the solution towards
// itself and so shows less than its real error; above this it is taken
// for a mistake rather than the unsteadiness of an installer's hand.
const MaxPairError = 2 * MaxRMS

// FromPoints solves the mapping from the table file's point pairs, for a
// felt with no marks. When the pairs disagree, its error names the pair
// that agrees least with the others and by how many mm.
func FromPoints(t *Table) (*Calibration, error) {
	if len(t.Points) < MinPoints {
		return nil, fmt.Errorf("%w: the table file has %d point pairs; need at least %d", ErrCalibration, len(t.Points), MinPoints)
	}
	c, err := FromCorrespondences(t, pairCorrespondences(t.Points, -1))
	if err != nil {
		return nil, err
	}
	fitted := 0.0
	for _, e := range c.PairErrors() {
		fitted = math.Max(fitted, e)
	}
	if c.RMS <= MaxRMS && fitted <= MaxPairError {
		return c, nil
	}
	// The pair the others place farthest from where the file says names
	// a single mis-measured pair better than the fit's own residuals.
	worst, off, ok := leastAgreeing(t)
	if !ok {
		return nil, fmt.Errorf("%w: the point pairs disagree with each other (%.1f mm on average, %.1f mm at worst; at most %.1f and %.1f mm allowed): re-measure them",
			ErrCalibration, c.RMS, fitted, MaxRMS, MaxPairError)
	}
	p := t.Points[worst]
	return nil, fmt.Errorf("%w: the point pairs disagree with each other (%.1f mm on average, %.1f mm at worst; at most %.1f and %.1f mm allowed): pair %s, at %.1f,%.1f px and %.1f,%.1f mm, is %.1f mm from where the other pairs put it: re-measure it, or find it again in the picture",
		ErrCalibration, c.RMS, fitted, MaxRMS, MaxPairError, p.label(worst), p.Picture.X, p.Picture.Y, p.Felt.X, p.Felt.Y, off)
}

// PairErrors returns, for each of the table's point pairs, how far in mm
// the solution puts its picture point from its felt point. It is nil for
// a table calibrated from marks.
func (c *Calibration) PairErrors() []float64 {
	var out []float64
	for _, p := range c.Table.Points {
		q := c.ToTable(p.Picture.X, p.Picture.Y)
		out = append(out, math.Hypot(q.X-p.Felt.X, q.Y-p.Felt.Y))
	}
	return out
}

// leastAgreeing solves again without each pair in turn and returns the
// pair whose felt point lies farthest from where the others map its
// picture point, and that distance. It reports false when no pair can be
// left out (too few pairs, or the rest in a line).
func leastAgreeing(t *Table) (int, float64, bool) {
	worst, off, ok := 0, 0.0, false
	for i, p := range t.Points {
		if len(t.Points)-1 < MinPoints {
			break
		}
		c, err := FromCorrespondences(t, pairCorrespondences(t.Points, i))
		if err != nil {
			continue
		}
		q := c.ToTable(p.Picture.X, p.Picture.Y)
		if d := math.Hypot(q.X-p.Felt.X, q.Y-p.Felt.Y); d > off {
			worst, off, ok = i, d, true
		}
	}
	return worst, off, ok
}

// pairCorrespondences turns point pairs into correspondences, leaving out
// pair skip (none when skip is negative).
func pairCorrespondences(pairs []PointPair, skip int) []Correspondence {
	pts := make([]Correspondence, 0, len(pairs))
	for i, p := range pairs {
		if i != skip {
			pts = append(pts, Correspondence{Table: p.Felt, X: p.Picture.X, Y: p.Picture.Y})
		}
	}
	return pts
}

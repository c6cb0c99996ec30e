package calibration

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Calibration is a solved mapping between the image and the table plane.
// It is immutable and safe for concurrent use.
type Calibration struct {
	Table *Table
	// h maps undistorted image pixels to table mm; hInv the other way.
	h, hInv [3][3]float64
	// The lens: an image point lies at c + (u-c)(1 + k ρ²), where u is
	// where a pinhole camera would put it and ρ is |u-c| over half the
	// image diagonal.
	k      float64
	cx, cy float64
	norm   float64
	// RMS is the mean distance, in mm, between where the marks' corners
	// are on the table and where the solution puts the corners it saw.
	RMS float64
	// Found and Missing list the mark ids seen and not seen.
	Found, Missing []int
}

// Correspondence is one mark corner: where it is on the table, and where
// the camera saw it.
type Correspondence struct {
	Table Point
	X, Y  float64
}

// Limits on a calibration a surveillance room can trust.
const (
	// MinMarks is how many marks must be seen.
	MinMarks = 3
	// MaxRMS is the largest acceptable mean corner error, in mm; a card is
	// 63 mm wide, and zone borders are drawn with a few cm to spare.
	MaxRMS = 3.0
)

// ErrCalibration is wrapped by every error Solve returns.
var ErrCalibration = errors.New("calibration failed")

// FromCorrespondences solves the mapping from image points matched to
// their table positions (mark corners, or an installer's point pairs). It
// fits a homography and one radial distortion term, choosing the term that
// makes the points agree best; with fewer than MinLensPoints points the
// term is left at 0, since a homography alone fits four points exactly.
func FromCorrespondences(t *Table, pts []Correspondence) (*Calibration, error) {
	if len(pts) < MinPoints {
		return nil, fmt.Errorf("%w: %d points seen; need at least %d", ErrCalibration, len(pts), MinPoints)
	}
	c := &Calibration{
		Table: t,
		cx:    float64(t.ImageWidth) / 2, cy: float64(t.ImageHeight) / 2,
		norm: math.Hypot(float64(t.ImageWidth), float64(t.ImageHeight)) / 2,
	}
	k := 0.0
	if len(pts) >= MinLensPoints {
		var ok bool
		if k, ok = bestLens(c, pts); !ok {
			return nil, fmt.Errorf("%w: the points are in a line or on top of each other", ErrCalibration)
		}
	}
	e, h, ok := c.fit(k, pts)
	if !ok {
		return nil, fmt.Errorf("%w: the points are in a line or on top of each other", ErrCalibration)
	}
	c.h, c.RMS = h, e
	inv, ok := invert(h)
	if !ok {
		return nil, fmt.Errorf("%w: the mapping cannot be inverted", ErrCalibration)
	}
	c.hInv = inv
	return c, nil
}

// fit sets the lens term to k and fits the homography to pts; it returns
// the points' RMS error in mm, and false when they fix no homography.
func (c *Calibration) fit(k float64, pts []Correspondence) (float64, [3][3]float64, bool) {
	c.k = k
	src := make([]Point, len(pts))
	dst := make([]Point, len(pts))
	for i, p := range pts {
		x, y := c.undistort(p.X, p.Y)
		src[i], dst[i] = Point{x, y}, p.Table
	}
	h, ok := fitHomography(src, dst)
	if !ok {
		return math.Inf(1), h, false
	}
	return rms(h, src, dst), h, true
}

// bestLens finds the lens term under which pts agree best. The error is
// smooth in k: scan, then narrow by golden section.
func bestLens(c *Calibration, pts []Correspondence) (float64, bool) {
	best, bestK := math.Inf(1), 0.0
	for k := -0.3; k <= 0.3001; k += 0.02 {
		if e, _, ok := c.fit(k, pts); ok && e < best {
			best, bestK = e, k
		}
	}
	if math.IsInf(best, 1) {
		return 0, false
	}
	lo, hi := bestK-0.02, bestK+0.02
	const phi = 0.6180339887498949
	for range 40 {
		a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
		ea, _, _ := c.fit(a, pts)
		eb, _, _ := c.fit(b, pts)
		if ea < eb {
			hi = b
		} else {
			lo = a
		}
	}
	return (lo + hi) / 2, true
}

// check turns a poor solution into an error that says what to fix.
func (c *Calibration) check() error {
	var problems []string
	if len(c.Found) < MinMarks {
		problems = append(problems, fmt.Sprintf("found %d reference marks (ids %v), need at least %d: make sure the camera sees the marks and nothing covers them", len(c.Found), c.Found, MinMarks))
	}
	if c.RMS > MaxRMS {
		problems = append(problems, fmt.Sprintf("the marks seen disagree with the table file by %.1f mm on average (at most %.1f mm allowed): re-measure the marks' positions, or check that the table file is this table's", c.RMS, MaxRMS))
	}
	if len(problems) == 0 {
		return nil
	}
	msg := strings.Join(problems, "; ")
	if len(c.Missing) > 0 {
		msg += fmt.Sprintf(" (not found: mark ids %v)", c.Missing)
	}
	return fmt.Errorf("%w: %s", ErrCalibration, msg)
}

// ToTable maps an image pixel to the table plane.
func (c *Calibration) ToTable(x, y float64) Point {
	ux, uy := c.undistort(x, y)
	return apply(c.h, Point{ux, uy})
}

// ToImage maps a table point to its image pixel.
func (c *Calibration) ToImage(p Point) (x, y float64) {
	u := apply(c.hInv, p)
	return c.distort(u.X, u.Y)
}

// PxPerMM is the image's resolution on the table around p.
func (c *Calibration) PxPerMM(p Point) float64 {
	x0, y0 := c.ToImage(p)
	x1, y1 := c.ToImage(Point{p.X + 1, p.Y})
	x2, y2 := c.ToImage(Point{p.X, p.Y + 1})
	return (math.Hypot(x1-x0, y1-y0) + math.Hypot(x2-x0, y2-y0)) / 2
}

func (c *Calibration) distort(x, y float64) (float64, float64) {
	dx, dy := x-c.cx, y-c.cy
	r2 := (dx*dx + dy*dy) / (c.norm * c.norm)
	s := 1 + c.k*r2
	return c.cx + dx*s, c.cy + dy*s
}

func (c *Calibration) undistort(x, y float64) (float64, float64) {
	dx, dy := x-c.cx, y-c.cy
	ux, uy := dx, dy
	for range 8 { // fixed point: u = d / (1 + k |u|²)
		r2 := (ux*ux + uy*uy) / (c.norm * c.norm)
		s := 1 + c.k*r2
		if s <= 0.1 {
			break
		}
		ux, uy = dx/s, dy/s
	}
	return c.cx + ux, c.cy + uy
}

func apply(h [3][3]float64, p Point) Point {
	w := h[2][0]*p.X + h[2][1]*p.Y + h[2][2]
	return Point{(h[0][0]*p.X + h[0][1]*p.Y + h[0][2]) / w, (h[1][0]*p.X + h[1][1]*p.Y + h[1][2]) / w}
}

func rms(h [3][3]float64, src, dst []Point) float64 {
	s := 0.0
	for i := range src {
		q := apply(h, src[i])
		s += (q.X-dst[i].X)*(q.X-dst[i].X) + (q.Y-dst[i].Y)*(q.Y-dst[i].Y)
	}
	return math.Sqrt(s / float64(len(src)))
}

// fitHomography fits h with dst ≈ h(src) by linear least squares, after
// moving both sets to the origin and unit scale (Hartley), which keeps the
// normal equations well conditioned.
func fitHomography(src, dst []Point) ([3][3]float64, bool) {
	ts, ns := normaliser(src)
	td, nd := normaliser(dst)
	var ata [8][8]float64
	var atb [8]float64
	for i := range src {
		u, v := apply(ts, src[i]), apply(td, dst[i])
		rows := [2][8]float64{
			{u.X, u.Y, 1, 0, 0, 0, -u.X * v.X, -u.Y * v.X},
			{0, 0, 0, u.X, u.Y, 1, -u.X * v.Y, -u.Y * v.Y},
		}
		rhs := [2]float64{v.X, v.Y}
		for r := range rows {
			for a := 0; a < 8; a++ {
				atb[a] += rows[r][a] * rhs[r]
				for b := 0; b < 8; b++ {
					ata[a][b] += rows[r][a] * rows[r][b]
				}
			}
		}
	}
	x, ok := solve8(ata, atb)
	if !ok || !ns || !nd {
		return [3][3]float64{}, false
	}
	hn := [3][3]float64{{x[0], x[1], x[2]}, {x[3], x[4], x[5]}, {x[6], x[7], 1}}
	tdInv, ok := invert(td)
	if !ok {
		return [3][3]float64{}, false
	}
	return mul(tdInv, mul(hn, ts)), true
}

// normaliser returns the similarity that moves pts' centroid to the origin
// and their mean distance from it to √2.
func normaliser(pts []Point) ([3][3]float64, bool) {
	var mx, my float64
	for _, p := range pts {
		mx += p.X
		my += p.Y
	}
	mx /= float64(len(pts))
	my /= float64(len(pts))
	d := 0.0
	for _, p := range pts {
		d += math.Hypot(p.X-mx, p.Y-my)
	}
	d /= float64(len(pts))
	if !(d > 1e-9) {
		return [3][3]float64{}, false
	}
	s := math.Sqrt2 / d
	return [3][3]float64{{s, 0, -s * mx}, {0, s, -s * my}, {0, 0, 1}}, true
}

// solve8 solves a·x = b by Gaussian elimination with partial pivoting.
func solve8(a [8][8]float64, b [8]float64) ([8]float64, bool) {
	const n = 8
	for col := 0; col < n; col++ {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if math.Abs(a[p][col]) < 1e-12 {
			return b, false
		}
		a[col], a[p] = a[p], a[col]
		b[col], b[p] = b[p], b[col]
		for r := col + 1; r < n; r++ {
			f := a[r][col] / a[col][col]
			for k := col; k < n; k++ {
				a[r][k] -= f * a[col][k]
			}
			b[r] -= f * b[col]
		}
	}
	var x [8]float64
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x, true
}

func mul(a, b [3][3]float64) [3][3]float64 {
	var m [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				m[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return m
}

func invert(m [3][3]float64) ([3][3]float64, bool) {
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
		m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
		m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	if math.Abs(det) < 1e-15 || math.IsNaN(det) {
		return [3][3]float64{}, false
	}
	var r [3][3]float64
	r[0][0] = (m[1][1]*m[2][2] - m[1][2]*m[2][1]) / det
	r[0][1] = (m[0][2]*m[2][1] - m[0][1]*m[2][2]) / det
	r[0][2] = (m[0][1]*m[1][2] - m[0][2]*m[1][1]) / det
	r[1][0] = (m[1][2]*m[2][0] - m[1][0]*m[2][2]) / det
	r[1][1] = (m[0][0]*m[2][2] - m[0][2]*m[2][0]) / det
	r[1][2] = (m[0][2]*m[1][0] - m[0][0]*m[1][2]) / det
	r[2][0] = (m[1][0]*m[2][1] - m[1][1]*m[2][0]) / det
	r[2][1] = (m[0][1]*m[2][0] - m[0][0]*m[2][1]) / det
	r[2][2] = (m[0][0]*m[1][1] - m[0][1]*m[1][0]) / det
	return r, true
}

// markIDs returns the table's mark ids in order.
func (t *Table) markIDs() []int {
	ids := make([]int, len(t.Marks))
	for i, m := range t.Marks {
		ids[i] = m.ID
	}
	slices.Sort(ids)
	return ids
}

// ZoneOutside is a zone the camera does not wholly see, and the share of
// its area outside the picture.
type ZoneOutside struct {
	Name  string // "seat N" or "dealer"
	Share float64
}

// ZonesOutsidePicture lists the zones that reach outside the camera's
// picture (OutsidePicture) by 1% of their area or more, seats first.
func (c *Calibration) ZonesOutsidePicture() []ZoneOutside {
	var out []ZoneOutside
	check := func(name string, z Zone) {
		if share := c.OutsidePicture(z); share >= 0.01 {
			out = append(out, ZoneOutside{name, share})
		}
	}
	for _, z := range c.Table.Seats {
		check(fmt.Sprintf("seat %d", z.Seat), z)
	}
	check("dealer", c.Table.Dealer)
	return out
}

// OutsidePicture returns the share, from 0 to 1, of a zone's area on the
// table that the camera does not see: where it maps outside the picture.
// A card lying there cannot be read, so an installer widens or moves the
// camera until each zone's share is 0. The zone is sampled every 5 mm.
func (c *Calibration) OutsidePicture(z Zone) float64 {
	const step = 5.0
	if len(z.Polygon) < 3 {
		return 0
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range z.Polygon {
		minX, minY = math.Min(minX, p.X), math.Min(minY, p.Y)
		maxX, maxY = math.Max(maxX, p.X), math.Max(maxY, p.Y)
	}
	w, h := float64(c.Table.ImageWidth), float64(c.Table.ImageHeight)
	in, out := 0, 0
	for y := minY + step/2; y < maxY; y += step {
		for x := minX + step/2; x < maxX; x += step {
			p := Point{x, y}
			if !z.Contains(p) {
				continue
			}
			ix, iy := c.ToImage(p)
			if ix >= 0 && iy >= 0 && ix < w && iy < h {
				in++
			} else {
				out++
			}
		}
	}
	if in+out == 0 {
		return 0
	}
	return float64(out) / float64(in+out)
}

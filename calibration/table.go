package calibration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
)

// Point is a point, or a vector, on the table plane, in millimetres. It is
// the monitor's one 2-D point: vision also measures its zones' rectified
// pictures with it, in pixels.
type Point struct{ X, Y float64 }

// Add returns p + q.
func (p Point) Add(q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }

// Sub returns p − q.
func (p Point) Sub(q Point) Point { return Point{p.X - q.X, p.Y - q.Y} }

// Scale returns p times k.
func (p Point) Scale(k float64) Point { return Point{p.X * k, p.Y * k} }

// Len is p's length, as a vector.
func (p Point) Len() float64 { return math.Hypot(p.X, p.Y) }

// Unit is p scaled to length 1.
func (p Point) Unit() Point { return p.Scale(1 / p.Len()) }

// MarshalJSON writes the point as [x, y], as the table file has it.
func (p Point) MarshalJSON() ([]byte, error) { return json.Marshal([2]float64{p.X, p.Y}) }

// UnmarshalJSON reads [x, y].
func (p *Point) UnmarshalJSON(b []byte) error {
	var a [2]float64
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	p.X, p.Y = a[0], a[1]
	return nil
}

// Table is an installation's table file: the reference marks, or the point
// pairs, and the zones as measured on the felt. Version 1 of the format.
// It gives either Marks or Points, not both.
type Table struct {
	Version int    `json:"version"`
	Units   string `json:"units"`
	// ImageWidth and ImageHeight are the camera's frame size.
	ImageWidth  int `json:"image_width"`
	ImageHeight int `json:"image_height"`
	// Dictionary names the ArUco dictionary of the marks: "DICT_4X4_50".
	// A table calibrated from points needs none.
	Dictionary string `json:"dictionary,omitempty"`
	Marks      []Mark `json:"marks,omitempty"`
	// Points calibrate a felt with no marks: features printed on it (a
	// betting circle's centre, a box's corner) found in a frame and
	// measured on the felt.
	Points []PointPair `json:"points,omitempty"`
	Seats  []Zone      `json:"seats"`
	Dealer Zone        `json:"dealer"`
	// Truth is the camera a synthetic test clip was rendered with. Real
	// installations have none, and the monitor never reads it.
	Truth json.RawMessage `json:"truth,omitempty"`
}

// Mark is a printed ArUco marker on the felt.
type Mark struct {
	ID     int   `json:"id"`
	Center Point `json:"center"`
	// Size is the side of the black square.
	Size float64 `json:"size"`
	// Corners of the black square in ArUco's order: clockwise from the
	// marker's own top-left.
	Corners [4]Point `json:"corners"`
}

// PointPair is one felt feature as the camera sees it and as measured on
// the felt: {"name": "seat 3 bet circle", "px": [812, 440], "mm": [100, 200]}.
type PointPair struct {
	// Name says which feature it is, for the installer; it may be empty.
	Name string `json:"name,omitempty"`
	// Picture is where the feature lies in the camera's frame, in pixels
	// (x right, y down, from the top-left corner).
	Picture Point `json:"px"`
	// Felt is where it lies on the table plane, in mm.
	Felt Point `json:"mm"`
}

// MinPoints is how many point pairs fix a homography. With fewer than
// MinLensPoints the lens is taken as distortion-free. MaxPoints bounds the
// work of solving: a few dozen pairs spread over the view are plenty.
const (
	MinPoints     = 4
	MinLensPoints = 6
	MaxPoints     = 100
)

// Zone is a seat's or the dealer's area on the felt.
type Zone struct {
	// Seat is the controller's seat number; 0 for the dealer.
	Seat    int     `json:"seat,omitempty"`
	Polygon []Point `json:"polygon"`
}

// ErrTable is wrapped by every error about a table file's contents.
var ErrTable = errors.New("table file")

// Load reads and checks a table file.
func Load(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTable, err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse decodes and checks a table file's contents.
func Parse(data []byte) (*Table, error) {
	var t Table
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%w: not valid JSON for a table: %v", ErrTable, err)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Validate checks everything Solve and the tracker rely on.
func (t *Table) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrTable, fmt.Sprintf(format, a...))
	}
	if t.Version != 1 {
		return bad("version %d: this monitor reads version 1", t.Version)
	}
	if t.Units != "mm" {
		return bad("units %q: want \"mm\"", t.Units)
	}
	if t.ImageWidth < 64 || t.ImageHeight < 64 || t.ImageWidth > 16384 || t.ImageHeight > 16384 {
		return bad("image size %dx%d: want the camera's frame size", t.ImageWidth, t.ImageHeight)
	}
	if err := t.validateReference(); err != nil {
		return err
	}
	seats := map[int]bool{}
	for _, z := range t.Seats {
		if z.Seat < 1 || seats[z.Seat] {
			return bad("seat zone %d: want seat numbers from 1, each once", z.Seat)
		}
		seats[z.Seat] = true
		if err := checkPolygon(z.Polygon); err != nil {
			return bad("seat %d zone: %v", z.Seat, err)
		}
	}
	if len(t.Seats) == 0 {
		return bad("no seat zones")
	}
	if err := checkPolygon(t.Dealer.Polygon); err != nil {
		return bad("dealer zone: %v", err)
	}
	return nil
}

// validateReference checks what the camera is calibrated from: the marks
// or the point pairs.
func (t *Table) validateReference() error {
	switch {
	case len(t.Marks) > 0 && len(t.Points) > 0:
		return fmt.Errorf("%w: both marks and points: give one, marks on a felt that has them, points on one that does not", ErrTable)
	case len(t.Points) > 0:
		return t.validatePoints()
	case len(t.Marks) == 0:
		return fmt.Errorf("%w: no marks and no points: give \"marks\" (the ArUco marks printed on the felt) or \"points\" (at least %d pairs of a picture point and the same felt point)", ErrTable, MinPoints)
	}
	return t.validateMarks()
}

func (t *Table) validateMarks() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrTable, fmt.Sprintf(format, a...))
	}
	if _, ok := dictionaries[t.Dictionary]; !ok {
		return bad("dictionary %q: want one of DICT_4X4_50, DICT_5X5_50, DICT_6X6_50", t.Dictionary)
	}
	if len(t.Marks) < 4 {
		return bad("%d reference marks: want at least 4, spread over the camera's view", len(t.Marks))
	}
	ids := map[int]bool{}
	for _, m := range t.Marks {
		if ids[m.ID] {
			return bad("mark id %d listed twice", m.ID)
		}
		ids[m.ID] = true
		if m.ID < 0 || m.ID >= 50 {
			return bad("mark id %d: the dictionary has ids 0 to 49", m.ID)
		}
		if !finite(m.Center) || !(m.Size > 1 && m.Size < 1000) {
			return bad("mark %d: size %v mm", m.ID, m.Size)
		}
		if a := area(m.Corners[:]); !(math.Abs(a) > 1) {
			return bad("mark %d: its corners enclose no area", m.ID)
		}
		for _, p := range m.Corners {
			if !finite(p) {
				return bad("mark %d: corner %v is not a number", m.ID, p)
			}
		}
	}
	return nil
}

// validatePoints checks the point pairs: enough of them, each a number,
// the picture points in the picture, no feature given twice, and not all
// in a line, where a homography is undetermined.
func (t *Table) validatePoints() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: points: %s", ErrTable, fmt.Sprintf(format, a...))
	}
	if t.Dictionary != "" {
		if _, ok := dictionaries[t.Dictionary]; !ok {
			return fmt.Errorf("%w: dictionary %q: want one of DICT_4X4_50, DICT_5X5_50, DICT_6X6_50, or none with points", ErrTable, t.Dictionary)
		}
	}
	if len(t.Points) < MinPoints {
		return bad("%d pairs: want at least %d (%d or more, out to the picture's edges, also measure the lens)", len(t.Points), MinPoints, MinLensPoints)
	}
	if len(t.Points) > MaxPoints {
		return bad("%d pairs: want at most %d", len(t.Points), MaxPoints)
	}
	w, h := float64(t.ImageWidth), float64(t.ImageHeight)
	for i, p := range t.Points {
		if !finite(p.Picture) || !finite(p.Felt) {
			return bad("pair %s: %v px, %v mm is not a number", p.label(i), p.Picture, p.Felt)
		}
		if p.Picture.X < 0 || p.Picture.Y < 0 || p.Picture.X > w || p.Picture.Y > h {
			return bad("pair %s: picture point %v px lies outside the %dx%d picture", p.label(i), p.Picture, t.ImageWidth, t.ImageHeight)
		}
		for j, q := range t.Points[:i] {
			if math.Hypot(p.Felt.X-q.Felt.X, p.Felt.Y-q.Felt.Y) < 1 || math.Hypot(p.Picture.X-q.Picture.X, p.Picture.Y-q.Picture.Y) < 1 {
				return bad("pairs %s and %s are the same point", q.label(j), p.label(i))
			}
		}
	}
	felt := make([]Point, len(t.Points))
	picture := make([]Point, len(t.Points))
	for i, p := range t.Points {
		felt[i], picture[i] = p.Felt, p.Picture
	}
	if inLine(felt, 5) || inLine(picture, 5) {
		return bad("the %d pairs lie in a line: spread them over the camera's view, some near each corner", len(t.Points))
	}
	if len(t.Points) == MinPoints {
		if three := threeInLine(felt, picture); three != nil {
			return bad("pairs %d, %d and %d lie in a line: four pairs need no three in a line; add pairs or move one", three[0], three[1], three[2])
		}
	}
	return nil
}

// threeInLine returns the numbers, from 1, of three of four pairs whose
// felt or picture points lie in a line, where four pairs fix no
// homography; nil when there are none.
func threeInLine(felt, picture []Point) []int {
	for skip := range felt {
		var idx []int
		var f, p []Point
		for i := range felt {
			if i != skip {
				idx = append(idx, i+1)
				f, p = append(f, felt[i]), append(p, picture[i])
			}
		}
		if inLine(f, 5) || inLine(p, 5) {
			return idx
		}
	}
	return nil
}

// label names a pair in messages: its number in the file, from 1, and its
// name when it has one.
func (p PointPair) label(i int) string {
	if p.Name == "" {
		return fmt.Sprint(i + 1)
	}
	return fmt.Sprintf("%d (%s)", i+1, p.Name)
}

// inLine reports whether pts lie within a strip of width about 2·tol
// (their spread across their main direction is under tol, or under 5% of
// their spread along it).
func inLine(pts []Point, tol float64) bool {
	var mx, my float64
	for _, p := range pts {
		mx += p.X / float64(len(pts))
		my += p.Y / float64(len(pts))
	}
	var sxx, sxy, syy float64
	for _, p := range pts {
		dx, dy := p.X-mx, p.Y-my
		sxx += dx * dx / float64(len(pts))
		sxy += dx * dy / float64(len(pts))
		syy += dy * dy / float64(len(pts))
	}
	// The covariance's eigenvalues: the squared spreads along and across.
	mean, d := (sxx+syy)/2, math.Hypot((sxx-syy)/2, sxy)
	along, across := math.Sqrt(mean+d), math.Sqrt(math.Max(0, mean-d))
	return across < tol || across < 0.05*along
}

func finite(p Point) bool {
	return !math.IsNaN(p.X) && !math.IsNaN(p.Y) && !math.IsInf(p.X, 0) && !math.IsInf(p.Y, 0)
}

func checkPolygon(poly []Point) error {
	if len(poly) < 3 {
		return fmt.Errorf("%d points: want a polygon of at least 3", len(poly))
	}
	for _, p := range poly {
		if !finite(p) {
			return fmt.Errorf("point %v is not a number", p)
		}
	}
	if math.Abs(area(poly)) < 100 {
		return errors.New("it encloses less than 1 cm²")
	}
	return nil
}

// area is the polygon's signed area (shoelace).
func area(poly []Point) float64 {
	a := 0.0
	for i := range poly {
		p, q := poly[i], poly[(i+1)%len(poly)]
		a += p.X*q.Y - q.X*p.Y
	}
	return a / 2
}

// Contains reports whether p lies inside the zone.
func (z Zone) Contains(p Point) bool {
	in := false
	poly := z.Polygon
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

// ZoneAt returns the seat whose zone holds p (0 if none), and whether p is
// in the dealer's zone.
func (t *Table) ZoneAt(p Point) (seat int, dealer bool) {
	if t.Dealer.Contains(p) {
		return 0, true
	}
	for _, z := range t.Seats {
		if z.Contains(p) {
			return z.Seat, false
		}
	}
	return 0, false
}

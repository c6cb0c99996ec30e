package calibration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
)

// Point is a point on the table plane, in millimetres.
type Point struct{ X, Y float64 }

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

// Table is an installation's table file: the reference marks and zones as
// measured on the felt. Version 1 of the format.
type Table struct {
	Version int    `json:"version"`
	Units   string `json:"units"`
	// ImageWidth and ImageHeight are the camera's frame size.
	ImageWidth  int `json:"image_width"`
	ImageHeight int `json:"image_height"`
	// Dictionary names the ArUco dictionary of the marks: "DICT_4X4_50".
	Dictionary string `json:"dictionary"`
	Marks      []Mark `json:"marks"`
	Seats      []Zone `json:"seats"`
	Dealer     Zone   `json:"dealer"`
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

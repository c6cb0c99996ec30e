package calibration

import (
	"fmt"
	"slices"

	"gocv.io/x/gocv"
)

// Detection is a mark found in a frame: its id and the image positions of
// its corners, in ArUco's order.
type Detection struct {
	ID      int
	Corners [4]gocv.Point2f
}

// Detect finds the table's ArUco marks in a frame (BGR or grey). Marks
// whose ids the table does not list are ignored.
func Detect(frame gocv.Mat, t *Table) ([]Detection, error) {
	if err := CheckFrame(frame, t); err != nil {
		return nil, err
	}
	gray := gocv.NewMat()
	defer gray.Close()
	switch frame.Channels() {
	case 1:
		frame.CopyTo(&gray)
	case 3:
		gocv.CvtColor(frame, &gray, gocv.ColorBGRToGray)
	case 4:
		gocv.CvtColor(frame, &gray, gocv.ColorBGRAToGray)
	default:
		return nil, fmt.Errorf("%w: frame has %d channels", ErrCalibration, frame.Channels())
	}
	ids, corners, err := detectMarkers(gray, dictionaries[t.Dictionary])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCalibration, err)
	}
	known := map[int]bool{}
	for _, m := range t.Marks {
		known[m.ID] = true
	}
	var out []Detection
	seen := map[int]bool{}
	for i, id := range ids {
		if !known[id] || seen[id] {
			continue // an id printed twice is ambiguous; keep the first
		}
		seen[id] = true
		out = append(out, Detection{ID: id, Corners: corners[i]})
	}
	slices.SortFunc(out, func(a, b Detection) int { return a.ID - b.ID })
	return out, nil
}

// CheckFrame reports whether a frame is one the table file's camera could
// have taken: not empty, and of the table's image size.
func CheckFrame(frame gocv.Mat, t *Table) error {
	if frame.Empty() || frame.Cols() < 64 || frame.Rows() < 64 {
		return fmt.Errorf("%w: the frame is empty or smaller than 64x64", ErrCalibration)
	}
	if frame.Cols() != t.ImageWidth || frame.Rows() != t.ImageHeight {
		return fmt.Errorf("%w: the frame is %dx%d but the table file is for a %dx%d camera: set image_width and image_height to the camera's resolution",
			ErrCalibration, frame.Cols(), frame.Rows(), t.ImageWidth, t.ImageHeight)
	}
	return nil
}

// Solve solves the mapping for a frame from the camera: from the marks it
// finds in the frame, or, for a table file with point pairs, from those
// (the frame is then only checked for its size). Its error says what to
// fix when too few marks are seen, or the marks or pairs disagree with
// the table file.
func Solve(frame gocv.Mat, t *Table) (*Calibration, error) {
	if len(t.Points) > 0 {
		if err := CheckFrame(frame, t); err != nil {
			return nil, err
		}
		return FromPoints(t)
	}
	dets, err := Detect(frame, t)
	if err != nil {
		return nil, err
	}
	return FromDetections(t, dets)
}

// FromDetections solves the mapping from marks already found.
func FromDetections(t *Table, dets []Detection) (*Calibration, error) {
	byID := map[int]Mark{}
	for _, m := range t.Marks {
		byID[m.ID] = m
	}
	var pts []Correspondence
	var found []int
	for _, d := range dets {
		m, ok := byID[d.ID]
		if !ok {
			continue
		}
		found = append(found, d.ID)
		for i, p := range d.Corners {
			pts = append(pts, Correspondence{Table: m.Corners[i], X: float64(p.X), Y: float64(p.Y)})
		}
	}
	missing := slices.DeleteFunc(t.markIDs(), func(id int) bool { return slices.Contains(found, id) })
	if len(found) < MinMarks {
		c := &Calibration{Found: found, Missing: missing}
		return nil, c.check()
	}
	c, err := FromCorrespondences(t, pts)
	if err != nil {
		return nil, err
	}
	c.Found, c.Missing = found, missing
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

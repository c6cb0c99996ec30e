package scene

import (
	"encoding/json"
	"fmt"
	"os"
)

// Calibration is what the monitor's calibration package reads for a clip:
// where the reference marks are on the table (or, instead, point pairs:
// landmarks in the picture and on the felt), the seat and dealer zones,
// and the image size; plus, for tests only, the true camera (homography
// and distortion), which a real installation never has.
type Calibration struct {
	// Version of this format; 1.
	Version int `json:"version"`
	// Units of every table coordinate: "mm".
	Units       string `json:"units"`
	ImageWidth  int    `json:"image_width"`
	ImageHeight int    `json:"image_height"`
	// Dictionary of the marks' ArUco ids: "DICT_4X4_50".
	Dictionary string      `json:"dictionary,omitempty"`
	Marks      []CalibMark `json:"marks,omitempty"`
	// Points are landmarks as the camera sees them and on the felt.
	Points []CalibPoint `json:"points,omitempty"`
	Seats  []CalibZone  `json:"seats"`
	Dealer CalibZone    `json:"dealer"`
	// Truth is the camera the clip was rendered with.
	Truth CalibTruth `json:"truth"`
}

// CalibMark is one reference mark on the table plane.
type CalibMark struct {
	ID     int        `json:"id"`
	Center [2]float64 `json:"center"`
	// Size is the side of the black square, without its white margin.
	Size float64 `json:"size"`
	// Corners are the black square's corners, clockwise from top-left as
	// the camera sees them (ArUco's corner order).
	Corners [4][2]float64 `json:"corners"`
}

// CalibPoint is a landmark where the camera sees it (px) and on the table
// plane (mm).
type CalibPoint struct {
	Name    string     `json:"name"`
	Picture [2]float64 `json:"px"`
	Table   [2]float64 `json:"mm"`
}

// CalibZone is a seat's or the dealer's area: a polygon in table mm.
type CalibZone struct {
	Seat    int          `json:"seat,omitempty"`
	Polygon [][2]float64 `json:"polygon"`
}

// CalibTruth is the rendering camera.
type CalibTruth struct {
	// Homography maps table mm (x, y, 1) to undistorted image pixels,
	// row-major.
	Homography [3][3]float64 `json:"homography"`
	// Fx, Cx, Cy, K1 and K2 are the pinhole focal length, principal point
	// and radial distortion (OpenCV's model): the image position of a
	// table point is its homography position, normalised with Fx, Cx, Cy,
	// scaled by 1 + K1 r² + K2 r⁴.
	Fx float64 `json:"fx"`
	Cx float64 `json:"cx"`
	Cy float64 `json:"cy"`
	K1 float64 `json:"k1"`
	K2 float64 `json:"k2"`
}

// Calibration returns the scene's calibration record.
func (s *Scene) Calibration() Calibration { return NewCalibration(s.layout, s.cam) }

// NewCalibration returns the calibration record of a layout filmed by a
// camera, with the layout's reference marks.
func NewCalibration(l *Layout, c *Camera) Calibration {
	out := calibrationBase(l, c)
	out.Dictionary = "DICT_4X4_50"
	for _, m := range l.Marks {
		cm := CalibMark{ID: m.ID, Center: [2]float64{m.Center.X, m.Center.Y}, Size: m.Size}
		for i, p := range m.Corners() {
			cm.Corners[i] = [2]float64{p.X, p.Y}
		}
		out.Marks = append(out.Marks, cm)
	}
	return out
}

// NewPointsCalibration returns the calibration record of a layout filmed
// by a camera, with point pairs instead of marks: each landmark the camera
// sees at least margin pixels inside the picture's edges, at the image
// position the camera projects it to, and its table position.
func NewPointsCalibration(l *Layout, c *Camera, margin float64) Calibration {
	out := calibrationBase(l, c)
	w, h := float64(c.cfg.Width), float64(c.cfg.Height)
	for _, lm := range l.Landmarks() {
		x, y := c.Project(lm.At)
		if x < margin || y < margin || x > w-margin || y > h-margin {
			continue
		}
		out.Points = append(out.Points, CalibPoint{Name: lm.Name, Picture: [2]float64{x, y}, Table: [2]float64{lm.At.X, lm.At.Y}})
	}
	return out
}

// calibrationBase is the part of a calibration record every table file
// has: the image size, the zones and the true camera.
func calibrationBase(l *Layout, c *Camera) Calibration {
	out := Calibration{
		Version: 1, Units: "mm",
		ImageWidth: c.cfg.Width, ImageHeight: c.cfg.Height,
		Truth: CalibTruth{Homography: c.Homography(), Fx: c.f, Cx: c.cx, Cy: c.cy, K1: c.cfg.K1, K2: c.cfg.K2},
	}
	poly := func(ps []Point) [][2]float64 {
		var o [][2]float64
		for _, p := range ps {
			o = append(o, [2]float64{p.X, p.Y})
		}
		return o
	}
	for _, st := range l.Seats {
		out.Seats = append(out.Seats, CalibZone{Seat: st.Number, Polygon: poly(st.Zone)})
	}
	out.Dealer = CalibZone{Polygon: poly(l.Dealer.Zone)}
	return out
}

// WriteCalibration writes the calibration record as indented JSON.
func (s *Scene) WriteCalibration(path string) error { return s.Calibration().Write(path) }

// Write writes the calibration record as indented JSON.
func (c Calibration) Write(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("scene: writing calibration: %w", err)
	}
	return nil
}

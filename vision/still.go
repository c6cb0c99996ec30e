package vision

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
)

// Still is what one still picture shows.
type Still struct {
	Cards []Observation
	// Cal maps the picture to the table plane: the table file's, or
	// found from the cards (EstimatePlane), whose millimetres are the
	// picture's own.
	Cal *calibration.Calibration
	// Plane says how the plane was found when no calibration was given.
	Plane PlaneFit
}

// maxStillMM is how far from the picture's centre a still is read, in
// mm: a view nearly along the felt reaches to the horizon.
const maxStillMM = 2000.0

// ReadStill finds and reads the cards of one still picture (8-bit BGR).
// With a calibration (the table file's camera, for pictures the size it
// was calibrated at), the cards are placed on the table in mm; without
// one, the table plane is found from the cards themselves (EstimatePlane,
// pxPerMM the scale at the picture's centre if known, else 0). Either
// way the whole picture is read as one zone, with the detector the
// monitor runs on video, at once (nothing needs to settle in a still).
func ReadStill(img gocv.Mat, cal *calibration.Calibration, reader Reader, pxPerMM float64) (Still, error) {
	if img.Empty() || img.Type() != gocv.MatTypeCV8UC3 {
		return Still{}, errors.New("vision: want an 8-bit BGR picture")
	}
	if reader == nil {
		return Still{}, errors.New("vision: ReadStill needs a reader")
	}
	var out Still
	if cal == nil {
		var err error
		if cal, out.Plane, err = EstimatePlane(img, pxPerMM); err != nil {
			return out, err
		}
	} else if cal.Table.ImageWidth != img.Cols() || cal.Table.ImageHeight != img.Rows() {
		return out, fmt.Errorf("vision: the picture is %dx%d, the calibration's camera %dx%d", img.Cols(), img.Rows(), cal.Table.ImageWidth, cal.Table.ImageHeight)
	}
	out.Cal = cal
	whole, err := wholeView(cal)
	if err != nil {
		return out, err
	}
	opts := DefaultOptions()
	opts.MarginMM, opts.SettleFrames, opts.MaxWaitFrames = 10, 0, 1
	opts.Workers = runtime.GOMAXPROCS(0)
	// The detector's grid holds at most 16M pixels a zone: a wide view
	// is rectified coarser.
	poly := whole.Table.Dealer.Polygon
	minX, minY, maxX, maxY := bounds(poly)
	area := (maxX - minX + 2*opts.MarginMM) * (maxY - minY + 2*opts.MarginMM)
	if a := area * opts.PxPerMM * opts.PxPerMM; a > 15<<20 {
		opts.PxPerMM = math.Sqrt(15 << 20 / area)
	}
	d, err := NewDetector(whole, reader, opts)
	if err != nil {
		return out, err
	}
	defer d.Close()
	f, err := d.Detect(img, 0, 0)
	if err != nil {
		return out, err
	}
	out.Cards = f.Cards
	return out, nil
}

// wholeView returns cal with one zone, the dealer's, covering the whole
// picture (up to maxStillMM from its centre): in a still every card
// counts, wherever it lies.
func wholeView(cal *calibration.Calibration) (*calibration.Calibration, error) {
	t := *cal.Table
	w, h := float64(t.ImageWidth), float64(t.ImageHeight)
	centre := cal.ToTable(w/2, h/2)
	var poly []calibration.Point
	const steps = 8 // along each side: a lens term bends the picture's edges on the felt
	for side := range 4 {
		for i := range steps {
			f := float64(i) / steps
			x, y := [4]float64{f * w, w, (1 - f) * w, 0}[side], [4]float64{0, f * h, h, (1 - f) * h}[side]
			p := cal.ToTable(x, y)
			if d := Dist(p, centre); d > maxStillMM || math.IsNaN(d) {
				k := maxStillMM / d
				if math.IsNaN(d) {
					k = 0
				}
				p = calibration.Point{X: centre.X + (p.X-centre.X)*k, Y: centre.Y + (p.Y-centre.Y)*k}
			}
			poly = append(poly, p)
		}
	}
	t.Seats, t.Dealer = nil, calibration.Zone{Polygon: poly}
	c := *cal
	c.Table = &t
	return &c, nil
}

func bounds(poly []calibration.Point) (minX, minY, maxX, maxY float64) {
	minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range poly {
		minX, minY = math.Min(minX, p.X), math.Min(minY, p.Y)
		maxX, maxY = math.Max(maxX, p.X), math.Max(maxY, p.Y)
	}
	return
}

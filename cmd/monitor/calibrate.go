package main

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"strings"

	"github.com/spf13/pflag"
	"gocv.io/x/gocv"

	"bjmonitor/calibration"
)

// calibrateUsage is the synopsis of monitor calibrate; --help lists the flags under it.
const calibrateUsage = "monitor calibrate --frame IMG [--config FILE] [--table FILE] --out overlay.png"

// runCalibrate solves the calibration on one frame and draws the marks (or
// the point pairs) and zones over it, so an installer can check them by eye.
func (m *Main) runCalibrate(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("calibrate", pflag.ContinueOnError)
	framePath := fs.String("frame", "", "a frame from the camera: an image, or a video whose first frame is used")
	configPath := fs.String("config", "", "configuration file (YAML)")
	fs.String("table", "", "table file (default: table.calibration)")
	out := fs.String("out", "", "where to write the overlay (PNG or JPEG)")
	if err := m.parseFlags(fs, calibrateUsage, args); err != nil {
		return err
	}
	if *framePath == "" || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(m.Stderr, "usage:", calibrateUsage)
		return errUsage
	}
	cfg, err := loadConfig(*configPath, fs, map[string]string{"table.calibration": "table"})
	if err != nil {
		return err
	}
	if cfg.Table.Calibration == "" {
		return &ConfigError{"table.calibration", `""`, "set it to the table file that says where the marks (or point pairs) and zones are"}
	}
	table, err := calibration.Load(cfg.Table.Calibration)
	if err != nil {
		return err
	}
	frame, err := readFrame(*framePath)
	if err != nil {
		return err
	}
	defer frame.Close()

	c, solveErr, err := solveOnFrame(&frame, table)
	if err != nil {
		return err
	}
	if !gocv.IMWrite(*out, frame) {
		return fmt.Errorf("cannot write the overlay to %s: use a .png or .jpg name in a folder that exists", *out)
	}
	if solveErr != nil {
		drawn := "the marks found are"
		if len(table.Points) > 0 {
			drawn = "the point pairs are"
		}
		return fmt.Errorf("%w (%s drawn in %s)", solveErr, drawn, *out)
	}
	if len(table.Points) > 0 {
		worst, off := 0, 0.0
		for i, e := range c.PairErrors() {
			if e > off {
				worst, off = i, e
			}
		}
		fmt.Fprintf(m.Stdout, "calibration: %d point pairs, error %.2f mm, %.2f mm at worst (pair %d); overlay written to %s\n", len(table.Points), c.RMS, off, worst+1, *out)
	} else {
		fmt.Fprintf(m.Stdout, "calibration: %d of %d marks found, error %.2f mm; overlay written to %s\n", len(c.Found), len(table.Marks), c.RMS, *out)
	}
	if len(c.Missing) > 0 {
		fmt.Fprintf(m.Stdout, "marks not found: %v\n", c.Missing)
	}
	for _, z := range c.ZonesOutsidePicture() {
		fmt.Fprintf(m.Stdout, "%s: %.0f%% of its zone lies outside the camera's picture, where cards cannot be read: widen or move the camera\n", z.Name, 100*z.Share)
	}
	return nil
}

// solveOnFrame solves the calibration for a frame, from the marks found in
// it or from the table's point pairs, and draws on the frame the overlay,
// or, when the solution fails (solveErr), what the installer can check:
// the marks found, or where the pairs lie in the picture.
func solveOnFrame(frame *gocv.Mat, table *calibration.Table) (c *calibration.Calibration, solveErr, err error) {
	if len(table.Points) > 0 {
		if err := calibration.CheckFrame(*frame, table); err != nil {
			return nil, nil, err
		}
		if c, solveErr = calibration.FromPoints(table); solveErr != nil {
			calibration.DrawPairs(frame, table)
			return nil, solveErr, nil
		}
	} else {
		dets, err := calibration.Detect(*frame, table)
		if err != nil {
			return nil, nil, err
		}
		if c, solveErr = calibration.FromDetections(table, dets); solveErr != nil {
			drawDetections(frame, dets)
			return nil, solveErr, nil
		}
	}
	c.DrawOverlay(frame)
	return c, nil, nil
}

// readFrame reads an image, or the first frame of a video. The caller
// closes the Mat.
func readFrame(path string) (gocv.Mat, error) {
	lower := strings.ToLower(path)
	for _, ext := range []string{".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff"} {
		if strings.HasSuffix(lower, ext) {
			img := gocv.IMRead(path, gocv.IMReadColor)
			if img.Empty() {
				img.Close()
				return gocv.Mat{}, fmt.Errorf("cannot read the image %s", path)
			}
			return img, nil
		}
	}
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("cannot open %s as an image or a video: %v", path, err)
	}
	defer vc.Close()
	img := gocv.NewMat()
	if !vc.Read(&img) || img.Empty() {
		img.Close()
		return gocv.Mat{}, fmt.Errorf("cannot read a frame from %s", path)
	}
	return img, nil
}

func drawDetections(img *gocv.Mat, dets []calibration.Detection) {
	green := color.RGBA{G: 230, A: 255}
	for _, d := range dets {
		var pts []image.Point
		for _, p := range d.Corners {
			pts = append(pts, image.Pt(int(p.X), int(p.Y)))
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
		gocv.Polylines(img, pv, true, green, 3)
		pv.Close()
		gocv.PutText(img, fmt.Sprintf("mark %d", d.ID), pts[0], gocv.FontHersheySimplex, 1, green, 2)
	}
}

package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/enroll"
	"bjmonitor/pipeline"
	"bjmonitor/vision/classify"
)

// enrollUsage is the synopsis of monitor enroll; --help lists the flags under it.
const enrollUsage = "monitor enroll IMAGE_OR_VIDEO --config FILE --out DECKFILE [--table FILE]"

// runEnroll learns the table's own deck from a picture of it laid out on
// the felt, and writes the deck file that vision.deck names.
func (m *Main) runEnroll(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("enroll", pflag.ContinueOnError)
	configPath := fs.String("config", "", "configuration file (YAML)")
	fs.String("table", "", "table file (default: table.calibration)")
	out := fs.String("out", "", "where to write the deck file (JSON)")
	if err := m.parseFlags(fs, enrollUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *out == "" {
		fmt.Fprintln(m.Stderr, "usage:", enrollUsage)
		return errUsage
	}
	src := fs.Arg(0)
	start := time.Now()
	cfg, err := loadConfig(*configPath, fs, map[string]string{"table.calibration": "table"})
	if err != nil {
		return err
	}
	if cfg.Table.Calibration == "" {
		return &ConfigError{"table.calibration", `""`, "set it to the table file that says where the marks and zones are"}
	}
	if err := cfg.checkModels(); err != nil {
		return err
	}
	table, err := calibration.Load(cfg.Table.Calibration)
	if err != nil {
		return err
	}
	frame, err := settledFrame(src)
	if err != nil {
		return err
	}
	defer frame.Close()
	cal, err := calibration.Solve(frame, table)
	if err != nil {
		return err
	}
	model, err := openModel(cfg.Vision)
	if err != nil {
		return err
	}
	defer model.Close()
	abs, _ := filepath.Abs(src)
	note := func(s string) { fmt.Fprintf(m.Stdout, "note: %s\n", s) }
	deck, err := enroll.Learn(frame, cal, model, enroll.Options{Source: abs, Note: note})
	if err != nil {
		return fmt.Errorf("enroll %s: %w", src, err)
	}
	if err := writeDeck(*out, deck); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "enrolled 52 cards from %s (calibration error %.2f mm, %.2f px/mm at the cards) in %.1f s; deck written to %s: set vision.deck to it\n",
		src, cal.RMS, deck.PxPerMM, time.Since(start).Seconds(), *out)
	return nil
}

// openModel opens the configured card model, or the cascade of the fast
// and the careful one. The caller closes it.
func openModel(v VisionConfig) (classify.Model, error) {
	if v.FastModel != "" {
		return classify.OpenCascade(v.FastModel, v.Model, v.RecheckBelow)
	}
	return classify.Open(v.Model)
}

// writeDeck writes the deck file whole or not at all.
func writeDeck(path string, d *classify.Deck) error {
	b, err := d.Marshal()
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the deck file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing the deck file: %w", err)
	}
	return nil
}

// settledFrame reads the picture to enrol from: an image as it is, or
// the per-pixel median of up to enroll.MaxMedianFrames frames spread over
// a video's first second, which removes the sensor's noise and anything
// that passed. The caller closes it.
func settledFrame(path string) (gocv.Mat, error) {
	lower := strings.ToLower(path)
	for _, ext := range []string{".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff"} {
		if strings.HasSuffix(lower, ext) {
			return readFrame(path)
		}
	}
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("cannot open %s as an image or a video: %w", path, err)
	}
	defer vc.Close()
	fps := vc.Get(gocv.VideoCaptureFPS)
	if !pipeline.ValidFPS(fps) {
		fps = 25
	}
	n := int(math.Round(fps)) // the first second
	step := (n + enroll.MaxMedianFrames - 1) / enroll.MaxMedianFrames
	var frames []gocv.Mat
	defer func() {
		for _, f := range frames {
			f.Close()
		}
	}()
	img := gocv.NewMat()
	defer img.Close()
	for i := 0; i < n && vc.Read(&img) && !img.Empty(); i++ {
		if i%step == 0 && len(frames) < enroll.MaxMedianFrames {
			frames = append(frames, img.Clone())
		}
	}
	if len(frames) == 0 {
		return gocv.Mat{}, fmt.Errorf("cannot read a frame from %s", path)
	}
	return enroll.Median(frames)
}

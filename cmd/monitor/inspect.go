package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/driver"
	"bjmonitor/pipeline"
	"bjmonitor/vision"
)

// inspectUsage is the synopsis of monitor inspect; --help lists the flags under it.
const inspectUsage = "monitor inspect VIDEO --frames FROM:TO [--config FILE] [--events LOG] [--at X,Y] [--radius MM] [--crops DIR] [--every]"

// errInspected ends an inspection's replay once past its last frame.
var errInspected = errors.New("inspected every frame asked for")

func (m *Main) runInspect(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("inspect", pflag.ContinueOnError)
	configPath := fs.String("config", "", "configuration file (YAML)")
	events := fs.String("events", "", "the table controller's log (JSON lines), so that the rounds run as in replay")
	frames := fs.String("frames", "", "the frames to show, FROM:TO (video frame numbers, from 0)")
	at := fs.String("at", "", "show only what lies near this table point, X,Y in mm")
	radius := fs.Float64("radius", 60, "with --at, how near, in mm")
	crops := fs.String("crops", "", "write each corner's crop into this folder as a PNG")
	every := fs.Bool("every", false, "also show the frames where no zone was read: the cards held from before, as the tracker gets them")
	fs.String("table", "", "table file (default: table.calibration)")
	fs.String("model", "", "card index model (default: vision.model)")
	if err := m.parseFlags(fs, inspectUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(m.Stderr, "usage:", inspectUsage)
		return errUsage
	}
	in := &inspector{w: m.Stdout, radius: *radius, crops: *crops, every: *every}
	if _, err := fmt.Sscanf(*frames, "%d:%d", &in.from, &in.to); err != nil || in.from < 0 || in.to < in.from {
		return fmt.Errorf("--frames %q: want FROM:TO, two frame numbers, FROM at most TO", *frames)
	}
	if *at != "" {
		var p calibration.Point
		if _, err := fmt.Sscanf(*at, "%g,%g", &p.X, &p.Y); err != nil {
			return fmt.Errorf("--at %q: want X,Y, a table point in mm", *at)
		}
		in.at = &p
	}
	if !(*radius > 0) {
		return fmt.Errorf("--radius %v: want a distance in mm above 0", *radius)
	}
	if in.crops != "" {
		if err := os.MkdirAll(in.crops, 0o755); err != nil {
			return err
		}
	}
	cfg, err := loadVideoConfig(*configPath, fs, map[string]string{"table.calibration": "table", "vision.model": "model"})
	if err != nil {
		return err
	}
	r := &replay{m: m, cfg: cfg, quiet: true, log: cfg.Logger(m.Stderr), inspect: in}
	if *events != "" {
		if err := r.readEvents(*events); err != nil {
			return err
		}
	}
	r.out = newResults(cfg.Table.ID, nil, nil, r.log)
	if err := r.run(ctx, fs.Arg(0), ""); err != nil && !errors.Is(err, errInspected) {
		return err
	}
	if in.shown == 0 {
		fmt.Fprintf(m.Stderr, "inspect: nothing to show in frames %d to %d (no zone read there, nothing near the point, or the video is shorter)\n", in.from, in.to)
	}
	return nil
}

// inspector prints what vision read in frames from..to.
type inspector struct {
	w        io.Writer
	from, to int
	at       *calibration.Point // nil: everywhere
	radius   float64
	crops    string // folder for the crops; "" for none
	every    bool   // show frames where no zone was read too
	shown    int    // frames printed
}

func (in *inspector) near(p calibration.Point) bool {
	return in.at == nil || p.Sub(*in.at).Len() <= in.radius
}

// frame prints the readings and cards of one frame the pipeline read,
// and writes the crops.
func (in *inspector) frame(mat gocv.Mat, at driver.At, obs vision.Frame) error {
	index, t := at.Index, at.T
	reads := at.Pipeline.Readings()
	var lines []string
	for _, r := range reads {
		if !in.near(r.Corner) {
			continue
		}
		line := fmt.Sprintf("  %-7s corner (%.1f, %.1f) at %4.0f°: %v", r.Zone, r.Corner.X, r.Corner.Y, r.Angle, r.Result)
		if r.Cached {
			line += ", kept from an earlier frame"
		}
		if r.Capped {
			line += ", under the dealer's hand"
		}
		if r.Guessed {
			line += ", a corner placed from its index alone"
			if r.Confirmed {
				line += ", confirmed by a second crop"
			}
		}
		if in.crops != "" {
			name, err := in.writeCrop(at.Pipeline, mat, index, r)
			if err != nil {
				return err
			}
			line += " → " + name
		}
		lines = append(lines, line)
	}
	for _, o := range obs.Cards {
		if !in.near(o.Center) {
			continue
		}
		what := o.Card.String()
		switch {
		case o.FaceDown:
			what = "face down"
		case o.Card == cards.Card{}:
			what = "unread"
		}
		line := fmt.Sprintf("  card %s %.2f at (%.1f, %.1f) %.0f°", what, o.Confidence, o.Center.X, o.Center.Y, o.Angle)
		if o.Sideways {
			line += ", sideways"
		}
		if o.Pips.Rank.Valid() {
			line += ", pips " + o.Pips.String() // "7?": counted, their suit not read surely
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 || len(reads) == 0 && !in.every {
		return nil // nothing near the point, or no zone read this frame
	}
	in.shown++
	busy := ""
	if obs.Busy {
		busy = ", something moving on the felt"
	}
	_, err := fmt.Fprintf(in.w, "frame %d (%s)%s\n%s\n", index, clock(t), busy, strings.Join(lines, "\n"))
	return err
}

// writeCrop cuts a reading's crop from the frame, as the detector did,
// and writes it as a PNG; it returns the file's name.
func (in *inspector) writeCrop(pl *pipeline.Pipeline, mat gocv.Mat, index int, r vision.Reading) (string, error) {
	crop := gocv.NewMat()
	defer crop.Close()
	if err := pl.CutCrop(mat, r, &crop); err != nil {
		return "", err
	}
	name := fmt.Sprintf("f%d_%s_%.0f_%.0f.png", index, strings.ReplaceAll(r.Zone, " ", ""), math.Round(r.Corner.X), math.Round(r.Corner.Y))
	if !gocv.IMWrite(filepath.Join(in.crops, name), crop) {
		return "", fmt.Errorf("cannot write the crop %s", filepath.Join(in.crops, name))
	}
	return name, nil
}

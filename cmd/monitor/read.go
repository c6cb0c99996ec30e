package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// readUsage is the synopsis of monitor read; --help lists the flags under it.
const readUsage = "monitor read IMAGE... [--config FILE] [--table FILE] [--px-per-mm N] [--json] [--annotate DIR]"

// readCard is one card of a still as monitor read reports it.
type readCard struct {
	Card       string        `json:"card"` // "7S", "8?" known by its rank alone, "??" unread, "back" face down
	Confidence float64       `json:"confidence"`
	FaceDown   bool          `json:"face_down"`
	Sideways   bool          `json:"sideways"`
	QuadPx     [4][2]float64 `json:"quad_px"`
	QuadMM     [][2]float64  `json:"quad_mm,omitempty"` // with a table file only
	// Rivals are the other cards the card may be, where its reading is
	// in doubt (its corners, or its pips, were read as them too).
	Rivals []string `json:"rivals,omitempty"`
}

// readResult is one picture's line of monitor read --json.
type readResult struct {
	Image string `json:"image"`
	Error string `json:"error,omitempty"`
	// Plane: "table file", "perspective" (rectified from card corners)
	// or "flat" (the picture taken as the table plane).
	Plane   string     `json:"plane,omitempty"`
	PxPerMM float64    `json:"px_per_mm,omitempty"`
	Cards   []readCard `json:"cards"`
}

// errSomeUnread is returned when a picture could not be read; the others
// were.
var errSomeUnread = errors.New("some pictures could not be read")

// runRead reads the cards in still pictures.
func (m *Main) runRead(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("read", pflag.ContinueOnError)
	configPath := fs.String("config", "", "configuration file (YAML); with table.calibration, cards are placed on the table in mm; with vision.deck, the table's enrolled deck reads with the model")
	fs.String("table", "", "table file (default: table.calibration)")
	px := fs.Float64("px-per-mm", 0, "without a table file: the picture's scale at its centre (default: estimated from the cards, 63×88 mm)")
	asJSON := fs.Bool("json", false, "one JSON object per picture")
	annotate := fs.String("annotate", "", "folder to write each picture into with what was read drawn over it")
	if err := m.parseFlags(fs, readUsage, args); err != nil {
		return err
	}
	if fs.NArg() == 0 || *px < 0 {
		fmt.Fprintln(m.Stderr, "usage:", readUsage)
		return errUsage
	}
	cfg, err := loadConfig(*configPath, fs, map[string]string{"table.calibration": "table"})
	if err != nil {
		return err
	}
	if err := cfg.checkFiles(); err != nil {
		return err
	}
	var table *calibration.Table
	if cfg.Table.Calibration != "" {
		if table, err = calibration.Load(cfg.Table.Calibration); err != nil {
			return err
		}
	}
	v := cfg.Vision
	v.RecheckBelow = vision.StillRecheckBelow
	model, err := openModel(v)
	if err == nil && cfg.Vision.Deck != "" {
		model, err = classify.OpenEnrolled(model, cfg.Vision.Deck, cfg.Vision.FeaturesModel)
	}
	if err != nil {
		return err
	}
	defer model.Close()
	var suits vision.SuitReader
	if cfg.Vision.CountPips && cfg.Vision.SuitsModel != "" {
		ps, err := classify.OpenPipSuits(cfg.Vision.SuitsModel)
		if err != nil {
			return err
		}
		defer ps.Close()
		suits = ps
	}
	if *annotate != "" {
		if err := os.MkdirAll(*annotate, 0o755); err != nil {
			return err
		}
	}
	failed := 0
	for _, path := range fs.Args() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r := readOne(path, table, model, suits, *px, *annotate)
		if r.Error != "" {
			failed++
			fmt.Fprintf(m.Stderr, "monitor read: %s: %s\n", path, r.Error)
		}
		if *asJSON {
			b, _ := json.Marshal(r)
			fmt.Fprintln(m.Stdout, string(b))
		} else if r.Error == "" {
			printRead(m.Stdout, r)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%w: %d of %d", errSomeUnread, failed, fs.NArg())
	}
	return nil
}

// readOne reads one picture; what went wrong is in the result's Error.
func readOne(path string, table *calibration.Table, model vision.Reader, suits vision.SuitReader, px float64, annotate string) readResult {
	r := readResult{Image: path, Cards: []readCard{}}
	if _, err := os.Stat(path); err != nil {
		r.Error = err.Error()
		return r
	}
	img := gocv.IMRead(path, gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		r.Error = "cannot read it as a JPEG or PNG picture"
		return r
	}
	var cal *calibration.Calibration
	if table != nil {
		var err error
		if cal, err = calibration.Solve(img, table); err != nil {
			r.Error = err.Error()
			return r
		}
		r.Plane = "table file"
	}
	st, err := vision.ReadStill(img, cal, model, suits, px)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if cal == nil {
		r.Plane, r.PxPerMM = "flat", round(st.Plane.PxPerMM, 1000)
		if st.Plane.Perspective {
			r.Plane = "perspective"
		}
	} else {
		w, h := float64(img.Cols()), float64(img.Rows())
		r.PxPerMM = round(cal.PxPerMM(cal.ToTable(w/2, h/2)), 1000)
	}
	for _, o := range st.Cards {
		c := readCard{Card: cardName(o), Confidence: round(o.Confidence, 1000), FaceDown: o.FaceDown, Sideways: o.Sideways}
		for _, r := range o.Rivals {
			c.Rivals = append(c.Rivals, r.String())
		}
		for i, q := range o.ImageQuad {
			c.QuadPx[i] = [2]float64{round(q.X, 10), round(q.Y, 10)}
		}
		if cal != nil {
			for _, q := range o.Quad {
				c.QuadMM = append(c.QuadMM, [2]float64{round(q.X, 10), round(q.Y, 10)})
			}
		}
		r.Cards = append(r.Cards, c)
	}
	if annotate != "" {
		out := filepath.Join(annotate, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".read.jpg")
		if err := drawRead(img, r, out); err != nil {
			r.Error = err.Error()
		}
	}
	return r
}

// round rounds x to 1/per.
func round(x, per float64) float64 { return math.Round(x*per) / per }

func cardName(o vision.Observation) string {
	switch {
	case o.FaceDown:
		return "back"
	case o.Card == cards.Card{}:
		return "??"
	}
	return o.Card.String()
}

// printRead writes a picture's cards as a short table.
func printRead(w interface{ Write([]byte) (int, error) }, r readResult) {
	fmt.Fprintf(w, "%s: %d cards (%s, %.2f px/mm at the centre)\n", r.Image, len(r.Cards), r.Plane, r.PxPerMM)
	for _, c := range r.Cards {
		var cx, cy float64
		for _, q := range c.QuadPx {
			cx, cy = cx+q[0]/4, cy+q[1]/4
		}
		side := ""
		if c.Sideways {
			side = "  sideways"
		}
		mm := ""
		if len(c.QuadMM) == 4 {
			var x, y float64
			for _, q := range c.QuadMM {
				x, y = x+q[0]/4, y+q[1]/4
			}
			mm = fmt.Sprintf("  (%.0f, %.0f) mm", x, y)
		}
		or := ""
		if len(c.Rivals) > 0 {
			or = "  or " + strings.Join(c.Rivals, ", ")
		}
		fmt.Fprintf(w, "  %-4s %.2f%s  at (%.0f, %.0f) px%s%s\n", c.Card, c.Confidence, or, cx, cy, mm, side)
	}
}

// readLabel is what drawRead writes by a card: its reading, the rivals
// of one in doubt after it, and the confidence ("2S/2C 0.70").
func readLabel(c readCard) string {
	return fmt.Sprintf("%s %.2f", strings.Join(append([]string{c.Card}, c.Rivals...), "/"), c.Confidence)
}

// drawRead writes img with each card's outline and reading over it.
func drawRead(img gocv.Mat, r readResult, path string) error {
	out := img.Clone()
	defer out.Close()
	for _, c := range r.Cards {
		col := color.RGBA{G: 220, A: 255}
		switch {
		case c.FaceDown:
			col = color.RGBA{B: 255, G: 160, A: 255}
		case c.Card == "??" || c.Confidence < vision.Confident:
			col = color.RGBA{R: 255, G: 140, A: 255}
		}
		pts := make([]image.Point, 4)
		for i, q := range c.QuadPx {
			pts[i] = image.Pt(int(q[0]), int(q[1]))
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
		gocv.Polylines(&out, pv, true, col, 2)
		pv.Close()
		label := readLabel(c)
		gocv.PutText(&out, label, pts[0].Add(image.Pt(2, -6)), gocv.FontHersheySimplex, 0.6, color.RGBA{A: 255}, 4)
		gocv.PutText(&out, label, pts[0].Add(image.Pt(2, -6)), gocv.FontHersheySimplex, 0.6, col, 2)
	}
	if !gocv.IMWrite(path, out) {
		return fmt.Errorf("cannot write %s", path)
	}
	return nil
}

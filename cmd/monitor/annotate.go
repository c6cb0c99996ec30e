package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"gocv.io/x/gocv"

	"bjmonitor/alerts"
	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/pipeline"
	"bjmonitor/tracker"
	"bjmonitor/video"
	"bjmonitor/vision"
)

// annotator writes the replay's annotated video: the zones, each card as
// read with its confidence, the hands and their totals, and the alerts as
// they fire. The file is created at the first frame drawn, which sets its
// size and the calibration the zones are drawn with. It owns its canvas
// and its writer: Close finishes the file.
type annotator struct {
	path   string
	w      *video.Writer // nil before the first frame
	cal    *calibration.Calibration
	canvas gocv.Mat
	fps    float64
	frame  int
	// Alerts stay on screen for a few seconds after they fire.
	shown []shownAlert
	hands func() (tracker.Round, bool)
}

type shownAlert struct {
	text  string
	until int
	mis   bool
}

var (
	zoneInk   = color.RGBA{R: 255, G: 220, B: 40, A: 255}
	cardInk   = color.RGBA{R: 40, G: 230, B: 40, A: 255}
	lowInk    = color.RGBA{R: 255, G: 160, B: 0, A: 255}
	alertInk  = color.RGBA{R: 255, G: 50, B: 50, A: 255}
	reviewInk = color.RGBA{R: 255, G: 160, B: 0, A: 255}
	white     = color.RGBA{R: 255, G: 255, B: 255, A: 255}
)

// newAnnotator returns an annotator that writes path at fps frames a
// second.
func newAnnotator(path string, fps float64) *annotator {
	return &annotator{path: path, canvas: gocv.NewMat(), fps: fps}
}

// start creates the file for frames the size of src, drawn with the
// calibrated pipeline's zones and hands.
func (a *annotator) start(src gocv.Mat, pl *pipeline.Pipeline) error {
	w, err := video.Create(a.path, a.fps, src.Cols(), src.Rows(), video.DefaultCRF)
	if err != nil {
		return err
	}
	a.w, a.cal, a.hands = w, pl.Calibration(), pl.Snapshot
	return nil
}

// Alert shows an alert from now on.
func (a *annotator) Alert(al alerts.Alert) {
	text := fmt.Sprintf("%s seat %d %s: %s", strings.ToUpper(al.Kind), al.Seat, al.Bet, al.Detail)
	a.shown = append(a.shown, shownAlert{text: text, until: a.frame + int(6*a.fps), mis: al.Severity == alerts.Mismatch})
}

// Frame draws one frame that pl read and writes it.
func (a *annotator) Frame(src gocv.Mat, obs vision.Frame, pl *pipeline.Pipeline) error {
	if a.w == nil {
		if err := a.start(src, pl); err != nil {
			return err
		}
	}
	a.frame = obs.Index
	src.CopyTo(&a.canvas)
	thick := max(1, src.Cols()/1280)
	scale := float64(thick) * 0.5
	for _, z := range a.cal.Table.Seats {
		a.poly(z.Polygon, zoneInk, thick)
	}
	a.poly(a.cal.Table.Dealer.Polygon, zoneInk, thick)
	for _, o := range obs.Cards {
		ink := cardInk
		if o.Confidence < 0.9 {
			ink = lowInk
		}
		var pts []image.Point
		for _, q := range o.ImageQuad {
			pts = append(pts, image.Pt(int(q.X), int(q.Y)))
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
		gocv.Polylines(&a.canvas, pv, true, ink, thick+1)
		pv.Close()
		label := fmt.Sprintf("%s %.2f", o.Card, o.Confidence)
		switch {
		case o.FaceDown:
			label = "down"
		case o.Card == cards.Card{}:
			label = "??" // a card by its outline, unread
		}
		if o.Sideways {
			label += " dbl"
		}
		x, y := a.cal.ToImage(o.Center)
		text(&a.canvas, label, x-30*scale, y, scale, ink, thick)
	}
	if a.hands != nil {
		if r, ok := a.hands(); ok {
			a.totals(r, scale, thick)
		}
	}
	y := 40 * scale
	a.shown = a.shownNow()
	for _, s := range a.shown {
		ink := reviewInk
		if s.mis {
			ink = alertInk
		}
		text(&a.canvas, s.text, 20, y+20*scale, scale*1.1, ink, thick+1)
		y += 36 * scale
	}
	busy := ""
	if obs.Busy {
		busy = "  hand over the table"
	}
	text(&a.canvas, fmt.Sprintf("frame %d  %s%s", obs.Index, clock(obs.Time), busy), 20, float64(src.Rows())-20*scale, scale, white, thick)
	return a.w.Write(a.canvas)
}

func (a *annotator) shownNow() []shownAlert {
	out := a.shown[:0]
	for _, s := range a.shown {
		if s.until > a.frame {
			out = append(out, s)
		}
	}
	return out
}

// totals writes each hand's cards and total next to it, and the dealer's.
func (a *annotator) totals(r tracker.Round, scale float64, thick int) {
	for _, s := range r.Seats {
		for i, h := range s.Hands {
			if len(h.Cards) == 0 {
				continue
			}
			cs := r.HandCards(s.Seat, i)
			label := fmt.Sprintf("%s = %d", cardNames(cs), h.Score().Total)
			if h.Busted() {
				label += " BUST"
			}
			if h.Doubled {
				label += " (double)"
			}
			at := cs[0].At
			x, y := a.cal.ToImage(calibration.Point{X: at.X, Y: at.Y + 80 + 18*float64(i)})
			text(&a.canvas, label, x-40*scale, y, scale, white, thick)
		}
	}
	if dealer := r.HandCards(0, -1); len(dealer) > 0 {
		at := dealer[0].At
		x, y := a.cal.ToImage(calibration.Point{X: at.X, Y: at.Y - 60})
		text(&a.canvas, "dealer "+cardNames(dealer), x-40*scale, y, scale, white, thick)
	}
}

// cardNames lists cards as the round record writes them.
func cardNames(cs []tracker.Card) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text()
	}
	return strings.Join(out, " ")
}

func (a *annotator) poly(poly []calibration.Point, ink color.RGBA, thick int) {
	var pts []image.Point
	for _, p := range poly {
		x, y := a.cal.ToImage(p)
		pts = append(pts, clampImage(x, y))
	}
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
	gocv.Polylines(&a.canvas, pv, true, ink, thick)
	pv.Close()
}

// Close finishes the video, if a frame was drawn.
func (a *annotator) Close() error {
	a.canvas.Close()
	if a.w == nil {
		return nil
	}
	return a.w.Close()
}

func text(img *gocv.Mat, s string, x, y, scale float64, ink color.RGBA, thick int) {
	p := clampImage(x, y)
	gocv.PutText(img, s, image.Pt(p.X+thick, p.Y+thick), gocv.FontHersheySimplex, scale, color.RGBA{A: 255}, thick+1)
	gocv.PutText(img, s, p, gocv.FontHersheySimplex, scale, ink, thick)
}

func clampImage(x, y float64) image.Point {
	const lim = 1 << 15
	if math.IsNaN(x) || math.IsNaN(y) {
		return image.Point{}
	}
	return image.Pt(int(math.Max(-lim, math.Min(lim, x))), int(math.Max(-lim, math.Min(lim, y))))
}

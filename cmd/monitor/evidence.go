package main

import (
	"fmt"
	"image"
	"strings"

	"gocv.io/x/gocv"

	"bjmonitor/alerts"
	"bjmonitor/calibration"
	"bjmonitor/tracker"
)

// moment is the video time an alert's evidence shows: when the round's last
// card was counted, so the snapshot has every card of the round on the
// felt (a busted hand's cards excepted: they were swept when it busted).
// now and frame are the video time and frame index the pipeline is at.
func moment(rd tracker.Round, frame int, now, fps float64) float64 {
	last := -1
	for _, c := range rd.Cards() {
		last = max(last, c.Frame)
	}
	if last < 0 || last > frame {
		return now
	}
	// Half a second on, the dealer's hand has left the last card.
	return min(now, now-float64(frame-last)/fps+0.5)
}

// drawEvidence returns what draws the round's cards as read, and the alert,
// on a snapshot scaled by scale from the camera's pixels.
func drawEvidence(cal *calibration.Calibration, rd tracker.Round, a alerts.Alert) func(img *gocv.Mat, scale float64) {
	return func(img *gocv.Mat, scale float64) {
		thick := max(1, int(2*scale+0.5))
		fs := 0.4 * max(scale*2, 0.6)
		mark := func(c tracker.Card, who string) {
			name := c.Text()
			x, y := cal.ToImage(c.At)
			p := image.Pt(int(x*scale), int(y*scale))
			ink := cardInk
			if c.Confidence < 0.75 {
				ink = lowInk
			}
			for _, r := range a.Cards {
				if r.Card == name {
					ink = alertInk
				}
			}
			gocv.Circle(img, p, 3, ink, -1)
			label := fmt.Sprintf("%s %.0f%%", name, 100*c.Confidence)
			text(img, label, float64(p.X+5), float64(p.Y+4), fs, ink, thick)
			if who != "" {
				// The hand's name goes under its first card.
				text(img, who, float64(p.X-10), float64(p.Y)+60*scale, fs, white, thick)
			}
		}
		for p, c := range rd.Cards() {
			who := ""
			switch {
			case p.Card > 0:
			case p.Hand < 0:
				who = "dealer"
			default:
				who = fmt.Sprintf("seat %d hand %d", p.Seat, p.Hand+1)
			}
			mark(c, who)
		}
		ink := reviewInk
		if a.Severity == alerts.Mismatch {
			ink = alertInk
		}
		lines := []string{
			fmt.Sprintf("%s [%s] table %s round %s seat %d %s", strings.ToUpper(a.Kind), a.Severity, a.Table, a.Round, a.Seat, a.Bet),
			a.Detail,
		}
		y := 24.0 * max(scale*2, 1)
		for _, l := range lines {
			text(img, l, 12, y, fs*1.1, ink, thick)
			y += 28 * max(scale*2, 1)
		}
	}
}

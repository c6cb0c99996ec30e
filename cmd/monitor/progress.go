package main

import (
	"fmt"
	"io"
	"time"
)

// progress draws a one-line progress bar with the speed on a terminal. A
// nil *progress draws nothing, so callers need not check for a terminal.
type progress struct {
	w          io.Writer
	label      string
	unit       string
	start      time.Time
	lastDrawn  time.Time
	lastFilled int
}

func newProgress(w io.Writer, label, unit string) *progress {
	return &progress{w: w, label: label, unit: unit, start: time.Now(), lastFilled: -1}
}

const barWidth = 30

// Update redraws the bar, at most ten times a second.
func (p *progress) Update(done, total int) {
	if p == nil || total <= 0 {
		return
	}
	now := time.Now()
	filled := done * barWidth / total
	if filled == p.lastFilled && now.Sub(p.lastDrawn) < 100*time.Millisecond {
		return
	}
	p.lastFilled, p.lastDrawn = filled, now
	rate := float64(done) / max(now.Sub(p.start).Seconds(), 1e-9)
	bar := make([]byte, barWidth)
	for i := range bar {
		bar[i] = ' '
		if i < filled {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r%s [%s] %3d%% %d/%d %s, %.0f %s/s ", p.label, bar, done*100/total, done, total, p.unit, rate, p.unit)
}

// Done ends the bar's line.
func (p *progress) Done() {
	if p == nil {
		return
	}
	fmt.Fprintln(p.w)
}

package vision

import (
	"math"

	"bjmonitor/calibration"
	"bjmonitor/vision/classify"
)

// Reading is one card corner read in the last frame: the detector's
// working, shown so that an engineer can see why a card was read as it
// was, or missed (monitor inspect). Observations are made from readings.
type Reading struct {
	// Zone is the zone that found the corner: "dealer" or "seat N". Zones
	// overlap, so a corner near a zone's edge is often read by two.
	Zone string
	// Corner is the corner's point on the table, in mm, and Angle the
	// direction of its first edge in degrees, as Observation.Angle: the
	// crop is cut with that edge along its top.
	Corner calibration.Point
	Angle  float64
	// Crop is where the crop the model read was cut in the image.
	Crop   classify.Frame
	Result classify.Result
	// Cached: the crop looked as it did when last read, and kept that
	// reading; the model did not read it again.
	Cached bool
	// Capped: the dealer's hand was near, so the reading's confidence is
	// capped (Options.CoveredConfidence) when it becomes an observation.
	Capped bool
	// Guessed: the corner was placed from its index's ink, as no edges
	// showed it, and its Result's confidence is capped below Confident,
	// unless Confirmed: a second crop, cut a little further along the
	// card's edge, read the same card surely.
	Guessed, Confirmed bool
}

// Readings returns the corners read in the zones the last Detect read
// afresh (none when every zone held still). The slice is the caller's.
func (d *Detector) Readings() []Reading {
	var out []Reading
	for _, z := range d.lastRead {
		for _, rd := range z.reads {
			out = append(out, Reading{
				Zone:      z.name,
				Corner:    rd.at.P,
				Angle:     math.Atan2(rd.at.U.Y, rd.at.U.X) * 180 / math.Pi,
				Crop:      rd.frame,
				Result:    rd.res,
				Cached:    rd.cached,
				Capped:    rd.capped,
				Guessed:   rd.at.Guessed,
				Confirmed: rd.confirmed,
			})
		}
	}
	return out
}

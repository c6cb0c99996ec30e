package enroll

import (
	"errors"
	"fmt"
	"image"
	"slices"
	"time"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// cornerNames name a card's two index corners in refusals.
var cornerNames = [2]string{"top-left", "bottom-right"}

// learnTemplates cuts both index corners of every card in its place,
// checks each with the model and for ink, and returns the deck.
func learnTemplates(frame gocv.Mat, cal *calibration.Calibration, model Reader, slots [][13]*laid, opts Options) (*classify.Deck, error) {
	cropper := classify.NewCropper()
	defer cropper.Close()
	crops := make([]gocv.Mat, 0, 104)
	defer func() {
		for _, c := range crops {
			c.Close()
		}
	}()
	var px float64
	for r := range slots {
		for k := range slots[r] {
			c := slots[r][k]
			px += cal.PxPerMM(c.centre) / 52
			for corner := range 2 {
				crop := gocv.NewMat()
				crops = append(crops, crop)
				if err := cropper.Cut(frame, cornerFrame(cal, *c, corner), &crop); err != nil {
					return nil, fmt.Errorf("enroll: %v: %w", SlotCard(r, k), err)
				}
			}
		}
	}
	res, err := model.Classify(crops)
	if err != nil {
		return nil, fmt.Errorf("enroll: the model: %w", err)
	}
	deck := &classify.Deck{
		Format: classify.DeckFormat, Created: opts.Now.UTC().Format(time.RFC3339), Source: opts.Source, PxPerMM: px,
		Crop: classify.DeckCrop{Cols: classify.CropCols, Rows: classify.CropRows, WidthMM: classify.CropWidthMM, HeightMM: classify.CropHeightMM},
	}
	var problems []error
	for i := range 52 {
		r, k := i/13, i%13
		dc := classify.DeckCard{Card: SlotCard(r, k)}
		p := &Problem{Row: r + 1, Position: k + 1, Card: dc.Card}
		if what := outOfPlace(dc.Card, res[2*i:2*i+2], opts.OutOfPlace); what != "" {
			p.What = what
			problems = append(problems, p)
			continue
		}
		for corner := range 2 {
			t, ok := template(crops[2*i+corner])
			if !ok {
				p.What = fmt.Sprintf("unreadable: no ink in its %s index", cornerNames[corner])
				break
			}
			dc.Corners[corner] = t
		}
		if p.What != "" {
			problems = append(problems, p)
			continue
		}
		deck.Cards = append(deck.Cards, dc)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	if err := deck.Validate(); err != nil {
		return nil, fmt.Errorf("enroll: %w", err)
	}
	return deck, nil
}

// outOfPlace says why the model's readings of a place's two corners show
// that another card lies there, or "" when they do not: a corner read as
// another card at least as sure as sure, and neither corner read as the
// card that belongs.
func outOfPlace(want cards.Card, res []classify.Result, sure float64) string {
	var other classify.Result
	for _, r := range res {
		if r.Card == want {
			return ""
		}
		if r.Card.Valid() && r.Confidence >= sure && r.Confidence > other.Confidence {
			other = r
		}
	}
	if !other.Card.Valid() {
		return ""
	}
	return fmt.Sprintf("out of place: the model reads %v there (confidence %.2f)", other.Card, other.Confidence)
}

// cornerFrame is where index corner 0 (top left) or 1 (bottom right) of c
// lies in the picture: the map from the card's own mm, leaving the corner
// into the card, to picture pixels, as the monitor's vision builds it.
func cornerFrame(cal *calibration.Calibration, c laid, corner int) classify.Frame {
	u, v := c.u, c.v
	if corner == 1 {
		u, v = scale(u, -1), scale(v, -1)
	}
	p := calibration.Point{X: c.centre.X - u.X*cardW/2 - v.X*cardH/2, Y: c.centre.Y - u.Y*cardW/2 - v.Y*cardH/2}
	const step = 5.0 // mm: a finite difference over the lens's gentle curve
	ox, oy := cal.ToImage(p)
	ux, uy := cal.ToImage(calibration.Point{X: p.X + step*u.X, Y: p.Y + step*u.Y})
	vx, vy := cal.ToImage(calibration.Point{X: p.X + step*v.X, Y: p.Y + step*v.Y})
	// Crop pixel centres are at integers; the corner is a point between
	// pixels.
	return classify.Frame{
		Origin: classify.Vec{X: ox - 0.5, Y: oy - 0.5},
		U:      classify.Vec{X: (ux - ox) / step, Y: (uy - oy) / step},
		V:      classify.Vec{X: (vx - ox) / step, Y: (vy - oy) / step},
	}
}

// Ink: a pixel at least inkContrast grey levels darker than the paper,
// at least edgePx (1.5 mm) from the card's edges, where the felt of a
// rounded corner or an edge found a little off would show. An index has
// at least minInkPx such pixels (3 mm² at 2 px/mm; a rank and a pip
// have some 30 mm²).
const (
	inkContrast = 50
	edgePx      = 3
	minInkPx    = 12
)

// template turns a crop into a template: its grey levels and the box of
// its ink, or false when there is no ink.
func template(crop gocv.Mat) (classify.Template, bool) {
	g := gocv.NewMat()
	defer g.Close()
	gocv.CvtColor(crop, &g, gocv.ColorBGRToGray)
	grey, err := g.DataPtrUint8()
	if err != nil || len(grey) != classify.CropCols*classify.CropRows {
		return classify.Template{}, false
	}
	inner := image.Rect(edgePx, edgePx, classify.CropCols, classify.CropRows)
	var levels []byte
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		levels = append(levels, grey[y*classify.CropCols+inner.Min.X:(y+1)*classify.CropCols]...)
	}
	slices.Sort(levels)
	paper := int(levels[len(levels)*9/10]) // most of an index corner is paper
	box, n := image.Rectangle{}, 0
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			if int(grey[y*classify.CropCols+x]) <= paper-inkContrast {
				box = box.Union(image.Rect(x, y, x+1, y+1))
				n++
			}
		}
	}
	if n < minInkPx {
		return classify.Template{}, false
	}
	return classify.Template{Ink: [4]int{box.Min.X, box.Min.Y, box.Max.X, box.Max.Y}, Grey: slices.Clone(grey)}, true
}

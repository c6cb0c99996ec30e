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
// checks each with the model, its pips and for ink, and returns the deck.
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
	laidPips := readPips(frame, cal, slots)
	deck := &classify.Deck{
		Format: classify.DeckFormat, Created: opts.Now.UTC().Format(time.RFC3339), Source: opts.Source, PxPerMM: px,
		Crop: classify.DeckCrop{Cols: classify.CropCols, Rows: classify.CropRows, WidthMM: classify.CropWidthMM, HeightMM: classify.CropHeightMM},
	}
	var problems []error
	for i := range 52 {
		r, k := i/13, i%13
		dc := classify.DeckCard{Card: SlotCard(r, k)}
		p := &Problem{Row: r + 1, Position: k + 1, Card: dc.Card}
		if other, ok := outOfPlace(dc.Card, res[2*i:2*i+2], opts.OutOfPlace); ok {
			if !readInPlace(other.Card, res) {
				p.What = fmt.Sprintf("out of place: the model reads %v there (confidence %.2f)", other.Card, other.Confidence)
				problems = append(problems, p)
				continue
			}
			if opts.Note != nil {
				note := *p
				note.What = fmt.Sprintf("taken as laid out, though the model reads %v there (confidence %.2f): %v lies in its own place too, so the model is wrong or a card is there twice",
					other.Card, other.Confidence, other.Card)
				opts.Note(note.Error())
			}
		}
		if why := laidPips.outOfPlace(i); why != "" {
			p.What = why
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

// outOfPlace reports whether the model's readings of a place's two
// corners show that another card lies there, and which: a corner read as
// another card at least as sure as sure, and neither corner read as the
// card that belongs.
func outOfPlace(want cards.Card, res []classify.Result, sure float64) (classify.Result, bool) {
	var other classify.Result
	for _, r := range res {
		if r.Card == want {
			return classify.Result{}, false
		}
		if r.Card.Valid() && r.Confidence >= sure && r.Confidence > other.Confidence {
			other = r
		}
	}
	return other, other.Card.Valid()
}

// readInPlace reports whether card c is read, at either corner, in its
// own place of the layout (res holds two readings a place, in the order
// of SlotCard). One deck holds one c: where c lies in its place, a place
// that reads as c holds another card the model misreads (on a design it
// never saw), or a second c. Two cards swapped read as each other, and
// neither in its own place.
func readInPlace(c cards.Card, res []classify.Result) bool {
	r := slices.Index(Suits[:], c.Suit)
	if r < 0 || !c.Valid() {
		return false
	}
	i := r*13 + int(c.Rank) - 1
	return 2*i+1 < len(res) && (res[2*i].Card == c || res[2*i+1].Card == c)
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

// Ink: a pixel at least inkContrast grey levels darker than the paper (or
// red, see redInk),
// at least edgePx (1.5 mm) from the card's edges and outside the
// cornerPx (3 mm) square of its rounded corner, where felt and shadow
// show. An index has at least minInkPx such pixels (3 mm² at 2 px/mm; a
// rank and a pip have some 30 mm²).
const (
	inkContrast = 35
	edgePx      = 3
	cornerPx    = 6
	minInkPx    = 12
)

// The index is told from the pips and pictures further in by the gaps
// around it: it ends across the card at the first run of colGapPx
// (1 mm) ink-free columns, at least minIndexPx (2 mm) wide, and down the
// card at the first run of rowGapPx (4 mm) ink-free rows, wider than the
// gap between a rank and its suit pip. It is looked for in the first
// indexRows rows (30 mm), and is at most maxIndexPx (12 mm) wide: where a
// court card's picture comes close to the index the box stops there, as
// in a fanned hand the next card covers the rest from 14 mm on.
const (
	colGapPx   = 2
	rowGapPx   = 8
	indexRows  = 60
	minIndexPx = 4
	maxIndexPx = 24
)

// template turns a crop into a template: its pixels and the box of its
// index's ink, or false when there is no ink.
func template(crop gocv.Mat) (classify.Template, bool) {
	bgr := crop.ToBytes()
	const cols = classify.CropCols
	if len(bgr) != 3*cols*classify.CropRows {
		return classify.Template{}, false
	}
	grey := make([]int, cols*classify.CropRows)
	red := make([]int, len(grey))
	for i := range grey {
		b, g, r := int(bgr[3*i]), int(bgr[3*i+1]), int(bgr[3*i+2])
		grey[i], red[i] = (b+g+r)/3, r-g
	}
	var levels []int
	for y := edgePx; y < classify.CropRows; y++ {
		levels = append(levels, grey[y*cols+edgePx:(y+1)*cols]...)
	}
	slices.Sort(levels)
	paper := levels[len(levels)*9/10] // most of an index corner is paper
	ink := func(x, y int) bool {
		if x < cornerPx && y < cornerPx {
			return false // the rounded corner, where felt and shadow show
		}
		i := y*cols + x
		return grey[i] <= paper-inkContrast || red[i] >= redInk
	}
	box, n := indexBox(ink)
	if n < minInkPx {
		return classify.Template{}, false
	}
	return classify.Template{Ink: [4]int{box.Min.X, box.Min.Y, box.Max.X, box.Max.Y}, BGR: bgr}, true
}

// redInk is how much redder than green a pixel of red ink is: a pale red
// index differs little from the paper in brightness.
const redInk = 60

// indexBox finds the index's ink in a crop: the first run of columns at
// least minIndexPx wide that has ink, ending at a gap of colGapPx (thinner
// runs are the shading of an edge), then within them the rows from the
// first with ink to the first gap of rowGapPx. It returns the box and the
// ink pixels in it.
func indexBox(ink func(x, y int) bool) (image.Rectangle, int) {
	count := func(x0, x1, y0, y1 int) int {
		n := 0
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				if ink(x, y) {
					n++
				}
			}
		}
		return n
	}
	from := edgePx
	for from < classify.CropCols {
		x0, x1 := span(from, classify.CropCols, colGapPx, func(x int) bool { return count(x, x+1, edgePx, indexRows) > 0 })
		if x0 >= classify.CropCols {
			break
		}
		if x1-x0 >= minIndexPx {
			x1 = min(x1, x0+maxIndexPx)
			has := func(y int) bool { return count(x0, x1, y, y+1) > 0 }
			y0, y1 := span(edgePx, indexRows, rowGapPx, has)
			// Too little ink for an index: a hairline rank, broken by
			// gaps, whose suit pip lies in the rows of ink below; or a
			// strip of felt along the top edge, where the card lies a
			// millimetre off its fitted place, above the index.
			for count(x0, x1, y0, y1) < minInkPx {
				a, b := span(y1, indexRows, rowGapPx, has)
				if a >= indexRows {
					break
				}
				if y0 <= edgePx && y1-y0 < minIndexPx {
					y0 = a
				}
				y1 = b
			}
			return image.Rect(x0, y0, x1, y1), count(x0, x1, y0, y1)
		}
		from = x1
	}
	return image.Rectangle{}, 0
}

// span returns the run [a, b) from the first i in [from, to) where has(i)
// to the last before a gap of gap indices where it does not.
func span(from, to, gap int, has func(int) bool) (a, b int) {
	a = from
	for a < to && !has(a) {
		a++
	}
	b, empty := a, 0
	for i := a; i < to && empty < gap; i++ {
		if has(i) {
			b, empty = i+1, 0
		} else {
			empty++
		}
	}
	return a, b
}

package calibration

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"
)

var (
	markFound   = color.RGBA{R: 40, G: 230, B: 40, A: 255}
	markMissing = color.RGBA{R: 240, G: 40, B: 40, A: 255}
	seatColour  = color.RGBA{R: 255, G: 220, B: 40, A: 255}
	dealerColor = color.RGBA{R: 60, G: 200, B: 255, A: 255}
	pairPicture = color.RGBA{R: 255, G: 80, B: 255, A: 255}
	pairSolved  = color.RGBA{R: 255, G: 255, B: 255, A: 255}
)

// DrawOverlay draws, on a frame from the camera, the reference marks (green
// where found, red where the table file puts a mark that was not) or the
// point pairs with their errors (DrawPairs), each seat's zone with its
// number, the dealer's zone, and the calibration's error and resolution,
// so an installer can check them by eye.
func (c *Calibration) DrawOverlay(img *gocv.Mat) {
	if img.Empty() {
		return
	}
	thick := max(1, img.Cols()/960)
	scale := float64(thick) * 0.6
	found := map[int]bool{}
	for _, id := range c.Found {
		found[id] = true
	}
	for _, m := range c.Table.Marks {
		col := markMissing
		if found[m.ID] {
			col = markFound
		}
		c.polyline(img, m.Corners[:], true, col, thick+1)
		x, y := c.ToImage(m.Center)
		label := fmt.Sprintf("mark %d", m.ID)
		if !found[m.ID] {
			label += " NOT FOUND"
		}
		putText(img, label, x, y-m.Size*c.PxPerMM(m.Center), scale, col, thick)
	}
	c.drawPairs(img, thick, scale)
	for _, z := range c.Table.Seats {
		c.polyline(img, z.Polygon, true, seatColour, thick)
		x, y := c.ToImage(centre(z.Polygon))
		putText(img, fmt.Sprintf("seat %d", z.Seat), x, y, scale*1.5, seatColour, thick+1)
	}
	c.polyline(img, c.Table.Dealer.Polygon, true, dealerColor, thick)
	x, y := c.ToImage(centre(c.Table.Dealer.Polygon))
	putText(img, "dealer", x, y, scale*1.5, dealerColor, thick+1)
	summary := fmt.Sprintf("calibration: %d of %d marks, error %.2f mm, %.2f px/mm at the dealer",
		len(c.Found), len(c.Table.Marks), c.RMS, c.PxPerMM(centre(c.Table.Dealer.Polygon)))
	if len(c.Table.Points) > 0 {
		summary = fmt.Sprintf("calibration: %d point pairs, error %.2f mm, %.2f px/mm at the dealer",
			len(c.Table.Points), c.RMS, c.PxPerMM(centre(c.Table.Dealer.Polygon)))
	}
	putText(img, summary, -20, float64(img.Rows())-20*scale, scale*1.3, color.RGBA{R: 255, G: 255, B: 255, A: 255}, thick+1)
}

// drawPairs draws each point pair: a ring on its picture point, a cross
// where the solution puts its felt point, a line between them, and its
// number and error in mm.
func (c *Calibration) drawPairs(img *gocv.Mat, thick int, scale float64) {
	errs := c.PairErrors()
	for i, p := range c.Table.Points {
		at := clampPt(p.Picture.X, p.Picture.Y)
		x, y := c.ToImage(p.Felt)
		solved := clampPt(x, y)
		gocv.Line(img, at, solved, pairSolved, thick)
		arm := 4 * thick
		gocv.Line(img, image.Pt(solved.X-arm, solved.Y-arm), image.Pt(solved.X+arm, solved.Y+arm), pairSolved, thick)
		gocv.Line(img, image.Pt(solved.X-arm, solved.Y+arm), image.Pt(solved.X+arm, solved.Y-arm), pairSolved, thick)
		gocv.Circle(img, at, 6*thick, pairPicture, thick+1)
		// Labels start right of the ring, above it and below it in turn:
		// neighbouring spots on a layout sit closer than a label is wide.
		dy := -10 * float64(thick)
		if i%2 == 1 {
			dy = 18 * float64(thick)
		}
		putText(img, fmt.Sprintf("%d: %.1f mm", i+1, errs[i]), -(p.Picture.X + 4*float64(thick)), p.Picture.Y+dy, scale*0.75, pairPicture, thick)
	}
}

// DrawPairs marks each point pair's picture point with its number, for a
// table whose pairs could not be solved: the installer sees where each
// pair was put in the picture.
func DrawPairs(img *gocv.Mat, t *Table) {
	if img.Empty() {
		return
	}
	thick := max(1, img.Cols()/960)
	for i, p := range t.Points {
		gocv.Circle(img, clampPt(p.Picture.X, p.Picture.Y), 6*thick, pairPicture, thick+1)
		putText(img, p.label(i), -(p.Picture.X + 8*float64(thick)), p.Picture.Y+4*float64(thick), float64(thick)*0.45, pairPicture, thick)
	}
}

// polyline draws a table-plane polygon, following the lens's curve by
// splitting each edge into short steps.
func (c *Calibration) polyline(img *gocv.Mat, poly []Point, closed bool, col color.RGBA, thick int) {
	n := len(poly)
	if !closed {
		n--
	}
	var pts []image.Point
	for i := 0; i < n; i++ {
		a, b := poly[i], poly[(i+1)%len(poly)]
		steps := max(1, int(math.Hypot(b.X-a.X, b.Y-a.Y)/20))
		for s := 0; s < steps; s++ {
			t := float64(s) / float64(steps)
			x, y := c.ToImage(Point{a.X + t*(b.X-a.X), a.Y + t*(b.Y-a.Y)})
			pts = append(pts, clampPt(x, y))
		}
	}
	if !closed && len(poly) > 0 {
		x, y := c.ToImage(poly[len(poly)-1])
		pts = append(pts, clampPt(x, y))
	}
	if len(pts) < 2 {
		return
	}
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
	defer pv.Close()
	gocv.Polylines(img, pv, closed, col, thick)
}

// putText writes s centred on x (or, for a negative x, starting at -x) and
// kept inside the image.
func putText(img *gocv.Mat, s string, x, y, scale float64, col color.RGBA, thick int) {
	size := gocv.GetTextSize(s, gocv.FontHersheySimplex, scale, thick)
	if x < 0 {
		x = -x
	} else {
		x -= float64(size.X) / 2
	}
	x = math.Max(2, math.Min(x, float64(img.Cols()-size.X-2)))
	y = math.Max(float64(size.Y+2), y)
	p := clampPt(x, y)
	shadow := image.Pt(p.X+thick, p.Y+thick)
	gocv.PutText(img, s, shadow, gocv.FontHersheySimplex, scale, color.RGBA{A: 255}, thick+1)
	gocv.PutText(img, s, p, gocv.FontHersheySimplex, scale, col, thick)
}

// clampPt keeps drawing coordinates within what OpenCV accepts.
func clampPt(x, y float64) image.Point {
	const lim = 1 << 15
	x = math.Max(-lim, math.Min(lim, x))
	y = math.Max(-lim, math.Min(lim, y))
	if math.IsNaN(x) || math.IsNaN(y) {
		return image.Point{}
	}
	return image.Pt(int(math.Round(x)), int(math.Round(y)))
}

func centre(poly []Point) Point {
	var c Point
	for _, p := range poly {
		c.X += p.X / float64(len(poly))
		c.Y += p.Y / float64(len(poly))
	}
	return c
}

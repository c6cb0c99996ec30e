package vision

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/vision/classify"
)

// Reader reads card corner crops; *classify.Classifier is one.
type Reader interface {
	Classify(crops []gocv.Mat) ([]classify.Result, error)
}

// SuitReader reads the suit of pips: for each glyph (pips.GlyphPx²
// grey pixels, as pips.Face.Glyphs has them) the natural log of the
// probability of each suit, in cards.Suits' order. The detector calls it
// from its zone workers at once.
type SuitReader interface {
	ReadSuits(glyphs [][]byte) ([][4]float64, error)
}

// Options tune the detector. DefaultOptions suits 1080p and 4K footage
// with the card area at 1.5 px/mm or more.
type Options struct {
	// PxPerMM is the resolution the table is rectified to for finding
	// card outlines; indices are cut from the full frame.
	PxPerMM float64
	// MarginMM widens each zone, so that a card on a zone's border lies
	// whole inside at least one.
	MarginMM float64
	// ChangeLevel is the grey-level change, on an eighth-size picture,
	// that marks a zone as changed; sensor noise averages out well below.
	ChangeLevel float64
	// CoveredConfidence caps the confidence of a reading when the dealer's
	// hand is close to it: a partly covered card is never read confidently.
	CoveredConfidence float64
	// SettleFrames: a zone is read again once what changed in it has
	// held still this many frames (a card dealt, swept or turned over).
	// What moves (the dealer's hand and arm) is not worth reading: cards
	// under it keep their last observations, and the frame is busy. The
	// tracker counts a card only once it has lain still anyway.
	SettleFrames int
	// MaxWaitFrames: a changed zone that does not settle (a hand that
	// never stops, flickering light) is read at least this often.
	MaxWaitFrames int
	// LookAgainFrames: a zone read for a change that came to rest, where
	// that reading found the cards it found before, is read once more,
	// its grid worked out afresh, after it has held still this many
	// frames more (0: never). Unless the second look reads surely a card
	// the first did not, the first's observations stand. A camera's
	// encoder spends its bits on what moves, so a card that has just
	// come to rest shows blurred and blocky for some frames after the
	// hand leaves it, then sharpens by less than ChangeLevel on the
	// eighth-size picture: the first reading may miss its corners.
	LookAgainFrames int
	// Workers: zones changed in one frame, and the grid tiles under them,
	// are worked out on up to this many goroutines; 0 or 1 works them out
	// one after another.
	Workers int
	// CountPips: the pips of each card that lies whole are counted, and
	// where they count another rank than its index reads, the count
	// stands, for review; a card whose index reads as none is known by
	// the rank they count alone (checkPips). On by default: the faces are cut
	// and counted in the zone workers while the model reads, and a
	// frame where every zone changed takes no measurably longer.
	CountPips bool
	// Suits, with CountPips, reads the suit of the pips counted, and of
	// an ace's single pip (Observation.Pips); nil reads none.
	Suits SuitReader
}

// DefaultOptions returns the options the monitor runs with.
func DefaultOptions() Options {
	return Options{PxPerMM: 2, MarginMM: 45, ChangeLevel: 8, CoveredConfidence: 0.4, SettleFrames: 2, MaxWaitFrames: 25, LookAgainFrames: 12, Workers: runtime.GOMAXPROCS(0), CountPips: true}
}

// Card dimensions in mm.
const (
	cardW = cards.Width
	cardH = cards.Length
)

// Detector finds and reads the cards in frames of one camera. It owns its
// Mats and its zones' Croppers; the Reader stays the caller's. Call Close when
// done. Not safe for concurrent use: one Detector per goroutine.
type Detector struct {
	cal     *calibration.Calibration
	reader  Reader
	opts    Options
	zones   []*zone
	half    gocv.Mat
	quarter gocv.Mat
	small   gocv.Mat
	smallG  gocv.Mat
	still   stillness // of the eighth-size picture
	kernel  gocv.Mat
	closed  bool
	// paperGrow widens the paper mask by some 3 mm; bridge closes gaps of
	// some 2.5 mm in it; seal, gaps of some 6 mm, and enclose, of some
	// 14 mm (fillBlobs).
	paperGrow, bridge, seal, enclose gocv.Mat
	grid                             grid
	felt                             felt // the cloth's colour, once a frame has told it
	smallHSV                         gocv.Mat
	lastRead                         []*zone // the zones read by the last Detect
	width                            int
	height                           int
	stats                            Stats
}

// Stats counts a detector's work since it was made: the monitor exports
// Zones and Crops as metrics, and the benchmark reports them per frame.
type Stats struct {
	Frames int // frames seen (Detect calls)
	Zones  int // zones read afresh: a zone is read again only when it changed
	Crops  int // card corner crops sent to the model
}

// Stats returns the counts of the detector's work so far.
func (d *Detector) Stats() Stats { return d.stats }

// openingKernel is the kernel that opens the paper and skin masks,
// dropping specks. A cross, not a square: a square also eats a white
// margin 1.5 mm wide between an index or a pip and the card's edge when
// it runs slantwise, and the notch it leaves loses the card. The caller
// closes it.
func openingKernel() gocv.Mat { return gocv.GetStructuringElement(gocv.MorphCross, image.Pt(3, 3)) }

// grid is the table rectified once for all zones, which overlap: a
// pixel's colour and its paper and skin tests are worked out once a frame
// however many zones it lies in, and only in tiles that a zone being read
// covers.
type grid struct {
	x0, y0 float64 // table mm of the top left pixel's corner
	// mapXY and mapA place each pixel in the picture in OpenCV's
	// fixed-point form (whole pixels, and the 1/32 pixel offsets), which
	// Remap would otherwise work out from float maps on every call.
	mapXY, mapA gocv.Mat
	rect        gocv.Mat // BGR
	grey        gocv.Mat
	paper, skin gocv.Mat   // 255 where the colour is paper's, skin's
	cloth       gocv.Mat   // 255 where the colour is the table cloth's
	hsv, lit    []gocv.Mat // per worker: the tile in HSV, its brightly lit paper
	cols        int        // tiles a row
	// Each tile's footprint in the eighth-size picture, and the picture
	// there when the tile was last worked out (nil: not since Forget). A
	// tile whose footprint has not changed since is not worked out again.
	foot  []image.Rectangle
	stamp [][]uint8
	done  []bool // tiles looked at this frame
	todo  []int
}

// Tiles of the grid are worked out whole; a zone's own work reaches a
// few pixels outside its rectangle (its first morphology step). A tile
// is small enough that a card dealt changes few of a zone's.
const (
	tileW, tileH = 256, 32
	tilePad      = 4
)

// zone is one area of the table watched on its own: rectified, compared
// with how it looked when last read, and read again only when changed.
type zone struct {
	name       string          // "dealer" or "seat N"
	x0, y0     float64         // table mm of the rectified image's origin
	roi        image.Rectangle // the zone in the grid
	watch      *watch          // its footprint in the eighth-size picture
	grown      gocv.Mat        // a mask widened, scratch
	mask, skin gocv.Mat
	skinBG     gocv.Mat // skin-coloured background
	filled     gocv.Mat // the paper blobs, filled
	obs        []Observation
	cache      []cachedRead
	// lone are the zone's lone cards' rectangles, shapes the cards its
	// outlines show, read or not (cardShapes).
	lone, shapes []cardShape
	// pips are what each shape's pips say, with Options.CountPips.
	pips []shapePips
	busy bool // skin near its cards when last read
	read bool
	// A zone is read on a worker of its own: it owns its cropper and
	// crops. reads, batch and pending carry a reading from cutting the
	// crops to the model's verdict.
	cropper  *classify.Cropper
	crops    []gocv.Mat
	twins    []gocv.Mat // second crops at guessed corners (confirmGuessed)
	cropDiff gocv.Mat
	reads    []read
	batch    []gocv.Mat // crops for the model, z.crops' own
	pending  []int      // indices in reads of the crops in batch
}

// NewDetector prepares a detector for the calibrated camera: it builds
// the maps that rectify the table, once for all zones.
func NewDetector(cal *calibration.Calibration, reader Reader, opts Options) (*Detector, error) {
	if cal == nil || reader == nil {
		return nil, errors.New("vision: NewDetector needs a calibration and a reader")
	}
	if !(opts.PxPerMM >= 0.5 && opts.PxPerMM <= 8) {
		return nil, fmt.Errorf("vision: PxPerMM %v: want 0.5 to 8", opts.PxPerMM)
	}
	if !(opts.ChangeLevel >= 1 && opts.ChangeLevel <= 255) {
		return nil, fmt.Errorf("vision: ChangeLevel %v: want 1 to 255", opts.ChangeLevel)
	}
	if opts.SettleFrames < 0 || opts.SettleFrames > 255 || opts.MaxWaitFrames < 1 {
		return nil, fmt.Errorf("vision: SettleFrames %d, MaxWaitFrames %d: want 0 to 255 and at least 1", opts.SettleFrames, opts.MaxWaitFrames)
	}
	t := cal.Table
	d := &Detector{
		cal: cal, reader: reader, opts: opts,
		half: gocv.NewMat(), quarter: gocv.NewMat(), small: gocv.NewMat(), smallG: gocv.NewMat(), smallHSV: gocv.NewMat(),
		kernel:    openingKernel(),
		paperGrow: gocv.GetStructuringElement(gocv.MorphRect, image.Pt(int(6*opts.PxPerMM)|1, int(6*opts.PxPerMM)|1)),
		bridge:    gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(int(2.5*opts.PxPerMM)|1, int(2.5*opts.PxPerMM)|1)),
		seal:      gocv.GetStructuringElement(gocv.MorphRect, image.Pt(int(6*opts.PxPerMM)|1, int(6*opts.PxPerMM)|1)),
		enclose:   gocv.GetStructuringElement(gocv.MorphRect, image.Pt(int(enclosedGapMM*opts.PxPerMM/2)|1, int(enclosedGapMM*opts.PxPerMM/2)|1)),
		width:     t.ImageWidth, height: t.ImageHeight,
	}
	sw, sh := (d.width+7)/8, (d.height+7)/8
	polys := [][]calibration.Point{t.Dealer.Polygon}
	for _, z := range t.Seats {
		polys = append(polys, z.Polygon)
	}
	// Each zone's rectangle on the table, widened by the margin.
	m, r := opts.MarginMM, opts.PxPerMM
	boxes := make([][4]float64, len(polys))
	gx0, gy0, gx1, gy1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, poly := range polys {
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range poly {
			minX, minY = math.Min(minX, p.X), math.Min(minY, p.Y)
			maxX, maxY = math.Max(maxX, p.X), math.Max(maxY, p.Y)
		}
		minX, minY, maxX, maxY = minX-m, minY-m, maxX+m, maxY+m
		w, h := int(math.Ceil((maxX-minX)*r)), int(math.Ceil((maxY-minY)*r))
		if w < 16 || h < 16 || w*h > 16<<20 {
			d.Close()
			return nil, fmt.Errorf("vision: a zone of %.0f×%.0f mm cannot be watched", maxX-minX, maxY-minY)
		}
		boxes[i] = [4]float64{minX, minY, maxX, maxY}
		gx0, gy0, gx1, gy1 = math.Min(gx0, minX), math.Min(gy0, minY), math.Max(gx1, maxX), math.Max(gy1, maxY)
	}
	gw, gh := int(math.Ceil((gx1-gx0)*r)), int(math.Ceil((gy1-gy0)*r))
	if gw*gh > 64<<20 {
		d.Close()
		return nil, fmt.Errorf("vision: zones spread over %.0f×%.0f mm cannot be watched", gx1-gx0, gy1-gy0)
	}
	at, err := d.newGrid(gx0, gy0, gw, gh)
	if err != nil {
		d.Close()
		return nil, err
	}
	for i, b := range boxes {
		roi := image.Rect(int(math.Floor((b[0]-gx0)*r)), int(math.Floor((b[1]-gy0)*r)), int(math.Ceil((b[2]-gx0)*r)), int(math.Ceil((b[3]-gy0)*r))).
			Intersect(image.Rect(0, 0, gw, gh))
		if z := d.newZone(roi, at, sw, sh); z != nil {
			z.name = "dealer"
			if i > 0 {
				z.name = fmt.Sprintf("seat %d", t.Seats[i-1].Seat)
			}
			d.zones = append(d.zones, z)
		}
	}
	if len(d.zones) == 0 {
		d.Close()
		return nil, errors.New("vision: no zone of the table file is in the camera's picture")
	}
	return d, nil
}

// newGrid builds the grid's maps for gw×gh pixels from table point
// (x0, y0) on, and returns each pixel's place in the picture, x and y in
// turn.
func (d *Detector) newGrid(x0, y0 float64, gw, gh int) ([]float32, error) {
	g := &d.grid
	g.x0, g.y0 = x0, y0
	g.mapXY = gocv.NewMatWithSize(gh, gw, gocv.MatTypeCV16SC2)
	g.mapA = gocv.NewMatWithSize(gh, gw, gocv.MatTypeCV16UC1)
	g.rect = gocv.NewMatWithSize(gh, gw, gocv.MatTypeCV8UC3)
	g.grey = gocv.NewMatWithSize(gh, gw, gocv.MatTypeCV8U)
	g.paper = gocv.NewMatWithSize(gh, gw, gocv.MatTypeCV8U)
	g.skin = gocv.NewMatWithSize(gh, gw, gocv.MatTypeCV8U)
	g.cloth = gocv.NewMatWithSize(gh, gw, gocv.MatTypeCV8U)
	for range max(d.opts.Workers, 1) {
		g.hsv = append(g.hsv, gocv.NewMat())
		g.lit = append(g.lit, gocv.NewMat())
	}
	g.cols = (gw + tileW - 1) / tileW
	tiles := g.cols * ((gh + tileH - 1) / tileH)
	g.done, g.foot, g.stamp = make([]bool, tiles), make([]image.Rectangle, tiles), make([][]uint8, tiles)
	xy, err := g.mapXY.DataPtrInt16()
	if err != nil {
		return nil, err
	}
	a, err := g.mapA.DataPtrUint16()
	if err != nil {
		return nil, err
	}
	at := make([]float32, 2*gw*gh)
	r := d.opts.PxPerMM
	// Rows, and then tiles, are worked out on the workers: each writes
	// its own.
	d.each(gh, func(_, row int) {
		for col := 0; col < gw; col++ {
			x, y := d.cal.ToImage(calibration.Point{X: x0 + (float64(col)+0.5)/r, Y: y0 + (float64(row)+0.5)/r})
			i := row*gw + col
			at[2*i], at[2*i+1] = float32(x), float32(y)
			xy[2*i], xy[2*i+1], a[i] = fixedMap(float32(x), float32(y))
		}
	})
	// A tile's footprint: the eighth-size pixels its pixels fall in, and
	// their neighbours (a pixel reads its neighbours in the picture).
	sw, sh := (d.width+7)/8, (d.height+7)/8
	d.each(len(g.foot), func(_, k int) {
		t := g.tile(k)
		foot := image.Rectangle{}
		for row := t.Min.Y; row < t.Max.Y; row++ {
			for col := t.Min.X; col < t.Max.X; col++ {
				x, y := at[2*(row*gw+col)], at[2*(row*gw+col)+1]
				if x >= -1 && y >= -1 && x < float32(d.width) && y < float32(d.height) {
					p := image.Pt(int(max(x, 0))/8, int(max(y, 0))/8)
					foot = foot.Union(image.Rectangle{Min: p, Max: p.Add(image.Pt(1, 1))})
				}
			}
		}
		g.foot[k] = foot.Inset(-1).Intersect(image.Rect(0, 0, sw, sh))
	})
	return at, nil
}

// tile returns the pixels of tile k.
func (g *grid) tile(k int) image.Rectangle {
	tx, ty := k%g.cols, k/g.cols
	return image.Rect(tx*tileW, ty*tileH, (tx+1)*tileW, (ty+1)*tileH).Intersect(image.Rect(0, 0, g.mapA.Cols(), g.mapA.Rows()))
}

// unchanged reports whether tile k was worked out and its footprint in
// the eighth-size picture img (stride bytes a row) has not changed by
// level since.
func (g *grid) unchanged(k int, img []uint8, stride int, level uint8) bool {
	st := g.stamp[k]
	if st == nil {
		return false
	}
	f := g.foot[k]
	i := 0
	for y := f.Min.Y; y < f.Max.Y; y++ {
		for _, c := range img[y*stride+f.Min.X : y*stride+f.Max.X] {
			if absDiff(c, st[i]) >= level {
				return false
			}
			i++
		}
	}
	return true
}

// under calls f with the index of each tile under zone rectangle roi,
// with the padding its corner search reaches into.
func (g *grid) under(roi image.Rectangle, f func(k int)) {
	roi = roi.Inset(-tilePad).Intersect(image.Rect(0, 0, g.mapA.Cols(), g.mapA.Rows()))
	for ty := roi.Min.Y / tileH; ty <= (roi.Max.Y-1)/tileH; ty++ {
		for tx := roi.Min.X / tileW; tx <= (roi.Max.X-1)/tileW; tx++ {
			f(ty*g.cols + tx)
		}
	}
}

// stampTile records tile k's footprint in img as it was worked out.
func (g *grid) stampTile(k int, img []uint8, stride int) {
	f := g.foot[k]
	st := g.stamp[k][:0]
	for y := f.Min.Y; y < f.Max.Y; y++ {
		st = append(st, img[y*stride+f.Min.X:y*stride+f.Max.X]...)
	}
	if st == nil {
		st = []uint8{} // worked out, though wholly outside the picture
	}
	g.stamp[k] = st
}

// newZone watches the grid's pixels in roi, less the rows and columns
// wholly outside the picture; at places each grid pixel in the picture.
// It returns nil for a zone mostly outside the picture.
func (d *Detector) newZone(roi image.Rectangle, at []float32, sw, sh int) *zone {
	gw := d.grid.mapA.Cols()
	bx0, by0, bx1, by1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	c0, r0, c1, r1 := roi.Max.X, roi.Max.Y, -1, -1
	inside := 0
	for row := roi.Min.Y; row < roi.Max.Y; row++ {
		for col := roi.Min.X; col < roi.Max.X; col++ {
			x, y := float64(at[2*(row*gw+col)]), float64(at[2*(row*gw+col)+1])
			if x >= 0 && y >= 0 && x < float64(d.width) && y < float64(d.height) {
				inside++
				bx0, by0 = math.Min(bx0, x), math.Min(by0, y)
				bx1, by1 = math.Max(bx1, x), math.Max(by1, y)
				c0, r0, c1, r1 = min(c0, col), min(r0, row), max(c1, col), max(r1, row)
			}
		}
	}
	if inside < roi.Dx()*roi.Dy()/10 {
		return nil // mostly outside the picture
	}
	r := d.opts.PxPerMM
	z := &zone{
		roi: image.Rect(c0, r0, c1+1, r1+1),
		x0:  d.grid.x0 + float64(c0)/r, y0: d.grid.y0 + float64(r0)/r,
		cropper: classify.NewCropper(), cropDiff: gocv.NewMat(),
	}
	z.watch = newWatch(image.Rect(int(bx0)/8, int(by0)/8, int(bx1)/8+1, int(by1)/8+1).Intersect(image.Rect(0, 0, sw, sh)))
	z.grown, z.mask, z.skin = gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	z.skinBG = gocv.NewMat()
	z.filled = gocv.NewMatWithSize(z.roi.Dy(), z.roi.Dx(), gocv.MatTypeCV8U)
	return z
}

func (z *zone) close() {
	for _, c := range z.cache {
		c.crop.Close()
	}
	z.cache = nil
	for _, m := range slices.Concat([]*gocv.Mat{&z.grown, &z.mask, &z.skin, &z.skinBG, &z.filled, &z.cropDiff}, matPtrs(z.crops), matPtrs(z.twins)) {
		if m.Ptr() != nil {
			m.Close()
			*m = gocv.Mat{}
		}
	}
	z.crops, z.twins = nil, nil
	if z.cropper != nil {
		z.cropper.Close()
		z.cropper = nil
	}
}

// Close releases every Mat the detector holds. Safe to call twice.
func (d *Detector) Close() error {
	for _, z := range d.zones {
		z.close()
	}
	d.zones = nil
	g := &d.grid
	for _, m := range append([]*gocv.Mat{&d.half, &d.quarter, &d.small, &d.smallG, &d.smallHSV, &d.kernel, &d.paperGrow, &d.bridge, &d.seal, &d.enclose,
		&g.mapXY, &g.mapA, &g.rect, &g.grey, &g.paper, &g.skin, &g.cloth}, append(matPtrs(g.hsv), matPtrs(g.lit)...)...) {
		if m.Ptr() != nil {
			m.Close()
			*m = gocv.Mat{}
		}
	}
	d.closed = true
	return nil
}

// fixedMap turns a picture position into OpenCV's fixed-point remap
// entry, as cv::convertMaps does for CV_16SC2 and CV_16UC1: the whole
// pixel, and the index of the 1/32-pixel offset in its interpolation
// table. Positions beyond the int16 range land outside any picture.
func fixedMap(x, y float32) (int16, int16, uint16) {
	const bits, size = 5, 1 << 5
	clamp := func(v float32) int {
		f := math.RoundToEven(float64(v) * size)
		return int(max(min(f, math.MaxInt16*size), math.MinInt16*size))
	}
	ix, iy := clamp(x), clamp(y)
	return int16(ix >> bits), int16(iy >> bits), uint16((iy&(size-1))*size + ix&(size-1))
}

func matPtrs(ms []gocv.Mat) []*gocv.Mat {
	out := make([]*gocv.Mat, len(ms))
	for i := range ms {
		out[i] = &ms[i]
	}
	return out
}

// Forget makes every zone be read afresh at the next frame, as after a
// camera reconnects.
func (d *Detector) Forget() {
	for _, z := range d.zones {
		z.read = false
	}
	clear(d.grid.stamp)
	d.still = stillness{}
}

// Detect reads one frame (8-bit BGR, the camera's size). Zones that have
// not changed since they were last read keep their observations, and so do
// changed zones until they settle (Options.SettleFrames): a frame held
// still is read a few frames after it came.
func (d *Detector) Detect(frame gocv.Mat, index int, t float64) (Frame, error) {
	if d.closed {
		return Frame{}, errors.New("vision: Detect on a closed Detector")
	}
	if frame.Empty() || frame.Type() != gocv.MatTypeCV8UC3 || frame.Cols() != d.width || frame.Rows() != d.height {
		return Frame{}, fmt.Errorf("vision: frame %d is %dx%d type %v; want %dx%d BGR as calibrated", index, frame.Cols(), frame.Rows(), frame.Type(), d.width, d.height)
	}
	d.stats.Frames++
	d.lastRead = nil
	// The eighth-size picture every frame is compared by: each pixel the
	// mean of an 8×8 block, so that sensor noise stays well under
	// ChangeLevel. Halving bilinearly averages 2×2 pixels exactly; three
	// halvings cost half what one area resize of the whole frame does.
	sw, sh := (d.width+7)/8, (d.height+7)/8
	gocv.Resize(frame, &d.half, image.Pt(4*sw, 4*sh), 0, 0, gocv.InterpolationLinear)
	gocv.Resize(d.half, &d.quarter, image.Pt(2*sw, 2*sh), 0, 0, gocv.InterpolationLinear)
	gocv.Resize(d.quarter, &d.small, image.Pt(sw, sh), 0, 0, gocv.InterpolationLinear)
	gocv.CvtColor(d.small, &d.smallG, gocv.ColorBGRToGray)
	img, err := d.smallG.DataPtrUint8()
	if err != nil {
		return Frame{}, err
	}
	if !d.felt.known {
		gocv.CvtColor(d.small, &d.smallHSV, gocv.ColorBGRToHSV)
		d.felt = feltOf(d.smallHSV)
	}
	level := uint8(math.Ceil(d.opts.ChangeLevel))
	d.still.update(img, level)
	out := Frame{Index: index, Time: t}
	var toRead []*zone
	for _, z := range d.zones {
		w := z.watch
		w.update(img, d.still.still, d.smallG.Cols(), level, d.opts.SettleFrames)
		if !z.read || w.fresh || w.waiting >= d.opts.MaxWaitFrames || w.lookAgain {
			toRead = append(toRead, z)
		}
		if w.lookAgain {
			// What sharpened in place changed by less than the level
			// the grid's tiles are kept at, too.
			d.grid.under(z.roi, func(k int) { d.grid.stamp[k] = nil })
		}
	}
	// The grid's tiles under the zones, then the zones, are worked out on
	// the workers as far as cutting the crops; the model, one per
	// Detector, reads each zone's crops as soon as they are cut.
	d.gridTiles(frame, toRead, img, d.smallG.Cols(), level)
	ready := make([]chan struct{}, len(toRead))
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	prepared := make(chan struct{})
	go func() {
		defer close(prepared)
		d.each(len(toRead), func(_, i int) {
			d.prepareZone(frame, toRead[i])
			close(ready[i])
		})
	}()
	res, err := d.classify(toRead, ready)
	<-prepared
	if err != nil {
		return Frame{}, err
	}
	for _, z := range toRead {
		before := z.obs
		if err := d.finishZone(frame, z, res[:len(z.batch)]); err != nil {
			return Frame{}, err
		}
		res = res[len(z.batch):]
		z.obs = dropFaintInMotion(z, d.opts.CoveredConfidence)
		if z.read {
			z.obs = d.keepCovered(z, before)
		}
		if w := z.watch; w.lookAgain && !w.fresh && w.waiting == 0 && !readsMore(before, z.obs) {
			// A second look at a zone that has not changed since, that
			// reads surely no card the first did not, leaves the cards
			// as the first placed them.
			z.obs = before
		}
		again := 0
		if z.read && z.watch.fresh && sameCards(before, z.obs) {
			// A change came to rest and nothing read differs: what
			// came may not show yet.
			again = d.opts.LookAgainFrames
		}
		z.watch.read(!z.read, again)
		z.read = true
		d.stats.Zones++
	}
	d.lastRead = toRead
	for _, z := range d.zones {
		out.Busy = out.Busy || z.busy || z.watch.moving
	}
	out.Cards = d.merge()
	markSideways(out.Cards)
	return out, nil
}

// classify runs the model on the zones' batches, each once ready[i] is
// closed (the zone prepared), and returns the results in zone order: the
// model reads one zone while the workers prepare the next. Zones overlap:
// a corner near a zone's edge is often found by two in the same frame,
// and is read once, from the first zone that found it.
func (d *Detector) classify(zs []*zone, ready []chan struct{}) ([]classify.Result, error) {
	var uniq []corner
	var read []classify.Result // of each corner in uniq
	var res []classify.Result
	for i, z := range zs {
		<-ready[i]
		var batch []gocv.Mat
		var of []int // the entry in uniq of each crop
		for j, crop := range z.batch {
			at := z.reads[z.pending[j]].at
			k := slices.IndexFunc(uniq, func(u corner) bool { return sameCorner(u, at) })
			if k < 0 {
				k = len(uniq)
				uniq, batch = append(uniq, at), append(batch, crop)
			}
			of = append(of, k)
		}
		part, err := d.readAll(batch)
		if err != nil {
			return nil, err
		}
		read = append(read, part...)
		for _, k := range of {
			res = append(res, read[k])
		}
	}
	return res, nil
}

// readAll has the model read crops, classify.MaxBatch at a time, and
// counts them in the detector's Stats.
func (d *Detector) readAll(crops []gocv.Mat) ([]classify.Result, error) {
	var res []classify.Result
	for done := 0; done < len(crops); done += classify.MaxBatch {
		part, err := d.reader.Classify(crops[done:min(len(crops), done+classify.MaxBatch)])
		if err != nil {
			return nil, err
		}
		res = append(res, part...)
	}
	d.stats.Crops += len(crops)
	return res, nil
}

// each runs f(worker, i) for i from 0 to n-1 on up to Options.Workers
// goroutines, numbered from 0, and returns when all are done.
func (d *Detector) each(n int, f func(worker, i int)) {
	workers := min(d.opts.Workers, n)
	if workers <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(w, i)
			}
		})
	}
	wg.Wait()
}

// gridTiles works out the grid's tiles that the zones cover: rectified
// colour and grey, and the paper and skin tests. A tile is worked out
// again only where the eighth-size picture img (stride bytes a row) has
// changed by level under it since; elsewhere the picture holds still, and
// what was worked out from it stands.
func (d *Detector) gridTiles(frame gocv.Mat, zs []*zone, img []uint8, stride int, level uint8) {
	g := &d.grid
	clear(g.done)
	g.todo = g.todo[:0]
	for _, z := range zs {
		g.under(z.roi, func(k int) {
			if !g.done[k] {
				g.done[k] = true
				if !g.unchanged(k, img, stride, level) {
					g.todo = append(g.todo, k)
				}
			}
		})
	}
	for _, k := range g.todo {
		g.stampTile(k, img, stride)
	}
	d.each(len(g.todo), func(w, i int) {
		t := g.tile(g.todo[i])
		mapXY, mapA, rect := g.mapXY.Region(t), g.mapA.Region(t), g.rect.Region(t)
		grey, paper, skin, cloth := g.grey.Region(t), g.paper.Region(t), g.skin.Region(t), g.cloth.Region(t)
		defer func() {
			for _, m := range []gocv.Mat{mapXY, mapA, rect, grey, paper, skin, cloth} {
				m.Close()
			}
		}()
		// Each writes into the grid: the regions are of the right size
		// and type already.
		gocv.Remap(frame, &rect, &mapXY, &mapA, gocv.InterpolationLinear, gocv.BorderConstant, black)
		gocv.CvtColor(rect, &g.hsv[w], gocv.ColorBGRToHSV)
		paperPixels(g.hsv[w], &paper, &g.lit[w])
		d.felt.clothPixels(g.hsv[w], &cloth, &g.lit[w])
		gocv.InRangeWithScalar(g.hsv[w], skinLo, skinHi, &skin)
		gocv.CvtColor(rect, &grey, gocv.ColorBGRToGray)
	})
}

// sameCards reports whether two readings of a zone found the same cards:
// as many, each read as one of the other's, face up or down alike, within
// SameCardMM of it.
func sameCards(a, b []Observation) bool {
	if len(a) != len(b) {
		return false
	}
	for _, o := range b {
		if !slices.ContainsFunc(a, o.alike) {
			return false
		}
	}
	return true
}

// alike reports whether o and p are one card read alike: the same card,
// face up or down alike, within SameCardMM.
func (o Observation) alike(p Observation) bool {
	return p.Card == o.Card && p.FaceDown == o.FaceDown && Dist(p.Center, o.Center) < SameCardMM
}

// readsMore reports whether reading b of a zone reads surely, face up, a
// card that reading a did not find where it lies (within SameCardMM).
func readsMore(a, b []Observation) bool {
	for _, o := range b {
		if o.FaceDown || o.Confidence < Confident || !o.Card.Valid() {
			continue
		}
		if !slices.ContainsFunc(a, o.alike) {
			return true
		}
	}
	return false
}

// dropFaintInMotion returns a zone's fresh observations without the
// cards face up that lie in the busy area (where something moves: the
// dealer's hand, arm and sleeve) read below Unreadable, at or below
// capped (Options.CoveredConfidence, what a reading beside the dealer's
// hand is capped at), or not at all. What the model half sees there is
// more likely the moving arm, blurred, than a card; a card there is read
// once the area is still, and one read before the arm came stays
// (keepCovered). A capped reading left in would be kept frame after
// frame while the area does not settle, and look like a card read
// doubtfully but steadily.
func dropFaintInMotion(z *zone, capped float64) []Observation {
	return slices.DeleteFunc(z.obs, func(o Observation) bool {
		return !o.FaceDown && (o.Confidence < Unreadable || o.Confidence <= capped) && z.watch.covers(o)
	})
}

// keepCovered adds to a zone's fresh observations the cards it saw before
// that lie in the busy area now (under the dealer's moving hand): the
// picture there has not settled, so what was read there stands. Once it
// settles as it was, nothing there changed; if it settles otherwise, the
// zone is read again.
func (d *Detector) keepCovered(z *zone, before []Observation) []Observation {
	out := z.obs
	for _, o := range before {
		if !z.watch.covers(o) {
			continue
		}
		seen := false
		for _, n := range z.obs {
			seen = seen || Dist(n.Center, o.Center) < SameCardMM
		}
		if !seen {
			out = append(out, o)
		}
	}
	return out
}

// merge collects the zones' observations. Two cards never lie with their
// centres a few millimetres apart (a hand's cards are some 20 mm apart),
// so observations that close are one card, seen twice: by two
// overlapping zones, or read from two corners, possibly differently. The
// more confident reading stands (stands).
func (d *Detector) merge() []Observation {
	var out []Observation
	for _, z := range d.zones {
		for _, o := range z.obs {
			dup := false
			for i, p := range out {
				if Dist(p.Center, o.Center) < SameCardMM {
					dup = true
					out[i] = stands(o, p)
					break
				}
			}
			if !dup {
				out = append(out, o)
			}
		}
	}
	// A card's turned index is often read by a zone that does not read
	// the card's own index (a 9♣ read at 0.51 by one zone, 18 mm from
	// the 9♣ another read at 0.97).
	turned := make([]bool, len(out))
	for i, h := range out {
		for _, g := range out {
			turned[i] = turned[i] || !g.FaceDown && !h.FaceDown && turnedReading(faceOf(g), faceOf(h))
		}
	}
	kept := out[:0]
	for i, o := range out {
		if !turned[i] && !unreadByRead(o, out) {
			kept = append(kept, o)
		}
	}
	return kept
}

// stands returns which of o and p, two zones' observations of one card,
// stands: the more confident (p where they are as sure). But where one
// zone knows the card by its rank alone (its pips counted where it read
// no index) and the other reads it whole, the whole reading stands with
// the counted rank, as checkPips has it within a zone: at its own
// confidence where the two agree, at most pipDoubt where they do not.
// Where the two name two cards, the reading that weighed the other's
// stands (weighed), else the sure one more index corners agree on
// (moreCorners).
func stands(o, p Observation) Observation {
	twoCards := o.Card.Valid() && p.Card.Valid() && o.Card != p.Card
	switch {
	case o.Card.RankOnly() && p.Card.Valid():
		return withCount(p, o.Card.Rank)
	case p.Card.RankOnly() && o.Card.Valid():
		return withCount(o, p.Card.Rank)
	case twoCards && weighed(o, p):
		return o
	case twoCards && weighed(p, o):
		return p
	case twoCards && moreCorners(o, p):
		return o
	case twoCards && moreCorners(p, o):
		return p
	case o.Confidence > p.Confidence:
		return o
	}
	return p
}

// weighed reports whether o, one zone's observation of a card, already
// weighed p, another zone's reading of it as another card: o counts p's
// card among its rivals, but p does not count o's among its own. The
// zone that saw both index corners read as two cards put its card in
// doubt (dropSamePlace); the other saw one of them alone, often a deck's
// upright second index misread, and is surer of it than the first is of
// the card in doubt.
func weighed(o, p Observation) bool {
	return slices.Contains(o.Rivals, p.Card) && !slices.Contains(p.Rivals, o.Card)
}

// moreCorners reports whether o, one zone's observation of a card, is
// sure and read at more index corners than p, another zone's: a card
// straddling two zones can show both its index corners to one zone, read
// alike, and only one to the other, where a corner read alone may be
// misread (a deck's upright second index, upside down) more surely than
// the two agree.
func moreCorners(o, p Observation) bool {
	return o.indices > p.indices && o.Confidence >= Confident
}

// faceOf is the card face observation o shows.
func faceOf(o Observation) face {
	a := o.Angle * math.Pi / 180
	return face{card: o.Card, conf: o.Confidence, centre: o.Center, v: pt(math.Cos(a), math.Sin(a))}
}

// unreadByRead reports whether o is an unread card that another zone
// saw too close to a card it read (unknowns).
func unreadByRead(o Observation, obs []Observation) bool {
	if o.Card.Valid() || o.FaceDown {
		return false
	}
	return slices.ContainsFunc(obs, func(p Observation) bool {
		return (p.Card.Valid() || p.FaceDown) && Dist(p.Center, o.Center) < unreadClearMM
	})
}

// SameCardMM is how close two readings' centres must be to be one card:
// two cards' centres never lie closer.
const SameCardMM = 10.0

// What a zone's paper blobs and skin are taken for, and which corners of
// a blob's outline are card corners (prepareZone). A card's area is
// cardW×cardH.
const (
	minBlobCards   = 0.35   // cards' areas: a smaller blob is a chip or printing, or a piece of a card's margin
	minPieceCards  = 0.05   // cards' areas: a smaller blob is no piece of a card's margin
	minMarginShare = 0.8    // the least share of a card's edge its margin covers where it is cut into pieces (marginCards)
	maxBlobCards   = 20.0   // cards' areas: a larger blob is a sleeve across the felt
	severalCards   = 1.3    // cards' areas: a larger blob is more than one card, with corners hidden inside it
	outlineTolMM   = 0.8    // mm: how far the polygon of a blob's outline strays from the outline at most
	cornerEdgeMM   = 7.0    // mm: the shortest straight edge that counts as a card's edge at a corner
	cornerGapMM    = 14.0   // mm: the most outline (a corner's rounding) between a corner's two edges
	cornerTurnDeg  = 25.0   // degrees: how far off a right angle a corner's edges may meet
	busySkinMM2    = 1500.0 // mm²: the skin in a zone that is the dealer's hand (a palm is some 7,000 mm²)
)

// How index and back readings make cards (observe).
const (
	sameFaceMM  = 10.0 // mm: the centres two index readings of one card give lie closer than this
	backClashMM = 40.0 // mm: a back centred closer than this to one more corners agree on is that back
	backVotes   = 2    // corners: how many read as a back must agree on its centre
)

// black and white, as drawing colours.
var (
	black = color.RGBA{}
	white = color.RGBA{R: 255, G: 255, B: 255, A: 255}
)

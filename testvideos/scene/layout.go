package scene

import (
	"fmt"
	"math"
)

// Point is a position on the table plane in millimetres: X to the right as
// the camera sees it (the dealer's right hand is at −X), Y from the
// dealer's straight edge (Y = 0) towards the players.
type Point struct{ X, Y float64 }

// Add returns p+q.
func (p Point) Add(q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }

// Scale returns p·k.
func (p Point) Scale(k float64) Point { return Point{p.X * k, p.Y * k} }

// rotate turns p by deg about the origin. With Y pointing down the image, a
// positive angle turns clockwise as the camera sees it.
func (p Point) rotate(deg float64) Point {
	s, c := math.Sincos(deg * math.Pi / 180)
	return Point{p.X*c - p.Y*s, p.X*s + p.Y*c}
}

// Card size in millimetres: the standard casino (poker-size) card.
const (
	CardW = 63.0
	CardH = 88.0
)

// Pose places a card on the table: its centre and its rotation. At RotDeg
// 0 the card stands upright for the camera, its top edge towards the dealer;
// a positive RotDeg turns it clockwise in the image.
type Pose struct {
	Center Point
	RotDeg float64
}

// Corners returns the card's corners in table mm, in the order top-left,
// top-right, bottom-right, bottom-left of the card itself (top = the edge
// towards the dealer at RotDeg 0).
func (p Pose) Corners() [4]Point {
	hw, hh := CardW/2, CardH/2
	local := [4]Point{{-hw, -hh}, {hw, -hh}, {hw, hh}, {-hw, hh}}
	var out [4]Point
	for i, q := range local {
		out[i] = q.rotate(p.RotDeg).Add(p.Center)
	}
	return out
}

// LayoutConfig sizes the printed layout. DefaultLayoutConfig gives a
// 7-seat table whose card area fits a 1.24 m wide view.
type LayoutConfig struct {
	// Seats is the number of player positions, 1 to 9.
	Seats int
	// SpreadDeg is the angle between the first and the last seat, seen
	// from the arc's centre.
	SpreadDeg float64
	// ArcCenterY is the Y of the centre of the table's arc (behind the
	// dealer's edge, so negative), and FeltRadius the arc's radius.
	ArcCenterY, FeltRadius float64
	// CardRadius is the distance from the arc's centre to a seat's first
	// card, and BetRadius to its betting circle.
	CardRadius, BetRadius float64
	// CardStep is where each following card of a hand goes, relative to
	// the one before, in the seat's own frame (X along the rail, Y towards
	// the player): sideways enough that the corner index stays visible,
	// and a little towards the dealer.
	CardStep Point
	// SplitGap is the distance between the first cards of two split hands.
	SplitGap float64
	// DealerFirst is the centre of the dealer's up card, DealerStep the
	// offset of each following dealer card.
	DealerFirst, DealerStep Point
	// MarkSize is the side of the printed reference marks (the black
	// ArUco square, without its white margin).
	MarkSize float64
	// Marks are the centres of the reference marks; their ArUco ids are
	// their indices in this slice.
	Marks []Point
}

// DefaultLayoutConfig returns the 7-seat layout the tests and the still use.
func DefaultLayoutConfig() LayoutConfig {
	return LayoutConfig{
		Seats:       7,
		SpreadDeg:   60,
		ArcCenterY:  -600,
		FeltRadius:  1300,
		CardRadius:  1010,
		BetRadius:   1150,
		CardStep:    Point{14, -17},
		SplitGap:    100,
		DealerFirst: Point{-30, 175},
		DealerStep:  Point{24, 0},
		MarkSize:    50,
		// Near the corners of the default camera's view: two by the
		// dealer's edge, outside the shoe and the discard holder, and two
		// on the rail side between seats' side-bet spots and sensors.
		Marks: []Point{{-565, 42}, {565, 42}, {320, 593}, {-320, 593}},
	}
}

// Validate reports the first field that is out of range.
func (c LayoutConfig) Validate() error {
	switch {
	case c.Seats < 1 || c.Seats > 9:
		return fmt.Errorf("scene: layout Seats = %d, want 1..9", c.Seats)
	case c.SpreadDeg < 0 || c.SpreadDeg > 170:
		return fmt.Errorf("scene: layout SpreadDeg = %g, want 0..170", c.SpreadDeg)
	case c.FeltRadius < 300 || c.FeltRadius > 3000:
		return fmt.Errorf("scene: layout FeltRadius = %g mm, want 300..3000", c.FeltRadius)
	case c.ArcCenterY > 0 || -c.ArcCenterY >= c.FeltRadius:
		return fmt.Errorf("scene: layout ArcCenterY = %g mm, want -FeltRadius < y <= 0", c.ArcCenterY)
	case c.CardRadius <= 0 || c.BetRadius <= c.CardRadius || c.BetRadius+100 >= c.FeltRadius:
		return fmt.Errorf("scene: layout radii card %g, bet %g, felt %g: want 0 < card < bet < felt-100", c.CardRadius, c.BetRadius, c.FeltRadius)
	case c.MarkSize < 10 || c.MarkSize > 300:
		return fmt.Errorf("scene: layout MarkSize = %g mm, want 10..300", c.MarkSize)
	case len(c.Marks) < 4:
		return fmt.Errorf("scene: layout has %d reference marks, want at least 4 for a homography", len(c.Marks))
	case len(c.Marks) > len(arucoDict4x4):
		return fmt.Errorf("scene: layout has %d reference marks, the dictionary has %d", len(c.Marks), len(arucoDict4x4))
	}
	return nil
}

// Seat is one player position and where its cards go. Seats are numbered
// from 1 at first base (the dealer's left, +X) to the last at third base,
// the usual order of table controllers.
type Seat struct {
	Number int
	// AngleDeg is the seat's direction from the arc's centre, measured
	// from +Y towards +X.
	AngleDeg float64
	// Bet is the centre of the betting circle; TwentyOnePlus3, Push22 and
	// Blazing7s are the centres of the side-bet spots (Blazing7s is the
	// wager sensor; Push22 doubles as the Pot of Gold spot).
	Bet, TwentyOnePlus3, Push22, Blazing7s Point
	// FirstCard is the pose of the first card of an unsplit hand.
	FirstCard Pose
	// Step is the table-mm offset from one card of a hand to the next.
	Step Point
	// SplitOffset is the table-mm offset from FirstCard to the first card
	// of the right-hand split hand; the left hand is at −SplitOffset.
	SplitOffset Point
	// Zone is the seat's area of the table (a polygon in mm): a card whose
	// centre is in it belongs to this seat.
	Zone []Point
}

// CardPose returns where card index (0-based) of hand `hand` of a seat
// with `hands` hands goes. Split hands lie side by side: hand 0 at
// −SplitOffset, hand 1 at +SplitOffset, and re-split hands spread evenly.
func (s Seat) CardPose(hand, hands, index int) Pose {
	c := s.FirstCard.Center
	if hands > 1 {
		k := float64(hand) - float64(hands-1)/2
		c = c.Add(s.SplitOffset.Scale(2 * k))
	}
	return Pose{Center: c.Add(s.Step.Scale(float64(index))), RotDeg: s.FirstCard.RotDeg}
}

// DoublePose is CardPose for a doubled card: it lies sideways, across the
// hand, a little further on than a normal card would.
func (s Seat) DoublePose(hand, hands, index int) Pose {
	p := s.CardPose(hand, hands, index)
	p.Center = p.Center.Add(s.Step.Scale(0.6))
	p.RotDeg += 90
	return p
}

// Dealer is where the dealer's cards go.
type Dealer struct {
	// FirstCard is the pose of the up card (the dealer's first card); the
	// hole card, when the table uses one, is the second.
	FirstCard Pose
	// Step is the offset from one dealer card to the next.
	Step Point
	// Zone is the dealer's area of the table (a polygon in mm).
	Zone []Point
	// Tray is the chip tray: its top-left and bottom-right corners.
	Tray [2]Point
}

// CardPose returns where the dealer's card index (0-based) goes.
func (d Dealer) CardPose(index int) Pose {
	return Pose{Center: d.FirstCard.Center.Add(d.Step.Scale(float64(index))), RotDeg: d.FirstCard.RotDeg}
}

// Mark is a printed reference mark: an ArUco marker of the 4×4 dictionary
// with 50 ids (OpenCV's DICT_4X4_50) on a white square margin one cell
// wide.
type Mark struct {
	ID     int
	Center Point
	// Size is the side of the black marker square, without the margin.
	Size float64
}

// Corners returns the marker's outer black corners in table mm, clockwise
// from top-left as the camera sees it (the order ArUco detectors report).
func (m Mark) Corners() [4]Point {
	h := m.Size / 2
	c := m.Center
	return [4]Point{{c.X - h, c.Y - h}, {c.X + h, c.Y - h}, {c.X + h, c.Y + h}, {c.X - h, c.Y + h}}
}

// Layout is the printed table: felt outline, seats, dealer area and marks.
type Layout struct {
	Config LayoutConfig
	// ArcCenter is the centre of the felt's arc.
	ArcCenter Point
	Seats     []Seat
	Dealer    Dealer
	Marks     []Mark
}

// NewLayout computes the geometry of a layout.
func NewLayout(cfg LayoutConfig) (*Layout, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := Point{0, cfg.ArcCenterY}
	l := &Layout{Config: cfg, ArcCenter: o}
	dir := func(deg float64) Point {
		s, c := math.Sincos(deg * math.Pi / 180)
		return Point{s, c}
	}
	step := 0.0
	if cfg.Seats > 1 {
		step = cfg.SpreadDeg / float64(cfg.Seats-1)
	}
	half := step / 2
	if cfg.Seats == 1 {
		half = 20
	}
	// The side spots' centres are 80 mm from the circle's, along the arc.
	sideDeg := 80 / cfg.BetRadius * 180 / math.Pi
	// Zones stop short of the dealer's cards and run out to the rail.
	innerR := cfg.CardRadius - 150
	outerR := cfg.FeltRadius - 10
	for i := 0; i < cfg.Seats; i++ {
		a := cfg.SpreadDeg/2 - float64(i)*step
		at := func(r, da float64) Point { return o.Add(dir(a + da).Scale(r)) }
		rot := -a // the card's top faces the arc's centre, i.e. the dealer
		s := Seat{
			Number:   i + 1,
			AngleDeg: a,
			Bet:      at(cfg.BetRadius, 0),
			// Side-bet spots flank the betting circle; the Blazing 7's
			// sensor sits in front of it, by the rail.
			TwentyOnePlus3: at(cfg.BetRadius, sideDeg),
			Push22:         at(cfg.BetRadius, -sideDeg),
			Blazing7s:      at(cfg.BetRadius+85, 0),
			FirstCard:      Pose{Center: at(cfg.CardRadius, 0), RotDeg: rot},
			Step:           cfg.CardStep.rotate(rot),
			SplitOffset:    Point{cfg.SplitGap / 2, 0}.rotate(rot),
		}
		var zone []Point
		const n = 8
		for k := 0; k <= n; k++ {
			zone = append(zone, at(innerR, half-2*half*float64(k)/n))
		}
		for k := 0; k <= n; k++ {
			zone = append(zone, at(outerR, -half+2*half*float64(k)/n))
		}
		s.Zone = zone
		l.Seats = append(l.Seats, s)
	}
	l.Dealer = Dealer{
		FirstCard: Pose{Center: cfg.DealerFirst},
		Step:      cfg.DealerStep,
		Tray:      [2]Point{{-270, 10}, {270, 112}},
	}
	// The dealer's zone runs from the tray to the seats' inner edge.
	dz := Point{cfg.DealerFirst.X, cfg.DealerFirst.Y}
	l.Dealer.Zone = []Point{
		{dz.X - 150, 132}, {dz.X + 6*cfg.DealerStep.X + 150, 132},
		{dz.X + 6*cfg.DealerStep.X + 150, dz.Y + CardH/2 + 30}, {dz.X - 150, dz.Y + CardH/2 + 30},
	}
	for i, p := range cfg.Marks {
		l.Marks = append(l.Marks, Mark{ID: i, Center: p, Size: cfg.MarkSize})
	}
	return l, nil
}

// Landmark is a feature printed on the felt, or the corner of something
// lying on it, that an installer can find in a frame and measure on the
// table: the kind of point a table file's point pairs are made of.
type Landmark struct {
	Name string
	At   Point
}

// Landmarks returns the layout's landmarks: the centre of each seat's
// betting circle, 21+3 and Push 22 spots and Blazing 7's sensor, and the
// chip tray's corners (where its sides meet, past the rounded corners).
// The reference marks are not among them.
func (l *Layout) Landmarks() []Landmark {
	t := l.Dealer.Tray
	out := []Landmark{
		{"chip tray, top left corner", t[0]},
		{"chip tray, top right corner", Point{t[1].X, t[0].Y}},
		{"chip tray, bottom right corner", t[1]},
		{"chip tray, bottom left corner", Point{t[0].X, t[1].Y}},
	}
	for _, s := range l.Seats {
		out = append(out,
			Landmark{fmt.Sprintf("seat %d, betting circle centre", s.Number), s.Bet},
			Landmark{fmt.Sprintf("seat %d, 21+3 spot centre", s.Number), s.TwentyOnePlus3},
			Landmark{fmt.Sprintf("seat %d, Push 22 spot centre", s.Number), s.Push22},
			Landmark{fmt.Sprintf("seat %d, Blazing 7's sensor centre", s.Number), s.Blazing7s})
	}
	return out
}

// SeatAt returns the number of the seat whose zone holds p, or 0.
func (l *Layout) SeatAt(p Point) int {
	for _, s := range l.Seats {
		if inPolygon(p, s.Zone) {
			return s.Number
		}
	}
	return 0
}

// InDealerZone reports whether p lies in the dealer's zone.
func (l *Layout) InDealerZone(p Point) bool { return inPolygon(p, l.Dealer.Zone) }

// inPolygon is the even–odd rule.
func inPolygon(p Point, poly []Point) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

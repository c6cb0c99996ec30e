package clip

import (
	"cmp"
	"math"
	"slices"

	"bjmonitor/calibration"
	"bjmonitor/deal"
	"bjmonitor/game"
	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
	"bjmonitor/vision"
)

// slotOrder is where a seat's split hands may go, in split offsets from
// its first hand, in the order a dealer tries them: right, left, then
// further right and further left. At the two end seats "right" is
// towards the table's middle, as there is no felt, and no camera view,
// beyond the end spot.
var slotOrder = [...]float64{1, -1, 2, -2}

// handGap is the least distance between the first cards of two hands: a
// card's width and a little, so that no hand lies on another's cards.
const handGap = 70 // mm

// footCards is how many cards laid flat a hand's footprint allows for:
// as many as TestHandsFitTheFelt keeps in the camera's view.
const footCards = 6

// footClear is the least gap between the footprints of two seats' hands:
// Pose moves each card up to 2 mm each way and turns it up to 3°, which
// moves a corner up to 5.6 mm, so two cards may close 11.3 mm of it.
const footClear = 12 // mm

// handSlots lays out a round's hands: the split offset of each hand of
// each seat (hand 0 lies at 0). Hands are laid in dealing order, the
// seats from first base and a seat's hands as they were split. A split
// hand goes next to the hand it was split from if it can, and never
// further than two offsets from it: it takes the nearest slot of
// slotOrder (the earlier of two as near) that is on the felt, at least
// handGap from every hand laid before it and from every seat's first
// hand, and whose footprint keeps footClear from the footprints of
// every other seat's hands. ok is false when some hand found no such
// slot: it then takes the nearest slot on the felt, on top of another
// hand, or past the end.
//
// The footprint (see footprint) keeps a player's cards, drift and
// doubles included, off every other player's: a dealer never deals one
// player's card over another's. A seat's own split hands lie a fixed
// SplitGap apart, as dealers lay them, and a double or a long hand may
// then reach over the first card of the seat's next hand.
func handSlots(l *scene.Layout, seats []game.Seat) (slots map[int][]float64, ok bool) {
	slots = make(map[int][]float64, len(seats))
	// hand is a hand laid at split offset k of a seat: where its first
	// card lies, and its footprint.
	type hand struct {
		seat  int
		first scene.Point
		feet  [][4]scene.Point
	}
	lay := func(s scene.Seat, k float64) hand {
		return hand{s.Number, splitCenter(l, s, k), footprint(l, s, k)}
	}
	var hands []hand
	for _, gs := range seats {
		if gs.Seat >= 1 && gs.Seat <= len(l.Seats) {
			hands = append(hands, lay(l.Seats[gs.Seat-1], 0))
		}
	}
	// fits reports whether h keeps handGap from every hand laid and its
	// footprint footClear from every other seat's.
	fits := func(h hand) bool {
		for _, o := range hands {
			if math.Hypot(o.first.X-h.first.X, o.first.Y-h.first.Y) < handGap {
				return false
			}
			if o.seat == h.seat {
				continue
			}
			for _, a := range h.feet {
				for _, b := range o.feet {
					if !apart(a, b, footClear) {
						return false
					}
				}
			}
		}
		return true
	}
	ok = true
	for _, gs := range seats {
		if gs.Seat < 1 || gs.Seat > len(l.Seats) {
			continue
		}
		s := l.Seats[gs.Seat-1]
		sl := []float64{0}
		for _, h := range gs.Hands[min(1, len(gs.Hands)):] {
			from := 0.0
			if h.SplitFrom >= 0 && h.SplitFrom < len(sl) {
				from = sl[h.SplitFrom]
			}
			order := slotOrder
			slices.SortStableFunc(order[:], func(a, b float64) int {
				return cmp.Compare(math.Abs(a-from), math.Abs(b-from))
			})
			best, found := math.NaN(), false
			for _, k := range order {
				if slices.Contains(sl, k) || !onFelt(l, s, k) {
					continue
				}
				if math.IsNaN(best) {
					best = k
				}
				if math.Abs(k-from) <= 2 && fits(lay(s, k)) {
					best, found = k, true
					break
				}
			}
			if math.IsNaN(best) { // every slot on the felt taken: past the end
				best = order[slices.IndexFunc(order[:], func(k float64) bool { return !slices.Contains(sl, k) })]
			}
			ok = ok && found
			sl = append(sl, best)
			hands = append(hands, lay(s, best))
		}
		slots[gs.Seat] = sl
	}
	return slots, ok
}

// footprint returns the cards that a hand at split offset k of seat s
// may cover, as laid without Pose's small offset and turn: footCards
// cards laid flat, each a Step on from the last, and a double turned
// sideways across its first two.
func footprint(l *scene.Layout, s scene.Seat, k float64) [][4]scene.Point {
	c := splitCenter(l, s, k)
	feet := make([][4]scene.Point, 0, footCards+1)
	for i := range footCards {
		feet = append(feet, scene.Pose{Center: c.Add(s.Step.Scale(float64(i))), RotDeg: s.FirstCard.RotDeg}.Corners())
	}
	double := scene.Pose{Center: c.Add(s.Step.Scale(2.6)), RotDeg: s.FirstCard.RotDeg + 90}
	return append(feet, double.Corners())
}

// apart reports whether the convex quadrilaterals a and b lie at least
// gap apart along the normal of one of their edges (the separating axis
// test, with a margin).
func apart(a, b [4]scene.Point, gap float64) bool {
	for _, q := range [2][4]scene.Point{a, b} {
		for i := range q {
			ex, ey := q[(i+1)%4].X-q[i].X, q[(i+1)%4].Y-q[i].Y
			n := math.Hypot(ex, ey)
			if n == 0 {
				continue
			}
			nx, ny := -ey/n, ex/n
			alo, ahi := span(a, nx, ny)
			blo, bhi := span(b, nx, ny)
			if alo-bhi >= gap || blo-ahi >= gap {
				return true
			}
		}
	}
	return false
}

// span projects q onto the unit vector (nx, ny).
func span(q [4]scene.Point, nx, ny float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range q {
		d := p.X*nx + p.Y*ny
		lo, hi = min(lo, d), max(hi, d)
	}
	return lo, hi
}

// isEnd reports whether s is one of the table's two end seats.
func isEnd(l *scene.Layout, s scene.Seat) bool {
	return s.Number == 1 || s.Number == len(l.Seats)
}

// onFelt reports whether split offset k of seat s lies on the felt: not
// beyond an end seat's spot.
func onFelt(l *scene.Layout, s scene.Seat, k float64) bool {
	return !isEnd(l, s) || k >= 0
}

// splitCenter is where the first card of a hand at split offset k of seat
// s lies, as dealt flat. At the end seats a positive k points towards the
// table's middle.
func splitCenter(l *scene.Layout, s scene.Seat, k float64) scene.Point {
	off := s.SplitOffset.Scale(2 * k)
	if isEnd(l, s) && s.FirstCard.Center.X*s.SplitOffset.X > 0 {
		off = off.Scale(-1) // SplitOffset points away from the middle
	}
	return s.FirstCard.Center.Add(off)
}

// Room is the felt's room for split hands, for script.Config: a seat has
// room for another hand when handSlots finds every hand a place of its own.
func Room(l *scene.Layout) deal.Room {
	return func(r *game.Round, seat, from int) bool {
		seats := slices.Clone(r.Seats)
		for i := range seats {
			if seats[i].Seat == seat {
				seats[i].Hands = append(slices.Clone(seats[i].Hands), game.Hand{SplitFrom: from})
			}
		}
		_, ok := handSlots(l, seats)
		return ok
	}
}

// handCard is where card index (from 0) of hand `hand` of seat s lies, as
// dealt flat, in a round whose seats are as given (nil: a seat alone).
func handCard(l *scene.Layout, seats []game.Seat, s scene.Seat, hand, index int) scene.Point {
	slots, _ := handSlots(l, seats)
	k := 0.0
	if sl := slots[s.Number]; hand < len(sl) {
		k = sl[hand]
	} else if hand > 0 {
		k = slotOrder[min(hand, len(slotOrder))-1]
	}
	return splitCenter(l, s, k).Add(s.Step.Scale(float64(index)))
}

// Pose returns where a card lies on the table in placement p.
func Pose(l *scene.Layout, p script.Placement) scene.Pose {
	c := p.Card
	var pose scene.Pose
	if c.Seat == 0 {
		pose = l.Dealer.CardPose(p.Index)
	} else {
		s := l.Seats[c.Seat-1]
		pose = scene.Pose{
			Center: handCard(l, p.Seats, s, p.Hand, p.Index),
			RotDeg: s.FirstCard.RotDeg,
		}
		if c.Sideways {
			pose.Center = pose.Center.Add(s.Step.Scale(0.6))
		}
	}
	// Dealers do not lay cards exactly: a small offset and turn, fixed
	// for each card.
	h := splitmix(uint64(c.ID)*0x9e3779b97f4a7c15 + 1)
	pose.Center = pose.Center.Add(scene.Point{X: unit(h)*4 - 2, Y: unit(h>>21)*4 - 2})
	pose.RotDeg += unit(h>>42)*6 - 3
	return pose
}

// Placed returns the card as the scene draws it.
func Placed(l *scene.Layout, p script.Placement, deck string) scene.PlacedCard {
	return scene.PlacedCard{
		Card: p.Card.Card, Deck: deck, Pose: Pose(l, p),
		FaceDown: p.FaceDown, Sideways: p.Card.Sideways, Z: p.Card.ID,
	}
}

// ArmOver returns the dealer's hand reaching for the place an arm targets,
// from the dealer's side of the table.
func ArmOver(l *scene.Layout, a script.Arm, frame int) scene.Occluder {
	var target scene.Point
	if a.Seat == 0 {
		target = l.Dealer.CardPose(a.Index).Center
	} else {
		s := l.Seats[a.Seat-1]
		target = handCard(l, a.Seats, s, a.Hand, a.Index)
	}
	// The forearm comes from the dealer, behind the chip tray.
	dx, dy := target.X, target.Y-(l.Dealer.Tray[0].Y-150)
	from := math.Atan2(dx, -dy) * 180 / math.Pi
	// The palm covers the card, a little short of its centre; it drifts
	// as the dealer lets go.
	t := float64(frame-a.Start) / float64(max(1, a.End-a.Start))
	back := scene.Point{X: -dx, Y: -dy}.Scale(25 / math.Max(1, math.Hypot(dx, dy)))
	return scene.Occluder{
		Hand:    target.Add(back.Scale(1 + t)),
		FromDeg: from,
		Motion:  back.Scale(0.15),
	}
}

// Observations returns what a perfect vision would report at a frame:
// every card on the felt that the dealer's hand does not cover, read
// correctly with full confidence.
func Observations(l *scene.Layout, s *script.Script, frame int) vision.Frame {
	f := vision.Frame{Index: frame, Time: float64(frame) / s.FPS}
	arm, busy := s.ArmAt(frame)
	var hand scene.Point
	if busy {
		hand = ArmOver(l, arm, frame).Hand
		f.Busy = true
	}
	for _, p := range s.At(frame) {
		pose := Pose(l, p)
		if busy && math.Hypot(pose.Center.X-hand.X, pose.Center.Y-hand.Y) < 70 {
			continue // under the dealer's hand
		}
		o := vision.Observation{
			Card: p.Card.Card, Confidence: 1, FaceDown: p.FaceDown, Sideways: p.Card.Sideways,
			Center: calibration.Point{X: pose.Center.X, Y: pose.Center.Y}, Angle: pose.RotDeg,
		}
		if p.Card.Sideways {
			o.Angle += 90
		}
		if p.FaceDown {
			o.Card, o.Confidence = vision.Observation{}.Card, 1
		}
		eff := scene.PlacedCard{Pose: pose, Sideways: p.Card.Sideways}.EffectivePose()
		for i, q := range eff.Corners() {
			o.Quad[i] = calibration.Point{X: q.X, Y: q.Y}
		}
		f.Cards = append(f.Cards, o)
	}
	return f
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit maps the low 21 bits of h to [0, 1).
func unit(h uint64) float64 { return float64(h&(1<<21-1)) / (1 << 21) }

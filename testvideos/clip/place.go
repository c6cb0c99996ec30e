package clip

import (
	"math"

	"bjmonitor/calibration"
	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
	"bjmonitor/vision"
)

// handSlot is where a seat's n-th hand lies, in split offsets from the
// first: split hands go right, then left, then further right. Hands stay
// where they were put, as dealers leave them, so that nothing but the
// split card itself moves.
var handSlot = [...]float64{0, 1, -1, 2}

// handCard is where card index (from 0) of hand `hand` of seat s lies, as
// dealt flat: split hands go by handSlot, except at the two end seats,
// where the first split goes towards the table's middle, as there is no
// felt, and no camera view, beyond the end spot (a second re-split there
// has no room left inside the view).
func handCard(l *scene.Layout, s scene.Seat, hand, index int) scene.Point {
	off := s.SplitOffset.Scale(2 * handSlot[min(hand, len(handSlot)-1)])
	end := s.Number == 1 || s.Number == len(l.Seats)
	if end && s.FirstCard.Center.X*s.SplitOffset.X > 0 {
		off = off.Scale(-1) // SplitOffset points away from the middle
	}
	return s.FirstCard.Center.Add(off).Add(s.Step.Scale(float64(index)))
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
			Center: handCard(l, s, p.Hand, p.Index),
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
		target = handCard(l, s, a.Hand, a.Index)
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

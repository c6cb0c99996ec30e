package scene

import (
	"flag"
	"math/rand/v2"
	"os"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardart"

	"gocv.io/x/gocv"
)

var stillPath = flag.String("still", "", "write a 1080p still of a full table to this JPEG (testvideos/still.jpg)")

// fullTable returns a busy round: several seats with 2–4 overlapping cards,
// a split, a sideways double, the dealer's up card and hole card, and an
// arm reaching over one hand. Cards are turned and shifted a little, as
// dealt cards are.
func fullTable(l *Layout, rng *rand.Rand) ([]PlacedCard, []Occluder) {
	var out []PlacedCard
	jitter := func(p Pose) Pose {
		p.Center = p.Center.Add(Point{rng.Float64()*4 - 2, rng.Float64()*4 - 2})
		p.RotDeg += rng.Float64()*6 - 3
		return p
	}
	add := func(s Seat, hand, hands int, list string) {
		for i, c := range mustList(list) {
			out = append(out, PlacedCard{Card: c, Pose: jitter(s.CardPose(hand, hands, i)), Z: i})
		}
	}
	seat := func(n int) Seat { return l.Seats[n-1] }
	add(seat(1), 0, 1, "7S 7C")
	add(seat(2), 0, 1, "TD 2H 9C")
	add(seat(3), 0, 2, "8H 3D")
	add(seat(3), 1, 2, "8S KC 5H")
	add(seat(4), 0, 1, "6D 5C")
	out = append(out, PlacedCard{Card: cards.MustParse("9H"), Pose: jitter(seat(4).DoublePose(0, 1, 2)), Sideways: true, Z: 2})
	add(seat(5), 0, 1, "2C 3H 4S 9D")
	add(seat(7), 0, 1, "AS QD")
	d := l.Dealer
	out = append(out, PlacedCard{Card: cards.MustParse("7H"), Pose: jitter(d.CardPose(0))})
	out = append(out, PlacedCard{Pose: jitter(d.CardPose(1)), FaceDown: true, Z: 1})
	arm := Occluder{Hand: seat(5).CardPose(0, 1, 1).Center.Add(Point{-40, -95}), FromDeg: 25, Motion: Point{4, -2}}
	return out, []Occluder{arm}
}

func mustList(s string) []cards.Card {
	c, err := cards.ParseList(s)
	if err != nil {
		panic(err)
	}
	return c
}

// TestWriteStill renders the README's still when -still is given.
func TestWriteStill(t *testing.T) {
	if *stillPath == "" {
		t.Skip("no -still path")
	}
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer art.Close()
	rng := rand.New(rand.NewPCG(7, 11))
	s, err := New(DefaultConfig(), art, rng)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	placed, occ := fullTable(s.Layout(), rng)
	if err := s.SetCards(placed); err != nil {
		t.Fatal(err)
	}
	s.SetOccluders(occ)
	frame := gocv.NewMat()
	defer frame.Close()
	if err := s.Render(&frame, 0); err != nil {
		t.Fatal(err)
	}
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, frame, []int{gocv.IMWriteJpegQuality, 82})
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	if err := os.WriteFile(*stillPath, buf.GetBytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", *stillPath, buf.Len())
}

package vision_test

import (
	"slices"
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/testvideos/scene"
	"bjmonitor/vision"
)

// TestUnreadCardsSeen renders cards on the 1080p view and reads them with
// a model that reads nothing (a deck it was never shown): a card lying
// uncovered is still seen, unread, where it lies; the felt with its
// marks and printing, and the cards' overlaps, show no card that is not
// there. A number card that no other covers is known by the rank its
// pips count; one covered is not counted: in the dealer's row, the first
// card's column of pips and the second's make an 8's layout.
func TestUnreadCardsSeen(t *testing.T) {
	st := loneCardStage(t, "")
	l := st.sc.Layout()
	seat := l.Seats[0]
	hand := func(n int) []scene.PlacedCard {
		var out []scene.PlacedCard
		for i := range n {
			out = append(out, scene.PlacedCard{Card: cards.New(cards.Rank(2+i), cards.Hearts), Pose: seat.CardPose(0, 1, i), Z: i})
		}
		return out
	}
	row := func(n int) []scene.PlacedCard {
		var out []scene.PlacedCard
		for i := range n {
			out = append(out, scene.PlacedCard{Card: cards.New(cards.Rank(9+i), cards.Clubs), Pose: l.Dealer.CardPose(i), Z: i})
		}
		return out
	}
	tests := []struct {
		name   string
		placed []scene.PlacedCard
		unread []int // the cards of placed that must be seen, unread
		// counted: those of them a number card, whole: known by their
		// rank alone (their pips counted), where the rest are unread.
		counted []int
	}{
		{"the felt alone", nil, nil, nil},
		{"a lone card", hand(1), []int{0}, []int{0}},
		{"a hand of two: the card on top", hand(2), []int{1}, []int{1}},
		{"a hand of three: the card on top", hand(3), []int{2}, []int{2}},
		{"the dealer's up card", row(1), []int{0}, []int{0}},
		{"the dealer's row of three: the card on top", row(3), []int{2}, nil}, // a jack
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			det, err := vision.NewDetector(st.cal, noneReader{}, vision.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer det.Close()
			if err := st.sc.SetCards(tt.placed); err != nil {
				t.Fatal(err)
			}
			st.sc.SetOccluders(nil)
			if err := st.sc.Render(&st.frame, 0); err != nil {
				t.Fatal(err)
			}
			got, err := det.Detect(st.frame, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			centre := func(p scene.PlacedCard) calibration.Point {
				return calibration.Point{X: p.Pose.Center.X, Y: p.Pose.Center.Y}
			}
			for _, o := range got.Cards {
				ok := false // unread, or known by the rank of a card counted
				for i, p := range tt.placed {
					ok = ok || vision.Dist(o.Center, centre(p)) < 8 && !o.FaceDown &&
						(o.Card == cards.Card{} && o.Confidence == 0 && !slices.Contains(tt.counted, i) ||
							o.Card == cards.Card{Rank: p.Card.Rank} && slices.Contains(tt.counted, i))
				}
				if !ok {
					t.Errorf("seen %v (face down %v, confidence %.2f) at (%.0f, %.0f), where no card lies unread", o.Card, o.FaceDown, o.Confidence, o.Center.X, o.Center.Y)
				}
			}
			for _, i := range tt.unread {
				seen := false
				for _, o := range got.Cards {
					seen = seen || vision.Dist(o.Center, centre(tt.placed[i])) < 8
				}
				if !seen {
					t.Errorf("card %d at (%.0f, %.0f) not seen: %+v", i, tt.placed[i].Pose.Center.X, tt.placed[i].Pose.Center.Y, got.Cards)
				}
			}
			t.Logf("%d cards placed, %d seen", len(tt.placed), len(got.Cards))
		})
	}
}

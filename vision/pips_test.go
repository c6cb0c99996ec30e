package vision_test

import (
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/testvideos/scene"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// misreader reads as its model does, but every card of rank from as the
// same suit's rank to, surely: an index font the model gets wrong.
type misreader struct {
	model    vision.Reader
	from, to cards.Rank
}

func (m misreader) Classify(crops []gocv.Mat) ([]classify.Result, error) {
	res, err := m.model.Classify(crops)
	for i := range res {
		if res[i].Card.Valid() && res[i].Card.Rank == m.from {
			res[i].Card.Rank, res[i].Confidence = m.to, 0.95
		}
	}
	return res, err
}

// TestPipsPutTheRankRight: with Options.CountPips, a card lying whole
// whose index is misread surely is read by its pips, for review (below
// vision.Confident); a court card misread has no pips to say otherwise
// and stays as read.
func TestPipsPutTheRankRight(t *testing.T) {
	st := loneCardStage(t, "dondorf")
	model := openReader(t)
	centre := scene.Point{X: 505, Y: 276}
	for _, tc := range []struct {
		card     cards.Card
		from, to cards.Rank
		want     cards.Card
		sure     bool // the reading stays vision.Confident or more
	}{
		{cards.New(cards.Ten, cards.Hearts), cards.Ten, cards.Nine, cards.New(cards.Ten, cards.Hearts), false},
		{cards.New(cards.Six, cards.Clubs), cards.Six, cards.Nine, cards.New(cards.Six, cards.Clubs), false},
		{cards.New(cards.King, cards.Spades), cards.King, cards.Queen, cards.New(cards.Queen, cards.Spades), true},
	} {
		for _, deg := range []float64{0, 37, 90, 151} {
			opts := vision.DefaultOptions()
			opts.CountPips = true
			got := st.detectAlone(t, misreader{model: model, from: tc.from, to: tc.to}, opts,
				scene.PlacedCard{Card: tc.card, Pose: scene.Pose{Center: centre, RotDeg: deg}})
			var seen []vision.Observation
			for _, o := range got.Cards {
				if vision.Dist(o.Center, calibration.Point{X: centre.X, Y: centre.Y}) < 8 {
					seen = append(seen, o)
				}
			}
			if len(seen) != 1 || seen[0].Card != tc.want || (seen[0].Confidence >= vision.Confident) != tc.sure {
				t.Errorf("%v turned %.0f°, its index read %v: got %+v, want %v (sure %v)", tc.card, deg, cards.New(tc.to, tc.card.Suit), seen, tc.want, tc.sure)
			}
		}
	}
}

// blindReader reads no index at all: a font the model has never seen.
type blindReader struct{ model vision.Reader }

func (b blindReader) Classify(crops []gocv.Mat) ([]classify.Result, error) {
	res, err := b.model.Classify(crops)
	for i := range res {
		if res[i].Card.Valid() {
			res[i].Card = cards.Card{}
		}
	}
	return res, err
}

// TestPipsNameAnUnreadCard: with Options.CountPips, a card lying whole
// whose index the model cannot read is known by the rank its pips count
// alone, for review (below vision.Confident); a court card has no pips
// to count and stays unread, as does every card without CountPips.
func TestPipsNameAnUnreadCard(t *testing.T) {
	st := loneCardStage(t, "dondorf")
	reader := blindReader{openReader(t)}
	centre := scene.Point{X: 505, Y: 276}
	for _, tc := range []struct {
		card cards.Card
		pips bool
		want cards.Card
		conf float64
	}{
		{cards.New(cards.Eight, cards.Hearts), true, cards.Card{Rank: cards.Eight}, 0.7},
		{cards.New(cards.Three, cards.Clubs), true, cards.Card{Rank: cards.Three}, 0.7},
		{cards.New(cards.King, cards.Spades), true, cards.Card{}, 0},
		{cards.New(cards.Eight, cards.Hearts), false, cards.Card{}, 0},
	} {
		for _, deg := range []float64{0, 37, 90, 151} {
			opts := vision.DefaultOptions()
			opts.CountPips = tc.pips
			got := st.detectAlone(t, reader, opts, scene.PlacedCard{Card: tc.card, Pose: scene.Pose{Center: centre, RotDeg: deg}})
			var seen []vision.Observation
			for _, o := range got.Cards {
				if vision.Dist(o.Center, calibration.Point{X: centre.X, Y: centre.Y}) < 8 {
					seen = append(seen, o)
				}
			}
			if len(seen) != 1 || seen[0].Card != tc.want || seen[0].Confidence != tc.conf || seen[0].FaceDown {
				t.Errorf("%v turned %.0f°, pips counted %v: got %+v, want %v at %v", tc.card, deg, tc.pips, seen, tc.want, tc.conf)
			}
		}
	}
}

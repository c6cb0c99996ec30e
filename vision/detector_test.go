package vision_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/clip"
	"bjmonitor/testvideos/scene"
	"bjmonitor/testvideos/script"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// The shipped reader: the fast model reads every crop, the careful one
// those the fast one is unsure of (classify.Cascade).
var (
	modelPath     = filepath.Join("..", "models", "cardindex", "cardindex.onnx")
	fastModelPath = filepath.Join("..", "models", "cardindex", "cardindex-fast.onnx")
	suitsPath     = filepath.Join("..", "models", "pipsuit", "pipsuit.onnx")
)

// openReader opens the shipped reader; the test closes it.
func openReader(tb testing.TB) *classify.Cascade {
	tb.Helper()
	return openCascade(tb, classify.DefaultRecheckBelow)
}

// openCascade opens the shipped model cascade, the careful model reading
// again each crop the fast one reads below below; the test's cleanup
// closes it.
func openCascade(tb testing.TB, below float64) *classify.Cascade {
	tb.Helper()
	c, err := classify.OpenCascade(fastModelPath, modelPath, below)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// openSuits opens the pip suit model the monitor runs with; the test's
// cleanup closes it.
func openSuits(tb testing.TB) *classify.PipSuits {
	tb.Helper()
	p, err := classify.OpenPipSuits(suitsPath)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// loneCardStage is a stage of the 1080p view, for a test that lays its
// own cards (SetCards), of the given deck (the view's default if empty).
func loneCardStage(tb testing.TB, deck string) *stage {
	tb.Helper()
	cfg := script.DefaultConfig()
	cfg.Rounds = 1
	view := scene.DefaultConfig()
	if deck != "" {
		view.Deck = deck
	}
	view.Camera.Width, view.Camera.Height = 1920, 1080
	return newStage(tb, cfg, view)
}

// stage renders frames of a scripted clip without writing a video.
type stage struct {
	s     *script.Script
	sc    *scene.Scene
	art   *cardart.Art
	cal   *calibration.Calibration
	deck  string
	frame gocv.Mat
}

func newStage(tb testing.TB, cfg script.Config, view scene.Config) *stage {
	tb.Helper()
	art, err := cardart.New(cardart.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := scene.New(view, art, rand.New(rand.NewPCG(cfg.Seed, 7)))
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Room = clip.Room(sc.Layout()) // split hands where the felt has room, as clips do
	s, err := script.Write(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	st := &stage{s: s, sc: sc, art: art, deck: view.Deck, frame: gocv.NewMat()}
	tb.Cleanup(func() { st.frame.Close(); sc.Close(); art.Close() })
	path := filepath.Join(tb.TempDir(), "table.json")
	if err := sc.WriteCalibration(path); err != nil {
		tb.Fatal(err)
	}
	table, err := calibration.Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.render(0); err != nil {
		tb.Fatal(err)
	}
	st.cal, err = calibration.Solve(st.frame, table)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// loadBytes puts a frame rendered earlier back into the stage's frame.
func (st *stage) loadBytes(b []byte) error {
	m, err := gocv.NewMatFromBytes(st.frame.Rows(), st.frame.Cols(), gocv.MatTypeCV8UC3, b)
	if err != nil {
		return err
	}
	defer m.Close()
	m.CopyTo(&st.frame)
	return nil
}

// detectAlone renders the stage's table with only the cards placed,
// nothing over them, and returns what a new detector with reader and
// opts sees in that one frame.
func (st *stage) detectAlone(tb testing.TB, reader vision.Reader, opts vision.Options, placed ...scene.PlacedCard) vision.Frame {
	tb.Helper()
	det, err := vision.NewDetector(st.cal, reader, opts)
	if err != nil {
		tb.Fatal(err)
	}
	defer det.Close()
	if err := st.sc.SetCards(placed); err != nil {
		tb.Fatal(err)
	}
	st.sc.SetOccluders(nil)
	if err := st.sc.Render(&st.frame, 0); err != nil {
		tb.Fatal(err)
	}
	got, err := det.Detect(st.frame, 0, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return got
}

func (st *stage) render(f int) error {
	var placed []scene.PlacedCard
	for _, p := range st.s.At(f) {
		placed = append(placed, clip.Placed(st.sc.Layout(), p, st.deck))
	}
	if err := st.sc.SetCards(placed); err != nil {
		return err
	}
	if arm, ok := st.s.ArmAt(f); ok {
		st.sc.SetOccluders([]scene.Occluder{clip.ArmOver(st.sc.Layout(), arm, f)})
	} else {
		st.sc.SetOccluders(nil)
	}
	return st.sc.Render(&st.frame, f)
}

// tally counts card readings against the truth.
type tally struct {
	cards, correct, missed, wrong, confident, confidentWrong, sideways, sidewaysRight int
}

func (t tally) String() string {
	return fmt.Sprintf("%d cards: %.2f%% read right, %d missed, %d wrong; %.3f%% wrong among %d confident; sideways %d/%d",
		t.cards, 100*float64(t.correct)/float64(max(t.cards, 1)), t.missed, t.wrong,
		100*float64(t.confidentWrong)/float64(max(t.confident, 1)), t.confident, t.sidewaysRight, t.sideways)
}

// measure renders frames of a scripted clip where no hand covers the felt
// and checks each card once, the first time it lies uncovered.
func measure(tb testing.TB, deck string, width, height int, rounds int, seed uint64) tally {
	tb.Helper()
	cfg := script.DefaultConfig()
	cfg.Rounds, cfg.Seed = rounds, seed
	cfg.Players = []int{1, 2, 3, 4, 5, 6, 7}
	view := scene.DefaultConfig()
	view.Deck = deck
	view.Camera.Width, view.Camera.Height = width, height
	st := newStage(tb, cfg, view)
	clf := openReader(tb)
	det, err := vision.NewDetector(st.cal, clf, vision.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	defer det.Close()
	var t tally
	seen := map[int]bool{}
	for f := 0; f < st.s.Frames; f += 6 {
		if _, busy := st.s.ArmAt(f); busy {
			continue
		}
		todo := false
		for _, p := range st.s.At(f) {
			if !seen[p.Card.ID] && !p.FaceDown {
				todo = true
			}
		}
		if !todo {
			continue
		}
		if err := st.render(f); err != nil {
			tb.Fatal(err)
		}
		// The scene holds still for a few frames, as it does on video
		// once the dealer's hand has gone: the detector reads a changed
		// zone once it has settled.
		var got vision.Frame
		for k := 0; k <= vision.DefaultOptions().SettleFrames; k++ {
			if got, err = det.Detect(st.frame, f, 0); err != nil {
				tb.Fatal(err)
			}
		}
		want := clip.Observations(st.sc.Layout(), st.s, f)
		for i, p := range st.s.At(f) {
			if seen[p.Card.ID] || p.FaceDown {
				continue
			}
			seen[p.Card.ID] = true
			w := want.Cards[i]
			t.cards++
			best, bestD := -1, 12.0
			for j, g := range got.Cards {
				if d := vision.Dist(g.Center, w.Center); d < bestD && !g.FaceDown {
					best, bestD = j, d
				}
			}
			if p.Card.Sideways {
				t.sideways++
			}
			if best < 0 {
				t.missed++
				tb.Logf("%s frame %d: %v (seat %d hand %d index %d, sideways %v) at %.0f,%.0f missed", deck, f, w.Card, p.Card.Seat, p.Hand, p.Index, p.Card.Sideways, w.Center.X, w.Center.Y)
				if os.Getenv("VISION_DEBUG") != "" {
					gocv.IMWrite(fmt.Sprintf("/tmp/missed_%s_%d.png", deck, f), st.frame)
				}
				continue
			}
			g := got.Cards[best]
			if g.Confidence >= vision.Confident {
				t.confident++
			}
			if g.Card == w.Card {
				t.correct++
			} else {
				t.wrong++
				if g.Confidence >= vision.Confident {
					t.confidentWrong++
				}
				tb.Logf("%s frame %d: %v read as %v (%.3f)", deck, f, w.Card, g.Card, g.Confidence)
			}
			if p.Card.Sideways && g.Sideways {
				t.sidewaysRight++
			}
		}
	}
	return t
}

// TestReadsHeldOutDecks measures the reading of decks the model never saw
// in training, at 1080p and 4K, against the bars of DESIGN.md: 99.5% of
// cards read right, at most 0.1% wrong among confident reads.
func TestReadsHeldOutDecks(t *testing.T) {
	heldOut := openReader(t).Metadata().HeldOutDecks
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	var all tally
	for _, deck := range heldOut {
		for _, res := range []struct {
			name string
			w, h int
		}{{"1080p", 1920, 1080}, {"4K", 3840, 2160}} {
			t.Run(deck+"/"+res.name, func(t *testing.T) {
				got := measure(t, deck, res.w, res.h, rounds, 17)
				t.Log(got)
				all.cards += got.cards
				all.correct += got.correct
				all.missed += got.missed
				all.wrong += got.wrong
				all.confident += got.confident
				all.confidentWrong += got.confidentWrong
				all.sideways += got.sideways
				all.sidewaysRight += got.sidewaysRight
			})
		}
	}
	t.Log("all held-out decks:", all)
	if rate := float64(all.correct) / float64(max(all.cards, 1)); rate < 0.995 {
		t.Errorf("%.2f%% of cards read right, want at least 99.5%%", 100*rate)
	}
	if rate := float64(all.confidentWrong) / float64(max(all.confident, 1)); rate > 0.001 {
		t.Errorf("%.3f%% wrong among confident reads, want at most 0.1%%", 100*rate)
	}
	// Lying sideways is judged against the cards around, and a frame may
	// miss one of them; the tracker goes by most frames.
	if float64(all.sidewaysRight) < 0.9*float64(all.sideways) {
		t.Errorf("%d of %d doubled cards seen lying sideways, want 90%%", all.sidewaysRight, all.sideways)
	}
}

// TestLoneCardAtAnyAngle turns a lone card whose pips reach close to its
// edges (dondorf's T♥, at seat 1 of the 1080p view) through half a turn: at
// every angle it is seen and read. Where a pip touches the edge it
// notches the paper's outline, and the card must still count as lying on
// its paper (seed 2204 round 1001, where it went unseen for four seconds).
func TestLoneCardAtAnyAngle(t *testing.T) {
	st := loneCardStage(t, "dondorf")
	clf := openReader(t)
	th := cards.New(cards.Ten, cards.Hearts)
	centre := scene.Point{X: 505, Y: 276}
	missed := 0
	for deg := 0.0; deg < 180; deg += 3 {
		det, err := vision.NewDetector(st.cal, clf, vision.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.sc.SetCards([]scene.PlacedCard{{Card: th, Pose: scene.Pose{Center: centre, RotDeg: deg}}}); err != nil {
			t.Fatal(err)
		}
		st.sc.SetOccluders(nil)
		if err := st.sc.Render(&st.frame, 0); err != nil {
			t.Fatal(err)
		}
		// As the video encoder leaves it: softer, the pips' red bleeding
		// into the margin.
		buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, st.frame, []int{gocv.IMWriteJpegQuality, 40})
		if err != nil {
			t.Fatal(err)
		}
		soft, err := gocv.IMDecode(buf.GetBytes(), gocv.IMReadColor)
		buf.Close()
		if err != nil {
			t.Fatal(err)
		}
		soft.CopyTo(&st.frame)
		soft.Close()
		got, err := det.Detect(st.frame, 0, 0)
		det.Close()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, o := range got.Cards {
			found = found || vision.Dist(o.Center, calibration.Point{X: centre.X, Y: centre.Y}) < 8 && o.Card == th
		}
		if !found {
			missed++
			t.Errorf("at %.0f°: %v not seen (%+v)", deg, th, got.Cards)
		}
	}
	t.Logf("%d of 60 angles missed", missed)
}

// TestMarksAreNotCards: the reference marks' white quiet zones look like
// paper, but no crop is cut at them; a card lying over a mark is read.
func TestMarksAreNotCards(t *testing.T) {
	st := loneCardStage(t, "")
	clf := openReader(t)
	marks := st.cal.Table.Marks
	if len(marks) == 0 {
		t.Fatal("the scene has no reference marks")
	}
	detect := func(cs []scene.PlacedCard) (vision.Frame, int) {
		t.Helper()
		det, err := vision.NewDetector(st.cal, clf, vision.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		defer det.Close()
		if err := st.sc.SetCards(cs); err != nil {
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
		return got, det.Stats().Crops
	}
	if got, crops := detect(nil); crops != 0 || len(got.Cards) != 0 {
		t.Errorf("empty felt: %d crops read, %d cards seen, want none", crops, len(got.Cards))
	}
	qs := cards.New(cards.Queen, cards.Spades)
	for _, m := range marks {
		centre := scene.Point{X: m.Center.X, Y: m.Center.Y}
		got, _ := detect([]scene.PlacedCard{{Card: qs, Pose: scene.Pose{Center: centre, RotDeg: 10}}})
		found := false
		for _, o := range got.Cards {
			found = found || o.Card == qs && vision.Dist(o.Center, m.Center) < 8
		}
		seat, dealer := st.cal.Table.ZoneAt(m.Center)
		t.Logf("mark %d at (%.0f, %.0f): seat %d, dealer %v: card seen %v", m.ID, m.Center.X, m.Center.Y, seat, dealer, found)
		if !found && (seat > 0 || dealer) { // only zones are looked at
			t.Errorf("a %v over mark %d at (%.0f, %.0f) was not seen: %+v", qs, m.ID, m.Center.X, m.Center.Y, got.Cards)
		}
	}
}

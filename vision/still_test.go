package vision_test

import (
	"flag"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/still"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// The still-picture accuracy measurement: -stills N renders N pictures a
// deck (the test's own few when 0), -stills.decks the decks (comma
// separated; kde:<name> for the acceptance decks, measured and reported,
// never tuned on).
var (
	stillsN     = flag.Int("stills", 0, "pictures a deck for TestStillAccuracy (0: the quick set)")
	stillsDecks = flag.String("stills.decks", "", "decks for TestStillAccuracy, comma separated (default: the models' held-out gnome decks)")
	stillsSeed  = flag.Uint64("stills.seed", 1000, "seed of the first picture")
	stillsScale = flag.Bool("stills.scale", false, "give the reader each picture's scale, as --px-per-mm does")
	stillsSuits = flag.Bool("stills.suits", true, "read the pips' suits, as monitor read does by default (false: as with vision.suits_model \"\")")
)

// quickBar is the share (%) of face-up cards the quick set must find,
// and of those read right: three misses in its some 70 cards fail it.
const quickBar = 96.0

// stillScore counts one deck's pictures.
type stillScore struct {
	pictures, faceUp, found, right, confident, confidentWrong int
	// extra counts the face-up readings that are no card's nearest: a
	// card read twice, or something read where no card lies.
	extra  int
	misses []string
}

func (s *stillScore) add(o stillScore) {
	s.pictures += o.pictures
	s.faceUp, s.found, s.right = s.faceUp+o.faceUp, s.found+o.found, s.right+o.right
	s.confident, s.confidentWrong = s.confident+o.confident, s.confidentWrong+o.confidentWrong
	s.extra += o.extra
	s.misses = append(s.misses, o.misses...)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// openStillReader opens the model cascade as monitor read does
// (vision.StillRecheckBelow); the test's cleanup closes it.
func openStillReader(tb testing.TB) *classify.Cascade {
	tb.Helper()
	return openCascade(tb, vision.StillRecheckBelow)
}

// scoreStill matches what was read with the truth: a card is found when
// an observation's centre in the picture lies within a quarter of the
// card's short side of the card's own centre, and the nearest such
// observation is its reading (a hand's cards lie some 25 mm apart). A confident reading
// (vision.Confident or more) is wrong when it is not the card it lies
// on, or lies on no face-up card; a card known by its rank alone is read
// right by no one, and wrong when its rank is.
func scoreStill(name string, st *still.Still, got vision.Still) stillScore {
	var sc stillScore
	sc.pictures = 1
	used := make([]bool, len(got.Cards))
	for _, c := range st.Cards {
		if c.FaceDown || !c.Inside {
			continue
		}
		sc.faceUp++
		tx, ty := quadCentre(c.Quad)
		best, bestD := -1, foundWithin(c.Quad)
		for i, o := range got.Cards {
			x, y := quadCentre(pixelQuad(o.ImageQuad))
			if d := math.Hypot(x-tx, y-ty); d < bestD {
				best, bestD = i, d
			}
		}
		if best < 0 {
			sc.misses = append(sc.misses, fmt.Sprintf("%s: %v at (%.0f, %.0f) not found", name, c.Card, tx, ty))
			continue
		}
		used[best] = true
		sc.found++
		o := got.Cards[best]
		if o.Card == c.Card {
			sc.right++
		} else {
			sc.misses = append(sc.misses, fmt.Sprintf("%s: %v at (%.0f, %.0f) read %v at %.2f", name, c.Card, tx, ty, o.Card, o.Confidence))
		}
		if o.Confidence >= vision.Confident && !o.FaceDown {
			sc.confident++
			if o.Card != c.Card && o.Card != (cards.Card{Rank: c.Card.Rank}) {
				sc.confidentWrong++
			}
		}
	}
	for i, o := range got.Cards {
		if !used[i] && !o.FaceDown && !onUncounted(st, o) {
			sc.extra++
		}
		if used[i] || o.FaceDown || o.Confidence < vision.Confident || !o.Card.Rank.Valid() {
			continue
		}
		// A confident card where no face-up card lies whole: a card cut
		// by the picture's edge, found as a whole card is (within a
		// quarter of its short edge), or a reading of something else.
		x, y := quadCentre(pixelQuad(o.ImageQuad))
		onCard := false
		for _, c := range st.Cards {
			tx, ty := quadCentre(c.Quad)
			if math.Hypot(x-tx, y-ty) < foundWithin(c.Quad) && (o.Card == c.Card || o.Card == cards.Card{Rank: c.Card.Rank}) {
				onCard = true
			}
		}
		if !onCard {
			sc.confident++
			sc.confidentWrong++
			sc.misses = append(sc.misses, fmt.Sprintf("%s: %v read at %.2f at (%.0f, %.0f), where no such card lies", name, o.Card, o.Confidence, x, y))
		}
	}
	return sc
}

// quadCentre is the mean of a quad's corners.
func quadCentre(q [4][2]float64) (float64, float64) {
	return (q[0][0] + q[1][0] + q[2][0] + q[3][0]) / 4, (q[0][1] + q[1][1] + q[2][1] + q[3][1]) / 4
}

// pixelQuad is an observation's image quad as the truth's quads are
// written.
func pixelQuad(q [4]calibration.Point) [4][2]float64 {
	var out [4][2]float64
	for i, p := range q {
		out[i] = [2]float64{p.X, p.Y}
	}
	return out
}

// onUncounted reports whether reading o lies on a card of st that is not
// counted among the face-up cards: one the picture's edge cuts, or one
// lying face down.
func onUncounted(st *still.Still, o vision.Observation) bool {
	x, y := quadCentre(pixelQuad(o.ImageQuad))
	for _, c := range st.Cards {
		tx, ty := quadCentre(c.Quad)
		if (c.FaceDown || !c.Inside) && math.Hypot(x-tx, y-ty) < foundWithin(c.Quad) {
			return true
		}
	}
	return false
}

// foundWithin is how far from the centre of a card, outlined by quad in
// the picture, a reading's centre may lie and be of that card: a quarter
// of its short edge.
func foundWithin(quad [4][2]float64) float64 {
	return math.Hypot(quad[1][0]-quad[0][0], quad[1][1]-quad[0][1]) / 4
}

// readRendered renders the still of deck and seed, reads it as monitor
// read does, logs and returns its score.
func readRendered(t *testing.T, reader vision.Reader, suits vision.SuitReader, deck string, seed uint64) stillScore {
	t.Helper()
	newArt := cardart.New
	if strings.HasPrefix(deck, cardart.AcceptancePrefix) {
		newArt = cardart.NewAcceptance // measured, never tuned on
	}
	art, err := newArt(cardart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer art.Close()
	st, err := still.Render(still.Options{Art: art, Deck: deck, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Image.Close()
	px := 0.0
	if *stillsScale {
		px = st.PxPerMM
	}
	got, err := vision.ReadStill(st.Image, nil, reader, suits, px)
	if err != nil {
		t.Errorf("%s seed %d: %v", deck, seed, err)
		got = vision.Still{} // every card missed
	}
	name := fmt.Sprintf("%s seed %d (%.2f px/mm, tilt %.0f°, est. %.2f px/mm, %d/%d corners)", deck, seed, st.PxPerMM, st.TiltDeg, got.Plane.PxPerMM, got.Plane.Agreeing, got.Plane.Corners)
	sc := scoreStill(name, st, got)
	t.Logf("%s: %d face-up, %d found, %d right, %d of %d confident wrong", name, sc.faceUp, sc.found, sc.right, sc.confidentWrong, sc.confident)
	for _, m := range sc.misses {
		t.Log("  ", m)
	}
	return sc
}

// TestStillAccuracy renders stills of dealt tables (no marks, 1.2–2.5
// px/mm, tilted up to 30°, every camera fault of package camfx) with
// decks the model never trained on, reads them as monitor read does (no
// calibration, no scale given) and fails below the bars: with -stills N
// (the measurement, 100 pictures or more, models/README.md), the
// issue's 99% of face-up cards found, 99% of those read right; on the
// quick set of a few dozen cards, where one miss is 1.4%, below
// quickBar, to catch a regression. No confident wrong reading, ever.
func TestStillAccuracy(t *testing.T) {
	n := *stillsN
	decks := []string{"dondorf", "neoclassical", "tigullio"}
	if n == 0 {
		n = 2
		if testing.Short() {
			n = 1
		}
	}
	if *stillsDecks != "" {
		decks = strings.Split(*stillsDecks, ",")
	}
	reader := openStillReader(t)
	var suits vision.SuitReader = openSuits(t)
	if !*stillsSuits {
		suits = nil
	}
	var all stillScore
	per := map[string]stillScore{}
	// Picture by picture, each deck in turn: a run stopped early has
	// measured every deck alike.
	for i := range n {
		for _, deck := range decks {
			sc := readRendered(t, reader, suits, deck, *stillsSeed+uint64(i))
			ds := per[deck]
			ds.add(sc)
			per[deck] = ds
			all.add(sc)
		}
	}
	sort.Strings(decks)
	t.Logf("| deck | pictures | face-up cards | found | read right | confident wrong |")
	for _, d := range append(decks, "all") {
		s := per[d]
		if d == "all" {
			s = all
		}
		t.Logf("| %s | %d | %d | %.1f%% | %.1f%% | %d of %d |", d, s.pictures, s.faceUp, pct(s.found, s.faceUp), pct(s.right, s.found), s.confidentWrong, s.confident)
	}
	for _, m := range all.misses {
		t.Log(m)
	}
	t.Logf("%d face-up readings no card's nearest (a card read twice, or a reading where none lies)", all.extra)
	bar := 99.0
	if *stillsN == 0 {
		bar = quickBar
	}
	if f := pct(all.found, all.faceUp); f < bar {
		t.Errorf("found %.1f%% of face-up cards, want ≥ %g%%", f, bar)
	}
	if r := pct(all.right, all.found); r < bar {
		t.Errorf("read %.1f%% of the cards found right, want ≥ %g%%", r, bar)
	}
	if all.confidentWrong > 0 {
		t.Errorf("%d confident wrong readings, want none", all.confidentWrong)
	}
}

// TestStillOneHand reads stills whose only cards are one hand of three,
// fanned, 28° oblique (seed 1046). Each card must be read right, and
// confidently.
//   - tigullio: all its corners lie turned alike in a small part of the
//     picture, so the right angles alone do not fix the plane (the plane
//     they alone gave stretched a card to nearly twice its proportions,
//     and the hand was read at 1.94 px/mm: no card right, two
//     confidently wrong).
//   - tango: no edge suggests a scale, and the sweep's nearest scale,
//     2.44 px/mm, reads the top card alone at both corners; at 2.75, the
//     scale that card measures, it alone pairs (the others' far corners
//     read unsurely), and no scale was found.
func TestStillOneHand(t *testing.T) {
	reader, suits := openStillReader(t), openSuits(t)
	for _, deck := range []string{"tigullio", "tango"} {
		t.Run(deck, func(t *testing.T) {
			sc := readRendered(t, reader, suits, deck, 1046)
			if sc.faceUp != 3 || sc.right != 3 || sc.confident != 3 || sc.confidentWrong != 0 {
				t.Errorf("%d face-up cards, %d read right, %d confidently, %d confident wrong; want 3 right, 3 confidently, none wrong", sc.faceUp, sc.right, sc.confident, sc.confidentWrong)
			}
		})
	}
}

// TestStillUprightIndex reads stills of decks that print their second
// index upright, where a card's far corner reads upside down (a nine as
// a six) and seldom pairs with its first.
//   - proc:4u seed 1035 (1.56 px/mm, 4° oblique, ten face-up cards in
//     three hands): no card pairs at any scale, and below its scale each
//     card's two corners read as two cards, which reads better: the
//     scale must come from the paper the cards' outlines cover (it was
//     read at 1.02 px/mm: no card found, seven confident wrong readings).
//   - proc:2u seed 1049 (2.23 px/mm, 25° oblique, four face-up cards
//     whole, and cards cut by the picture's edges): one card pairs at its
//     scale, and at 1.88 px/mm two cards seemed to, each one corner found
//     twice; it was read there, three cards wrong and confidently so.
//   - proc:4u seed 1049 (the same scene): no card lies whole, and the
//     plane, held to the picture's proportions, showed the cards 68 × 84
//     mm in the middle and 56 × 76 at the left at one scale; no card
//     paired at any scale, and it was read 13% under its scale, one
//     reading confidently wrong. The plane must take a card's
//     proportions from the edges that show whole.
//
// Every card must be found, all but one read right, none confidently
// wrong.
func TestStillUprightIndex(t *testing.T) {
	reader, suits := openStillReader(t), openSuits(t)
	for _, tc := range []struct {
		deck string
		seed uint64
	}{{"proc:4u", 1035}, {"proc:2u", 1049}, {"proc:4u", 1049}} {
		t.Run(fmt.Sprintf("%s/%d", tc.deck, tc.seed), func(t *testing.T) {
			sc := readRendered(t, reader, suits, tc.deck, tc.seed)
			if sc.found != sc.faceUp || sc.right < sc.faceUp-1 || sc.confidentWrong != 0 {
				t.Errorf("%d face-up cards, %d found, %d read right, %d confident wrong; want all found, all but one right, none wrong", sc.faceUp, sc.found, sc.right, sc.confidentWrong)
			}
		})
	}
}

// TestStillCutByEdge reads a still with cards cut by the picture's edge
// (proc:5 seed 1049, 2.23 px/mm, 25° oblique): the 2♥ at its left edge,
// its outline closed by the edge, was read at a corner on the edge,
// turned 15° from the card, and placed 29 px off, a confident reading
// where no such card lies. Every card lying whole must be read right,
// and nothing read confidently where it does not lie.
func TestStillCutByEdge(t *testing.T) {
	sc := readRendered(t, openStillReader(t), openSuits(t), "proc:5", 1049)
	if sc.right != sc.faceUp || sc.confidentWrong != 0 {
		t.Errorf("%d face-up cards, %d read right, %d confident wrong; want all right, none wrong", sc.faceUp, sc.right, sc.confidentWrong)
	}
}

// TestStillBackCutByEdge reads a still whose dealer's hole card lies
// over all but the index of the up card, a J♦, and runs off the top of
// the picture (the layout of seed 1079, dealt from proc:1: 2.30 px/mm,
// 25° oblique). The paper mask sees the back's white margin but not the
// back it rings, which the picture's edge leaves open, so the J♦'s body
// lay on felt and its reading, sure, was dropped. Every face-up card
// must be found and read right.
func TestStillBackCutByEdge(t *testing.T) {
	sc := readRendered(t, openStillReader(t), openSuits(t), "proc:1", 1079)
	if sc.found != sc.faceUp || sc.right != sc.faceUp || sc.confidentWrong != 0 {
		t.Errorf("%d face-up cards, %d found, %d read right, %d confident wrong; want all found and right, none wrong", sc.faceUp, sc.found, sc.right, sc.confidentWrong)
	}
}

// TestStillWideCorners reads a still whose corners, taken where their
// roundings are short, fix no plane: proc:3 seed 5000 (1.81 px/mm, 21°
// oblique, four hands of two cards). Sixteen corners were found, nine
// agreeing on right angles that make no plane, and the still was read
// as the picture's plane, one hand's 5♦ and Q♠ unread. Taken with
// their wide roundings too (FindPlane), 22 of 24 agree. Every face-up
// card must be found and read right.
func TestStillWideCorners(t *testing.T) {
	sc := readRendered(t, openStillReader(t), openSuits(t), "proc:3", 5000)
	if sc.found != sc.faceUp || sc.right != sc.faceUp || sc.confidentWrong != 0 {
		t.Errorf("%d face-up cards, %d found, %d read right, %d confident wrong; want all found and right, none wrong", sc.faceUp, sc.found, sc.right, sc.confidentWrong)
	}
}

// TestStillFramed reads stills of decks printed with a dark frame along
// their cards' edges (cardart.FrameSuffix), whose paper's outline runs
// along the frame's inside, each corner found 1.2 mm or more inside the
// card's own, where the crops cut from it may read none. proc:1f seed
// 5002 (1.45 px/mm, 20° oblique) read its 2♣ as 2♠ at 0.70; proc:4f
// 5002 lost its 2♣ and the Q♦ in the middle of the dealer's row, and
// was read at 1.38 px/mm. Every card must be found (but proc:4f's Q♦,
// still lost), proc:1f's read right, none confidently wrong.
func TestStillFramed(t *testing.T) {
	reader, suits := openStillReader(t), openSuits(t)
	for _, tc := range []struct {
		deck string
		lost int
	}{{"proc:1f", 0}, {"proc:4f", 1}} {
		t.Run(tc.deck, func(t *testing.T) {
			sc := readRendered(t, reader, suits, tc.deck, 5002)
			if sc.found < sc.faceUp-tc.lost || sc.confidentWrong != 0 {
				t.Errorf("%d face-up cards, %d found, %d confident wrong; want all but %d found, none wrong", sc.faceUp, sc.found, sc.confidentWrong, tc.lost)
			}
			if tc.lost == 0 && sc.right != sc.faceUp {
				t.Errorf("%d of %d read right, want all", sc.right, sc.faceUp)
			}
		})
	}
}

// TestStillSmallIndexPip reads stills whose clubs' index pips, some 4–9
// pixels across, the fast model took surely for spades: a 2♣ read as 2♠
// at 0.95 (proc:4 seed 5001, 1.70 px/mm, its far corner so too) and at
// 0.97 (proc:30 seed 5018, 1.66 px/mm, the dealer's up card, its hole
// card over all but the index), a 3♣ as 3♠ at 0.97 (proc:27 seed 5021,
// 1.22 px/mm). Read by both models (vision.StillRecheckBelow), the two
// 2♣ come right; the 3♣ is still read 3♠, at 0.87, but with some chance
// of clubs, and stands in doubt (doubtOtherSuit). No reading may be
// confidently wrong.
func TestStillSmallIndexPip(t *testing.T) {
	reader, suits := openStillReader(t), openSuits(t)
	for _, tc := range []struct {
		deck string
		seed uint64
	}{{"proc:4", 5001}, {"proc:30", 5018}, {"proc:27", 5021}} {
		t.Run(fmt.Sprintf("%s/%d", tc.deck, tc.seed), func(t *testing.T) {
			sc := readRendered(t, reader, suits, tc.deck, tc.seed)
			if sc.confidentWrong != 0 {
				t.Errorf("%d of %d confident readings wrong, want none", sc.confidentWrong, sc.confident)
			}
		})
	}
}

// TestStillPlaneStretched reads stills whose cards' corners leave their
// plane free to stretch along the cards' edges, so that cards are read
// at both index corners as two cards, the centres those give 12 mm or
// more apart (joinOpposite joins them within 12):
//   - proc:6 seed 5022 (1.78 px/mm, 5° oblique, most cards turned
//     alike): the plane showed the cards 9% narrower than they are at
//     the picture's centre and 16% at its left edge, where a 3♠ and the
//     K♠ over it, turned 25° from the rest, were each read twice: eleven
//     cards where nine lie. The plane refined (refinePlane, its Alt)
//     reads it better.
//   - proc:2 seed 5027 (2.48 px/mm, 26° oblique, four cards, none lying
//     whole): even the plane refined was stretched, every card read
//     twice at the true scale, and the still was read at 3.20 px/mm, its
//     A♥ as 9♥ at 0.96. The cards read twice hold the plane to their
//     proportions (withDiagonals); one card is still read twice, once in
//     doubt.
//
// Every card must be found and read right, none confidently wrong, and
// at most extra readings no card's nearest.
func TestStillPlaneStretched(t *testing.T) {
	reader, suits := openStillReader(t), openSuits(t)
	for _, tc := range []struct {
		deck  string
		seed  uint64
		extra int
	}{{"proc:6", 5022, 0}, {"proc:2", 5027, 1}} {
		t.Run(fmt.Sprintf("%s/%d", tc.deck, tc.seed), func(t *testing.T) {
			sc := readRendered(t, reader, suits, tc.deck, tc.seed)
			if sc.found != sc.faceUp || sc.right != sc.faceUp || sc.extra > tc.extra || sc.confidentWrong != 0 {
				t.Errorf("%d face-up cards, %d found, %d read right, %d read where no card lies or twice, %d confident wrong; want all found and right, at most %d more, none wrong", sc.faceUp, sc.found, sc.right, sc.extra, sc.confidentWrong, tc.extra)
			}
		})
	}
}

// TestStillPipsHidden reads stills where a card lies over the pips of
// another without a corner on its face (vision's TestLiesUnder), so
// that the pips in sight count a smaller rank than the card's index
// reads: a 3♥ under a sideways 4♠ (proc:30 seed 5019) and a 10♦ under a
// 6♥ laid up and along from it (proc:31 seed 5021) counted 2, and the
// dealer's 5♣ (proc:4 seed 5022), under a 4♦ itself under a 7♣, counted
// 4. Each was reported the rank its pips
// counted; each must keep its index's. proc:30 5019's K♣, read K♠ in
// doubt, is the one card left wrong.
func TestStillPipsHidden(t *testing.T) {
	reader, suits := openStillReader(t), openSuits(t)
	for _, tc := range []struct {
		deck  string
		seed  uint64
		wrong int
	}{{"proc:30", 5019, 1}, {"proc:31", 5021, 0}, {"proc:4", 5022, 0}} {
		t.Run(fmt.Sprintf("%s/%d", tc.deck, tc.seed), func(t *testing.T) {
			sc := readRendered(t, reader, suits, tc.deck, tc.seed)
			if sc.found != sc.faceUp || sc.right < sc.faceUp-tc.wrong || sc.confidentWrong != 0 {
				t.Errorf("%d face-up cards, %d found, %d read right, %d confident wrong; want all found, all but %d right, none wrong", sc.faceUp, sc.found, sc.right, sc.confidentWrong, tc.wrong)
			}
		})
	}
}

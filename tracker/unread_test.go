package tracker_test

import (
	"strconv"
	"strings"
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/evaluator"
	"bjmonitor/game"
	"bjmonitor/testvideos/scene"
	"bjmonitor/tracker"
	"bjmonitor/vision"
)

// TestUnreadCard deals a hand of seat 4 whose second card vision sees
// by its outline but cannot read (the zero Card, face up), and a dealer
// whose hole card may be turned unread: an unread card that lies still
// keeps its place in its hand and makes the hand doubtful, so that 21+3,
// which needs it, is left unjudged rather than judged on the hand's
// other cards (9S JD and the dealer's TC would make a straight); a later
// clear reading names it; a glimpse of one is no card; a hole card
// never turned stays face down, and one turned but unread is unread. A
// card whose pips vision counted ("8?", known by its rank alone) keeps
// its place with its rank, raises no doubt, and 21+3 is judged on it
// where its suit cannot change the hand.
func TestUnreadCard(t *testing.T) {
	turned := []sighting{{1, "XX", 0}, {1, "7H", 0}}
	tests := []struct {
		name       string
		second     []sighting // seat 4's second card, in turn
		hole       []sighting // the dealer's second card, in turn
		wantHand   string
		wantDealer string
		wantDoubt  string // "" for none
		want21p3   string // the 21+3 result, or "unjudged"
	}{
		{"unread all along", []sighting{{2, "", 0}}, turned, "9S ?? JD", "TC 7H", "seat 4 hand 0: card 2 lies face up but was never read", "unjudged"},
		{"unread, then read", []sighting{{1, "", 0}, {1, "4S", 0}}, turned, "9S 4S JD", "TC 7H", "", "lose"},
		{"read, then unread", []sighting{{1, "4S", 0}, {1, "", 0}}, turned, "9S 4S JD", "TC 7H", "", "lose"},
		{"an unread glimpse, then read", []sighting{{0.08, "", 0}, {2, "4S", 0}}, turned, "9S 4S JD", "TC 7H", "", "lose"},
		{"the hole card never turned", []sighting{{2, "4S", 0}}, []sighting{{2, "XX", 0}}, "9S 4S JD", "TC XX", "", "lose"},
		{"the hole card turned unread", []sighting{{2, "4S", 0}}, []sighting{{1, "XX", 0}, {1, "", 0}}, "9S 4S JD", "TC ??", "a dealer card was never read", "lose"},
		{"known by its rank alone", []sighting{{2, "8?", 0.9}}, turned, "9S 8? JD", "TC 7H", "", "straight"},
		{"known by its rank alone, then read", []sighting{{1, "8?", 0.9}, {1, "8D", 0}}, turned, "9S 8D JD", "TC 7H", "", "straight"},
		{"read, then known by its rank alone", []sighting{{1, "8D", 0}, {1, "8?", 0.9}}, turned, "9S 8D JD", "TC 7H", "", "straight"},
		{"read doubtfully, and by its rank", []sighting{{1, "8D", 0.45}, {1, "8?", 0.9}}, turned, "9S 8D JD", "TC 7H", "", "straight"},
		{"the hole card turned, known by its rank alone", []sighting{{2, "4S", 0}}, []sighting{{1, "XX", 0}, {1, "7?", 0.9}}, "9S 4S JD", "TC 7?", "", "lose"},
		{"read below Unreadable all along", []sighting{{2, "7D", 0.2}}, turned, "9S ?? JD", "TC 7H", "seat 4 hand 0: card 2 lies face up but was never read", "unjudged"},
		{"read below Unreadable, then read", []sighting{{1, "7D", 0.2}, {1, "4S", 0}}, turned, "9S 4S JD", "TC 7H", "", "lose"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := playSeat4(t, tt.second, tt.hole)
			var hand, dealer []string
			lowered := false // the hand's cards lowered to doubtful
			for p, c := range r.Cards() {
				if p.Hand < 0 {
					dealer = append(dealer, c.Text())
					continue
				}
				hand = append(hand, c.Text())
				lowered = lowered || c.Confidence <= 0.5
			}
			if got := strings.Join(hand, " "); got != tt.wantHand {
				t.Errorf("seat 4: %s, want %s", got, tt.wantHand)
			}
			if got := strings.Join(dealer, " "); got != tt.wantDealer {
				t.Errorf("dealer: %s, want %s", got, tt.wantDealer)
			}
			if got := strings.Join(r.DoubtsAt(0), "; "); got != tt.wantDoubt {
				t.Errorf("doubts %q, want %q", got, tt.wantDoubt)
			}
			o, err := evaluator.Evaluate(r.Round, game.DefaultRules(), evaluator.Wager{Seat: 4, Bet: evaluator.TwentyOnePlusThree, Amount: 5}, evaluator.DefaultPayTables(), 1000)
			got := o.Result
			if err != nil {
				got = "unjudged"
			}
			if got != tt.want21p3 {
				t.Errorf("21+3: %s (%v), want %s", got, err, tt.want21p3)
			}
			if tt.wantDoubt != "" && !lowered && !strings.Contains(tt.wantDoubt, "dealer") {
				t.Errorf("the doubtful hand's cards were not lowered: %s", hand)
			}
		})
	}
}

// TestFaintReading deals seat 4's second card read only below
// vision.Unreadable at distances from the first card: clear of it, it is
// an unread card of the hand; within faintClearMM it says nothing of a
// card the round does not already have (where vision places a faint
// reading of a card counted, some 13 mm off), and no card is added,
// unless the card was seen face down.
func TestFaintReading(t *testing.T) {
	faint := []sighting{{2, "7D", 0.2}}
	tests := []struct {
		name   string
		second []sighting
		at     calibration.Point
		want   string // seat 4's hand
	}{
		{"a hand's spacing on", faint, calibration.Point{X: 13, Y: 386 + 22}, "9S ?? JD"},
		{"29 mm on", faint, secondAt, "9S ?? JD"},
		{"13 mm on", faint, calibration.Point{X: 13, Y: 386 + 13}, "9S JD"},
		{"13 mm aside", faint, calibration.Point{X: 13 + 13, Y: 386}, "9S JD"},
		// A card seen face down is a card, however faint its readings
		// (a card slid into place, as a hole card is tucked under the
		// card beside it): unread once turned.
		{"slid in face down, read faintly, 13 mm on", []sighting{{0.12, "XX+15", 0}, {0.12, "7D+10", 0.2}, {0.12, "7D+5", 0.2}, {2, "7D", 0.2}}, calibration.Point{X: 13, Y: 386 + 13}, "9S ?? JD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := playSeat4At(t, tt.second, []sighting{{2, "7H", 0}}, tt.at)
			var hand []string
			for _, c := range r.HandCards(4, 0) {
				hand = append(hand, c.Text())
			}
			if got := strings.Join(hand, " "); got != tt.want {
				t.Errorf("seat 4: %s, want %s", got, tt.want)
			}
		})
	}
}

// sighting is what vision shows of a card for a while: "" unread, "XX"
// face down, or the card read, with confidence conf (0.97 when 0).
type sighting struct {
	seconds float64
	card    string
	conf    float64
}

// playSeat4 plays playUnread's round on the default layout at 25 frames
// a second, and fails the test when it makes no round.
func playSeat4(t *testing.T, second, hole []sighting) tracker.Round {
	t.Helper()
	return playSeat4At(t, second, hole, secondAt)
}

// secondAt is where playSeat4 deals seat 4's second card: 29 mm from
// its first (13, 386), as the cards of a hand lie.
var secondAt = calibration.Point{X: 15, Y: 393 + 22}

// playSeat4At plays playSeat4's round with seat 4's second card at at.
func playSeat4At(t *testing.T, second, hole []sighting, at calibration.Point) tracker.Round {
	t.Helper()
	l, err := scene.NewLayout(scene.DefaultLayoutConfig())
	if err != nil {
		t.Fatal(err)
	}
	const fps = 25
	r, ok := playUnread(tracker.New(tracker.DefaultConfig(fps), tableOf(t, l), game.DefaultRules()), fps, second, hole, at)
	if !ok {
		t.Fatal("no round")
	}
	return r
}

// playUnread deals a round of seat 4's hand (9S, second at at, JD) and
// the dealer's TC and hole card, each shown as its sightings say, at fps
// frames a second, and returns the round.
func playUnread(tr *tracker.Tracker, fps float64, second, hole []sighting, at calibration.Point) (tracker.Round, bool) {
	on := map[string]vision.Observation{}
	frame := 0
	wait := func(seconds float64) {
		for range int(seconds * fps) {
			f := vision.Frame{Index: frame, Time: float64(frame) / fps}
			for _, k := range []string{"up", "first", "second", "hole", "third"} {
				if o, ok := on[k]; ok {
					f.Cards = append(f.Cards, o)
				}
			}
			tr.Observe(f)
			frame++
		}
	}
	deal := func(name string, ss []sighting, x, y float64) {
		for _, s := range ss {
			o := vision.Observation{Center: calibration.Point{X: x, Y: y}, Angle: 90}
			// "XX+10": shown 10 mm beyond its place (sliding in).
			text, beyond, sliding := strings.Cut(s.card, "+")
			if sliding {
				mm, err := strconv.ParseFloat(beyond, 64)
				if err != nil {
					panic(err)
				}
				o.Center.Y += mm
			}
			switch text {
			case "XX":
				o.FaceDown, o.Confidence = true, 0.9
			case "":
			default:
				// "9C/6C": read as the 9♣, its other corner as the 6♣;
				// "6C@270": read as the 6♣, upright at 270°.
				read, angle, turned := strings.Cut(text, "@")
				if turned {
					a, err := strconv.ParseFloat(angle, 64)
					if err != nil {
						panic(err)
					}
					o.Angle = a
				}
				// "2S|2C": read as the 2♠, its pips as the 2♣.
				read, pips, _ := strings.Cut(read, "|")
				if pips != "" {
					o.Pips = cards.MustParse(pips)
				}
				name, rivals, _ := strings.Cut(read, "/")
				if err := o.Card.UnmarshalText([]byte(name)); err != nil {
					panic(err)
				}
				if rivals != "" {
					o.Rivals = []cards.Card{cards.MustParse(rivals)}
				}
				o.Confidence = s.conf
				if s.conf == 0 {
					o.Confidence = 0.97
				}
			}
			on[name] = o
			wait(s.seconds)
		}
	}
	tr.StartRound("1", frame)
	deal("first", []sighting{{1, "9S", 0}}, 13, 386)
	deal("up", []sighting{{1, "TC", 0}}, -28, 174)
	deal("second", second, at.X, at.Y)
	deal("hole", hole, 0, 174)
	deal("third", []sighting{{1, "JD", 0}}, 17, 393+44)
	return tr.EndRound(frame)
}

// secondCard plays playUnread's round with seat 4's second card read as
// second, the hole card a 7♥, and returns that card as the round has it.
func secondCard(t *testing.T, second []sighting) tracker.Card {
	t.Helper()
	cs := playSeat4(t, second, []sighting{{2, "7H", 0}}).HandCards(4, 0)
	if len(cs) != 3 {
		t.Fatalf("seat 4: %v, want three cards", cs)
	}
	return cs[1]
}

// TestConfidenceOfACard deals seat 4's second card read as the cases
// say and checks how sure the round is of it. A card read surely and
// then less so, as when the next card is dealt over its index (nicu-white
// seed 3003 round 1000: a 3H read at 0.98, then at 0.56 under the 9C), is
// as sure as its clear reads were; a card read doubtfully all along, or
// surely for a single frame, is not; nor is one read as another card as
// long.
func TestConfidenceOfACard(t *testing.T) {
	tests := []struct {
		name   string
		second []sighting
		sure   bool // read at or above vision.Confident
	}{
		{"read surely, then doubtfully", []sighting{{1, "4S", 0.97}, {3, "4S", 0.56}}, true},
		{"read surely all along", []sighting{{4, "4S", 0.97}}, true},
		{"read doubtfully all along", []sighting{{4, "4S", 0.6}}, false},
		{"read doubtfully, surely for one frame", []sighting{{1, "4S", 0.6}, {0.04, "4S", 0.97}, {3, "4S", 0.6}}, false},
		{"read doubtfully as another card, then surely", []sighting{{2, "4C", 0.7}, {2, "4S", 0.97}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := secondCard(t, tt.second)
			if got := c.Confidence >= vision.Confident; got != tt.sure {
				t.Errorf("seat 4's second card %s read with confidence %.2f: sure %v, want %v", c.Text(), c.Confidence, got, tt.sure)
			}
		})
	}
}

// TestCandidatesOfACard deals seat 4's second card read as the cases say
// (a card read as "9C/6C" is a 9♣ whose other corner vision read as a
// 6♣) and checks the cards the round says it may be: where a dispute
// leaves it doubtful, the cards it was read as; where it is sure, or
// doubtful with no dispute, none (any card).
func TestCandidatesOfACard(t *testing.T) {
	tests := []struct {
		name   string
		second []sighting
		want   string // the card and its candidates
	}{
		{"its corners read as two cards", []sighting{{4, "9C/6C", 0.7}}, "9C [6C 9C]"},
		{"read as two, then surely as one", []sighting{{2, "9C/6C", 0.7}, {2, "9C", 0.97}}, "9C []"},
		{"read doubtfully", []sighting{{4, "9C", 0.6}}, "9C []"},
		{"read as two, and as a third", []sighting{{2, "9C/6C", 0.7}, {2, "8C", 0.7}}, "8C [6C 8C 9C]"},
		{"read surely, then surely as another at its far corner", []sighting{{1, "9D", 0}, {2, "6D@270", 0}, {2, "9D", 0}}, "9D [6D 9D]"},
		{"read surely, then doubtfully as another at its far corner", []sighting{{1, "9D", 0}, {2, "6D@270", 0.6}, {2, "9D", 0}}, "9D []"},
		{"read surely, then surely at its far corner", []sighting{{1, "9D", 0}, {2, "9D@270", 0}}, "9D []"},
		{"read surely, then surely as another a quarter turned", []sighting{{1, "9D", 0}, {2, "6D@180", 0}, {2, "9D", 0}}, "9D []"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := secondCard(t, tt.second)
			if got := withCandidates(c); got != tt.want {
				t.Errorf("seat 4's second card (confidence %.2f): %s, want %s", c.Confidence, got, tt.want)
			}
		})
	}
}

// TestSuitOfThePips deals seat 4's second card read as the cases say (a
// card read as "2S|2C" is a 2♠ by its index whose pips vision read as the
// 2♣) and checks the card the round has and the cards it may be. Pips
// that name the other suit of the colour in most of the sightings that
// read them, of the card's rank, make the card theirs, in doubt, the
// index's reading its rival; those of a card known by its rank alone
// name its suit, as doubtful as before. Procedural deck 4 (clip seed
// 2401, round 1003): the dealer's 2♣ read as the 2♠ by its index, the 2♣
// by its pips the one time they showed.
func TestSuitOfThePips(t *testing.T) {
	tests := []struct {
		name   string
		second []sighting
		want   string // the card and its candidates
		sure   bool
	}{
		{"pips agree", []sighting{{4, "2S|2S", 0}}, "2S []", true},
		{"pips name the other suit of the colour", []sighting{{4, "2S|2C", 0}}, "2C [2S 2C]", false},
		{"pips read once, then covered", []sighting{{1, "2S|2C", 0}, {3, "2S", 0}}, "2C [2S 2C]", false},
		{"pips read both ways as long", []sighting{{2, "2S|2C", 0}, {2, "2S|2S", 0}}, "2S []", true},
		{"pips of another rank", []sighting{{4, "2S|3C", 0}}, "2S []", true},
		{"a red card", []sighting{{4, "5H|5D", 0}}, "5D [5H 5D]", false},
		// A card known by its rank alone ("8?": its index never read,
		// its pips counted) whose pips name its suit over all four:
		// CCTV clip of procedural deck 3 (seed 4713), whose hairline
		// index the camera loses, round 1000: seat 5's 8♦.
		{"known by its rank alone, its pips naming the suit", []sighting{{4, "8?|8D", 0.5}}, "8D []", false},
		{"known by its rank alone, the suit named once", []sighting{{1, "8?|8D", 0.5}, {3, "8?", 0.5}}, "8D []", false},
		{"known by its rank alone, the pips split", []sighting{{2, "8?|8D", 0.5}, {2, "8?|8S", 0.5}, {1, "8?", 0.5}}, "8? []", false},
		{"known by its rank alone, pips of another rank", []sighting{{4, "8?|9D", 0.5}}, "8? []", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := secondCard(t, tt.second)
			if got := withCandidates(c); got != tt.want {
				t.Errorf("seat 4's second card: %s, want %s", got, tt.want)
			}
			if sure := c.Confidence >= vision.Confident; sure != tt.sure {
				t.Errorf("seat 4's second card read with confidence %.2f: sure %v, want %v", c.Confidence, sure, tt.sure)
			}
		})
	}
}

// withCandidates writes a card and the cards it may be: "9C [6C 9C]".
func withCandidates(c tracker.Card) string {
	var names []string
	for _, k := range c.Candidates {
		names = append(names, k.String())
	}
	return c.Text() + " [" + strings.Join(names, " ") + "]"
}

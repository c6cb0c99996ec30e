package alerts

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/controller"
	"bjmonitor/evaluator"
	"bjmonitor/game"
	"bjmonitor/game/gametest"
	"bjmonitor/testvideos/script"
	"bjmonitor/tracker"
)

// asRead turns a true round into the tracker's form, every card read with
// confidence conf.
func asRead(g game.Round, conf float64) tracker.Round {
	r := tracker.Round{Round: g, EndFrame: 100, Seen: map[game.Place]tracker.Sighting{}}
	for p := range r.Cards() {
		r.Seen[p] = tracker.Sighting{Confidence: conf}
	}
	return r
}

// entriesOf returns the controller events of each round, by round id: those
// from its game_start to its game_end.
func entriesOf(s *script.Script) map[string][]controller.Event {
	out := map[string][]controller.Event{}
	cur := ""
	for _, e := range s.Events {
		if e.Type == controller.GameStart {
			cur = e.Round
		}
		out[cur] = append(out[cur], e)
	}
	return out
}

func newReconciler(cfg script.Config) *Reconciler {
	meter, _ := evaluator.NewMeter(cfg.MeterReset, cfg.MeterContribution, cfg.MeterStart)
	return NewReconciler(Config{Table: "t1", Rules: cfg.Rules, Tables: cfg.Tables, FPS: cfg.FPS}, meter)
}

// Every injected error raises exactly one alert of its kind, and nothing
// else raises any.
func TestEveryInjectedErrorCaught(t *testing.T) {
	for _, rate := range []float64{0, 0.05, 0.5} {
		t.Run(fmt.Sprintf("error rate %v", rate), func(t *testing.T) {
			cfg := script.DefaultConfig()
			cfg.Rounds, cfg.ErrorRate, cfg.Seed, cfg.SideBetRate = 300, rate, 21, 0.9
			s, err := script.Write(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec := newReconciler(cfg)
			entries := entriesOf(s)
			want := map[string]int{}
			for _, in := range s.Injected {
				want[fmt.Sprintf("%s:%d:%s:%s", in.Round, in.Seat, in.Bet, in.Kind)]++
			}
			got := map[string]int{}
			kinds := map[string]int{}
			for _, r := range s.Rounds {
				outcomes, found := rec.Round(asRead(r.Round, 1), entries[r.ID])
				if len(outcomes) != len(r.Outcomes) {
					t.Fatalf("round %s: %d outcomes, truth has %d", r.ID, len(outcomes), len(r.Outcomes))
				}
				for _, a := range found {
					got[fmt.Sprintf("%s:%d:%s:%s", a.Round, a.Seat, a.Bet, a.Kind)]++
					kinds[a.Kind]++
					if a.Severity != Mismatch {
						t.Errorf("alert %s on cards read with certainty has severity %s", a.ID, a.Severity)
					}
				}
			}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("injected %s: %d alerts", k, got[k])
				}
			}
			for k, n := range got {
				if want[k] != n {
					t.Errorf("false alert %s (%d)", k, n)
				}
			}
			t.Logf("%d injected errors over %d rounds, %d alerts by kind %v", len(s.Injected), len(s.Rounds), len(got), kinds)
		})
	}
}

func TestAlertCases(t *testing.T) {
	rules := game.DefaultRules()
	round := func(dealer string, hands ...string) tracker.Round {
		g := game.Round{ID: "7"}
		g.Dealer.Cards, _ = cards.ParseList(dealer)
		s := game.Seat{Seat: 3}
		for _, h := range hands {
			cs, _ := cards.ParseList(h)
			s.Hands = append(s.Hands, game.Hand{Cards: cs, SplitFrom: -1})
		}
		g.Seats = []game.Seat{s}
		return asRead(g, 0.99)
	}
	ev := func(typ, bet string, seat int, amount float64, award string) controller.Event {
		return controller.Event{Type: typ, Round: "7", Seat: seat, Bet: bet, Amount: amount, Award: award}
	}
	tests := []struct {
		name    string
		round   tracker.Round
		entries []controller.Event
		kinds   []string
		detail  string
	}{
		{"21+3 flush paid right", round("2H 9C", "9H KH"),
			[]controller.Event{ev("wager", "21+3", 3, 5, ""), ev("payout", "21+3", 3, 45, "")}, nil, ""},
		{"21+3 flush not paid", round("2H 9C", "9H KH"),
			[]controller.Event{ev("wager", "21+3", 3, 5, "")}, []string{MissedPayout}, "nothing was paid"},
		{"21+3 loser paid", round("2D 9C", "9H KH"),
			[]controller.Event{ev("wager", "21+3", 3, 5, ""), ev("payout", "21+3", 3, 45, "")}, []string{Overpaid}, "paid $45.00"},
		{"the design's example: three mixed 7s given the 10% award", round("TH", "7S 7C 7H"),
			[]controller.Event{ev("wager", "blazing7s", 3, 1, ""), ev("progressive_award", "", 3, 100.15, "10%")}, []string{WrongAward}, "pays $200.00"},
		{"same-suit 7s given 10%", round("TH", "7S 7S 7S"),
			[]controller.Event{ev("wager", "blazing7s", 3, 1, ""), ev("progressive_award", "", 3, 100.02, "10%")}, []string{WrongAward}, "100% award"},
		{"same-colour 7s given the right award", round("TH", "7S 7C 7C"),
			[]controller.Event{ev("wager", "blazing7s", 3, 1, ""), ev("progressive_award", "", 3, 100.02, "10%")}, nil, ""},
		{"award short by a dollar", round("TH", "7S 7C 7C"),
			[]controller.Event{ev("wager", "blazing7s", 3, 1, ""), ev("progressive_award", "", 3, 99.02, "10%")}, []string{Underpaid}, "meter gives"},
		{"payout on a bet nobody placed", round("TH", "7S 9C"),
			[]controller.Event{ev("payout", "21+3", 3, 10, "")}, []string{PaidWithoutWager}, "no 21+3 wager"},
		{"award with no wager", round("TH", "7S 9C"),
			[]controller.Event{ev("progressive_award", "", 3, 100, "10%")}, []string{PaidWithoutWager}, "no Blazing 7's wager"},
		{"meter off", round("TH", "9S 9C"),
			[]controller.Event{ev("wager", "blazing7s", 3, 1, ""), {Type: "meter", Bet: "blazing7s", Amount: 1500}}, []string{MeterMismatch}, "$1500.00"},
		{"wager over the limit", round("2D 9C", "9H KH"),
			[]controller.Event{ev("wager", "21+3", 3, 500, "")}, []string{OverLimit}, "limits"},
		{"wager at a seat with no cards", round("2D 9C"),
			[]controller.Event{ev("wager", "21+3", 5, 5, "")}, []string{Unjudged}, "no cards"},
		{"push 22 paid short", round("TH 6C 6D", "TS 9D"),
			[]controller.Event{ev("wager", "push22", 3, 5, ""), ev("payout", "push22", 3, 50, "")}, []string{Underpaid}, "paid $50.00"},
		{"a short payout topped up is still short", round("TH 6C 6D", "TS 9D"),
			[]controller.Event{ev("wager", "push22", 3, 5, ""), ev("payout", "push22", 3, 50, ""), ev("payout", "push22", 3, 5, "")}, []string{Underpaid, Procedure}, "$50.00"},
		{"a payout sent twice is judged once", round("2H 9C", "9H KH"),
			[]controller.Event{ev("wager", "21+3", 3, 5, ""), ev("payout", "21+3", 3, 45, ""), ev("payout", "21+3", 3, 45, "")}, []string{Procedure}, "$45.00"},
		{"a second award", round("TH", "7S 7C 7C"),
			[]controller.Event{ev("wager", "blazing7s", 3, 1, ""), ev("progressive_award", "", 3, 100.02, "10%"), ev("progressive_award", "", 3, 100.02, "10%")}, []string{Procedure}, "after $100.02"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meter, _ := evaluator.NewMeter(1000, 0.15, 1000)
			rec := NewReconciler(Config{Table: "t1", Rules: rules, Tables: evaluator.DefaultPayTables(),
				Limits: map[evaluator.Bet]Limit{evaluator.TwentyOnePlusThree: {Min: 1, Max: 100}}}, meter)
			_, found := rec.Round(tt.round, tt.entries)
			var kinds []string
			for _, a := range found {
				kinds = append(kinds, a.Kind)
				if !strings.Contains(a.Detail, tt.detail) {
					t.Errorf("alert detail %q does not say %q", a.Detail, tt.detail)
				}
				if a.ID == "" || a.Table != "t1" || a.Round != "7" {
					t.Errorf("alert %+v lacks its id, table or round", a)
				}
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("alerts %v, want %v", kinds, tt.kinds)
			}
		})
	}
}

func TestLowConfidenceIsReview(t *testing.T) {
	g := game.Round{ID: "9", Dealer: game.Dealer{Cards: []cards.Card{cards.MustParse("2H")}},
		Seats: []game.Seat{{Seat: 1, Hands: []game.Hand{{Cards: []cards.Card{cards.MustParse("9H"), cards.MustParse("KH")}, SplitFrom: -1}}}}}
	entries := []controller.Event{{Type: "wager", Round: "9", Seat: 1, Bet: "21+3", Amount: 5}}
	for _, tt := range []struct {
		conf float64
		want string
	}{{0.99, Mismatch}, {0.5, Review}} {
		meter, _ := evaluator.NewMeter(1000, 0.15, 1000)
		rec := NewReconciler(Config{Table: "t", Rules: game.DefaultRules(), Tables: evaluator.DefaultPayTables()}, meter)
		_, found := rec.Round(asRead(g, tt.conf), entries)
		if len(found) != 1 || found[0].Severity != tt.want {
			t.Errorf("confidence %v: alerts %+v, want one of severity %s", tt.conf, found, tt.want)
		}
		if len(found) == 1 && (len(found[0].Cards) != 3 || found[0].Cards[0].Confidence != tt.conf) {
			t.Errorf("alert cards %+v, want the three 21+3 cards with their confidence", found[0].Cards)
		}
	}
}

// TestDoubtSettled checks that an alert resting on a doubtful card is a
// mismatch when every card the doubtful one could be gives the same
// verdict, or leaves the entry wrong the same way, and for review
// otherwise. The doubtful card is read at 0.5, the others at 0.99, at
// seat 3 with a 21+3 wager of $5 (or Push 22, $1). A doubtful card whose
// corners were read as two cards may be either (its candidates), any
// other any card of the deck.
func TestDoubtSettled(t *testing.T) {
	round := func(dealer, hand string, doubtful game.Place, candidates string, doubts ...string) tracker.Round {
		g := game.Round{ID: "7"}
		g.Dealer.Cards = mustCards(t, dealer)
		g.Seats = []game.Seat{{Seat: 3, Hands: []game.Hand{{Cards: mustCards(t, hand), SplitFrom: -1}}}}
		r := asRead(g, 0.99)
		r.Seen[doubtful] = tracker.Sighting{Confidence: 0.5}
		if candidates != "" {
			r.Seen[doubtful] = tracker.Sighting{Confidence: 0.7, Candidates: mustCards(t, candidates)}
		}
		r.Doubts = doubts
		return r
	}
	second := game.Place{Seat: 3, Hand: 0, Card: 1}
	up := game.Place{Seat: 0, Hand: -1, Card: 0}
	ev := func(typ string, amount float64) controller.Event {
		return controller.Event{Type: typ, Round: "7", Seat: 3, Bet: "21+3", Amount: amount}
	}
	paid := []controller.Event{ev("wager", 5), ev("payout", 45)}
	dealerSecond := game.Place{Seat: 0, Hand: -1, Card: 1}
	push22 := func(payout float64) []controller.Event {
		es := []controller.Event{{Type: "wager", Round: "7", Seat: 3, Bet: "push22", Amount: 1}}
		if payout > 0 {
			es = append(es, controller.Event{Type: "payout", Round: "7", Seat: 3, Bet: "push22", Amount: payout})
		}
		return es
	}
	tests := []struct {
		name     string
		round    tracker.Round
		entries  []controller.Event
		severity string
	}{
		// 9♥ and 2♣ make no flush, straight or three of a kind with any card.
		{"a loser paid, whatever the doubtful card", round("2C", "9H KS", second, ""), paid, Mismatch},
		{"a loser paid, whatever the dealer's doubtful up card", round("2C", "9H KS", up, ""), paid, Mismatch},
		// A 10 would make 9-10-J a straight.
		{"a loser paid, a straight if the doubtful card were a 10", round("JC", "9H 5S", second, ""), paid, Review},
		{"a loser paid, the doubtful card read as a 5 and a 6", round("JC", "9H 5S", second, "5S 6S"), paid, Mismatch},
		{"a loser paid, the doubtful card read as a 5 and a 10", round("JC", "9H 5S", second, "5S TS"), paid, Review},
		{"a flush not paid, unless the doubtful card is no heart", round("2H", "9H KH", second, ""), []controller.Event{ev("wager", 5)}, Review},
		{"a flush not paid, the doubtful card read as two hearts", round("2H", "9H KH", second, "KH QH"), []controller.Event{ev("wager", 5)}, Mismatch},
		// Whatever the doubtful card, 9♥ ? J♣ pays $50 at most (a
		// straight): $500 is more than it pays, though how much more
		// turns on the card.
		{"a loser paid more than any card makes it pay", round("JC", "9H 5S", second, ""), []controller.Event{ev("wager", 5), ev("payout", 500)}, Mismatch},
		// The dealer's Q♥ ? 6♥ makes 22 (11 to 1) only with a 6.
		{"push 22 paid more than 22 pays, whatever the dealer's doubtful card", round("QH 6D 6H", "9H 5S", dealerSecond, ""), push22(19), Mismatch},
		{"push 22 paid less than 22 pays, more than a loser", round("QH 6D 6H", "9H 5S", dealerSecond, ""), push22(5), Review},
		{"push 22 paid nothing, 22 unless the dealer's doubtful card is no 6", round("QH 6D 6H", "9H 5S", dealerSecond, ""), push22(0), Review},
		{"a loser paid in a round with doubts of its own", round("2C", "9H KS", second, "", "seat 3 hand 0: 4D (confidence 0.40) not counted"), paid, Review},
		{"a loser paid, read as two, in a round with doubts of its own", round("JC", "9H 5S", second, "5S 6S", "seat 3 hand 0: 4D (confidence 0.40) not counted"), paid, Review},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meter, _ := evaluator.NewMeter(1000, 0.15, 1000)
			rec := NewReconciler(Config{Table: "t", Rules: game.DefaultRules(), Tables: evaluator.DefaultPayTables()}, meter)
			_, found := rec.Round(tt.round, tt.entries)
			if len(found) != 1 || found[0].Severity != tt.severity {
				t.Fatalf("alerts %+v, want one of severity %s", found, tt.severity)
			}
			if settled := strings.Contains(found[0].Detail, "whatever the cards read below"); settled != (tt.severity == Mismatch) {
				t.Errorf("detail %q: says the doubt changes no verdict: %v, want %v", found[0].Detail, settled, tt.severity == Mismatch)
			}
			// The evidence names the cards a doubtful card may be.
			want := 0
			for _, c := range tt.round.Seen {
				want += len(c.Candidates)
			}
			got := 0
			for _, c := range found[0].Cards {
				got += len(c.Candidates)
			}
			if got != want {
				t.Errorf("the alert's cards %+v name %d candidates, want %d", found[0].Cards, got, want)
			}
		})
	}
}

// TestDoubtSettledThreeCards checks how many doubtful cards settled
// tries at once: seat 3's 9♥ 5♠ and the dealer's J♣ make no 21+3 whatever
// any of them is, paid $45 on a $5 wager. Three doubtful cards that may
// be any card are too many to try, and the alert is for review; three
// each read as one of two cards are tried, and it stands.
func TestDoubtSettledThreeCards(t *testing.T) {
	g := game.Round{ID: "7"}
	g.Dealer.Cards = mustCards(t, "JC")
	g.Seats = []game.Seat{{Seat: 3, Hands: []game.Hand{{Cards: mustCards(t, "9H 5S"), SplitFrom: -1}}}}
	places := []game.Place{{Seat: 0, Hand: -1, Card: 0}, {Seat: 3, Hand: 0, Card: 0}, {Seat: 3, Hand: 0, Card: 1}}
	paid := []controller.Event{
		{Type: "wager", Round: "7", Seat: 3, Bet: "21+3", Amount: 5},
		{Type: "payout", Round: "7", Seat: 3, Bet: "21+3", Amount: 45},
	}
	for _, tt := range []struct {
		name       string
		candidates []string // by place
		severity   string
	}{
		{"any cards", []string{"", "", ""}, Review},
		{"each one of two", []string{"JC QC", "9H 8H", "5S 6S"}, Mismatch},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := asRead(g, 0.99)
			for i, p := range places {
				s := tracker.Sighting{Confidence: 0.5}
				if tt.candidates[i] != "" {
					s = tracker.Sighting{Confidence: 0.7, Candidates: mustCards(t, tt.candidates[i])}
				}
				r.Seen[p] = s
			}
			meter, _ := evaluator.NewMeter(1000, 0.15, 1000)
			rec := NewReconciler(Config{Table: "t", Rules: game.DefaultRules(), Tables: evaluator.DefaultPayTables()}, meter)
			if _, found := rec.Round(r, paid); len(found) != 1 || found[0].Severity != tt.severity {
				t.Errorf("alerts %+v, want one of severity %s", found, tt.severity)
			}
		})
	}
}

// TestDoubtSettledOnWhatTheBetTurnsOn: settled tries only the doubtful
// cards the wager turns on. Seat 3's 21+3 on 9♥ K♠ and the dealer's 2♣
// is a loser whatever its doubtful K♠ is, paid $45 on $5; the dealer's
// draws 8♦ 7♠ and the seat's hit 4♦, read as doubtfully, are cards 21+3
// never looks at: with them the judgements (52⁴) would be too many to
// try, and the alert for review.
func TestDoubtSettledOnWhatTheBetTurnsOn(t *testing.T) {
	g := game.Round{ID: "7"}
	g.Dealer.Cards = mustCards(t, "2C 8D 7S")
	g.Seats = []game.Seat{{Seat: 3, Hands: []game.Hand{{Cards: mustCards(t, "9H KS 4D"), SplitFrom: -1}}}}
	r := asRead(g, 0.99)
	for _, p := range []game.Place{{Seat: 3, Hand: 0, Card: 1}, {Seat: 3, Hand: 0, Card: 2}, {Hand: -1, Card: 1}, {Hand: -1, Card: 2}} {
		r.Seen[p] = tracker.Sighting{Confidence: 0.5}
	}
	paid := []controller.Event{
		{Type: "wager", Round: "7", Seat: 3, Bet: "21+3", Amount: 5},
		{Type: "payout", Round: "7", Seat: 3, Bet: "21+3", Amount: 45},
	}
	meter, _ := evaluator.NewMeter(1000, 0.15, 1000)
	rec := NewReconciler(Config{Table: "t", Rules: game.DefaultRules(), Tables: evaluator.DefaultPayTables()}, meter)
	if _, found := rec.Round(r, paid); len(found) != 1 || found[0].Severity != Mismatch {
		t.Errorf("alerts %+v, want one mismatch", found)
	}
}

// TestSeatDoubts checks which alerts a doubt sends for review: a doubt
// of the round, every alert; a doubt of the dealer's row alone
// (tracker.Round.DealerDoubts), the alerts of wagers that turn on the
// dealer's cards; a doubt at a seat (tracker.Round.SeatDoubts),
// the alerts of that seat alone, but for a share of the Blazing 7's meter,
// which every doubt bears on (an award judged before it, at any seat,
// takes from the meter). Seat 1 and seat 3 each hold a 21+3 loser paid
// $45; seat 3's 7♥ 7♥ 7♥ takes a share of the meter, and is paid nothing;
// its 7♥ 9♠ wins Blazing 7's for one 7, paid nothing, beside a Pot of
// Gold payout at seat 1, which made no such wager.
func TestSeatDoubts(t *testing.T) {
	const why = "seat 1 hand 0: 1 card(s), but every hand takes two"
	ev := func(typ string, seat int, bet string, amount float64) controller.Event {
		return controller.Event{Type: typ, Round: "7", Seat: seat, Bet: bet, Amount: amount}
	}
	losers := []controller.Event{ev("wager", 1, "21+3", 5), ev("payout", 1, "21+3", 45), ev("wager", 3, "21+3", 5), ev("payout", 3, "21+3", 45)}
	tests := []struct {
		name    string
		hand3   string
		entries []controller.Event
		round   []string
		seats   map[int][]string
		dealer  []string // the dealer's row's own doubts
		want    []string // each alert's seat, bet and severity
	}{
		{"no doubt", "9H KS", losers, nil, nil, nil, []string{"1 21+3 mismatch", "3 21+3 mismatch"}},
		{"a doubt of the round", "9H KS", losers, []string{"its game_start came late"}, nil, nil, []string{"1 21+3 review", "3 21+3 review"}},
		{"a doubt of the dealer's row, 21+3 on its up card", "9H KS", losers, nil, nil, []string{"the dealer stopped on 15"}, []string{"1 21+3 review", "3 21+3 review"}},
		// Blazing 7's and Pot of Gold never look at the dealer's cards,
		// nor does a payout with no wager.
		{"a doubt of the dealer's row, Blazing 7's and a payout with no wager", "7H 9S",
			[]controller.Event{ev("wager", 3, "blazing7s", 1), ev("payout", 1, "potofgold", 5)},
			nil, nil, []string{"the dealer stopped on 15"}, []string{"1 potofgold mismatch", "3 blazing7s mismatch"}},
		{"a doubt of the round, Blazing 7's and a payout with no wager", "7H 9S",
			[]controller.Event{ev("wager", 3, "blazing7s", 1), ev("payout", 1, "potofgold", 5)},
			[]string{"its game_start came late"}, nil, nil, []string{"1 potofgold review", "3 blazing7s review"}},
		{"a share of the meter, unpaid, a doubt of the dealer's row", "7H 7H 7H", []controller.Event{ev("wager", 3, "blazing7s", 1)},
			nil, nil, []string{"the dealer stopped on 15"}, []string{"3 blazing7s mismatch"}},
		{"a doubt at seat 1", "9H KS", losers, nil, map[int][]string{1: {why}}, nil, []string{"1 21+3 review", "3 21+3 mismatch"}},
		{"a doubt at seat 1 that reaches seat 3", "9H KS", losers, nil, map[int][]string{1: {why}, 3: {why}}, nil, []string{"1 21+3 review", "3 21+3 review"}},
		{"a share of the meter, unpaid, a doubt at seat 1", "7H 7H 7H", []controller.Event{ev("wager", 3, "blazing7s", 1)},
			nil, map[int][]string{1: {why}}, nil, []string{"3 blazing7s review"}},
		{"a share of the meter, unpaid, no doubt", "7H 7H 7H", []controller.Event{ev("wager", 3, "blazing7s", 1)},
			nil, nil, nil, []string{"3 blazing7s mismatch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := game.Round{ID: "7", Dealer: game.Dealer{Cards: mustCards(t, "2C QD 7S")}, Seats: []game.Seat{
				{Seat: 1, Hands: []game.Hand{{Cards: mustCards(t, "9D KC"), SplitFrom: -1}}},
				{Seat: 3, Hands: []game.Hand{{Cards: mustCards(t, tt.hand3), SplitFrom: -1}}},
			}}
			r := asRead(g, 0.99)
			r.Doubts, r.SeatDoubts, r.DealerDoubts = tt.round, tt.seats, tt.dealer
			meter, _ := evaluator.NewMeter(1000, 0.15, 1000)
			rec := NewReconciler(Config{Table: "t", Rules: game.DefaultRules(), Tables: evaluator.DefaultPayTables()}, meter)
			_, found := rec.Round(r, tt.entries)
			var got []string
			for _, a := range found {
				got = append(got, fmt.Sprintf("%d %s %s", a.Seat, a.Bet, a.Severity))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("alerts %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRankOnly: a card known by its rank alone (its pips counted, its
// index unread; "8?") judges the bets its suit cannot change, as surely
// as it was counted, and leaves unjudged those it could.
func TestRankOnly(t *testing.T) {
	round := func(dealer, hand string, conf float64) tracker.Round {
		g := game.Round{ID: "7", Dealer: game.Dealer{Cards: gametest.Cards(t, dealer)},
			Seats: []game.Seat{gametest.Seat(t, 3, hand)}}
		r := asRead(g, 0.99)
		for p, c := range r.Cards() {
			if c.Card.RankOnly() {
				r.Seen[p] = tracker.Sighting{Confidence: conf}
			}
		}
		return r
	}
	ev := func(typ, bet string, amount float64) controller.Event {
		return controller.Event{Type: typ, Round: "7", Seat: 3, Bet: bet, Amount: amount}
	}
	tests := []struct {
		name    string
		round   tracker.Round
		entries []controller.Event
		want    string // kind/severity of the one alert, or "" for none
		cards   string // the alert's cards
	}{
		{"push 22 not paid on the dealer's 22", round("TS 4C 8?", "9H 7C", 0.9),
			[]controller.Event{ev("wager", "push22", 5)}, MissedPayout + "/" + Mismatch, "TS 4C 8?"},
		{"push 22 paid on the dealer's 22", round("TS 4C 8?", "9H 7C", 0.9),
			[]controller.Event{ev("wager", "push22", 5), ev("payout", "push22", 55)}, "", ""},
		{"push 22 not paid, the count doubtful", round("TS 4C 8?", "9H 7C", 0.5),
			[]controller.Event{ev("wager", "push22", 5)}, MissedPayout + "/" + Review, "TS 4C 8?"},
		{"21+3 a straight or a straight flush", round("8? 4C", "9H 7H", 0.9),
			[]controller.Event{ev("wager", "21+3", 5), ev("payout", "21+3", 50)}, Unjudged + "/" + Review, ""},
		{"21+3 a straight whatever the suit, underpaid", round("8? 4C", "9H 7S", 0.9),
			[]controller.Event{ev("wager", "21+3", 5), ev("payout", "21+3", 25)}, Underpaid + "/" + Mismatch, "9H 7S 8?"},
		{"21+3 a loser paid, whatever the doubtful card", round("2C", "9H K?", 0.5),
			[]controller.Event{ev("wager", "21+3", 5), ev("payout", "21+3", 45)}, Overpaid + "/" + Mismatch, "9H K? 2C"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meter, _ := evaluator.NewMeter(1000, 0.15, 1000)
			rec := NewReconciler(Config{Table: "t", Rules: game.Rules{Variant: game.FreeBet, Decks: 6}, Tables: evaluator.DefaultPayTables()}, meter)
			_, found := rec.Round(tt.round, tt.entries)
			var got, shown []string
			for _, a := range found {
				got = append(got, a.Kind+"/"+a.Severity)
				for _, c := range a.Cards {
					shown = append(shown, c.Card)
				}
			}
			if strings.Join(got, " ") != tt.want || strings.Join(shown, " ") != tt.cards {
				t.Errorf("alerts %v on %v, want %q on %q (%+v)", got, shown, tt.want, tt.cards, found)
			}
		})
	}
}

func mustCards(t *testing.T, s string) []cards.Card {
	t.Helper()
	cs, err := cards.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

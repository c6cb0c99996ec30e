package evaluator

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"bjmonitor/cards"
	"bjmonitor/game"
)

// Bet names a side bet as the table controller writes it.
type Bet string

// The side bets.
const (
	TwentyOnePlusThree Bet = "21+3"
	Blazing7s          Bet = "blazing7s"
	Push22             Bet = "push22"
	PotOfGold          Bet = "potofgold"
)

// Bets lists every side bet, in the order the PAR sheet prints them.
var Bets = []Bet{TwentyOnePlusThree, Blazing7s, Push22, PotOfGold}

// ParseBet checks that s names a side bet.
func ParseBet(s string) (Bet, error) {
	for _, b := range Bets {
		if string(b) == s {
			return b, nil
		}
	}
	return "", fmt.Errorf("unknown bet %q: want one of 21+3, blazing7s, push22, potofgold", s)
}

// Wager is one side bet placed at a seat.
type Wager struct {
	Seat   int     `json:"seat"`
	Bet    Bet     `json:"bet"`
	Amount float64 `json:"amount"`
}

// Result categories shared by every bet. The others are named after the
// hand: "flush", "three_sevens_same_colour", "22" (the dealer ends on 22),
// "3_lammers", and so on; the PAR sheet uses the same names.
const (
	Lose = "lose"
)

// Outcome is what a wager should have won.
type Outcome struct {
	Seat   int     `json:"seat"`
	Bet    Bet     `json:"bet"`
	Wager  float64 `json:"wager"`
	Result string  `json:"result"`
	// Pays is the fixed odds "to 1" of the result; 0 for a loss and for a
	// percentage award.
	Pays float64 `json:"pays"`
	// Award is "10%" or "100%" for a Blazing 7's progressive award, and
	// MeterShare the same as a fraction of the meter.
	Award      string  `json:"award,omitempty"`
	MeterShare float64 `json:"meter_share,omitempty"`
	// Win is the amount the dealer should pay, not counting the wager
	// returned; 0 when the wager is lost.
	Win float64 `json:"win"`
	// Cards are those the result was decided on, in the order dealt.
	Cards []cards.Card `json:"cards"`
}

// Won reports whether the wager should have been paid.
func (o Outcome) Won() bool { return o.Result != Lose }

// ErrIncomplete is returned when the round lacks the cards a bet needs,
// such as a seat with fewer than two cards.
var ErrIncomplete = errors.New("round incomplete for this bet")

// Evaluate decides one wager on a finished round. meter is the Blazing 7's
// progressive meter before this round's awards; it matters only for
// percentage awards.
//
// A card known by its rank alone (cards.Card.RankOnly) at the dealer's
// row or the wager's seat counts by its rank: the wager is judged with
// every suit such cards may have, and where their suits change the
// outcome (a flush, suited 7s) the wager cannot be judged
// (ErrIncomplete).
func Evaluate(r game.Round, rules game.Rules, w Wager, t PayTables, meter float64) (Outcome, error) {
	o, err := evaluate(r, rules, w, t, meter)
	if err != nil {
		return Outcome{}, err
	}
	blind := rankOnly(r, Places(r, w))
	if len(blind) == 0 {
		return o, nil
	}
	if len(blind) > maxRankOnly {
		return Outcome{}, fmt.Errorf("%w: %d cards %s may depend on are known by their rank alone", ErrIncomplete, len(blind), w.Bet)
	}
	suits := func(p game.Place) []cards.Card {
		var out []cards.Card
		for _, s := range cards.Suits {
			out = append(out, cards.New(blind[p], s))
		}
		return out
	}
	same := func(g game.Round) bool {
		x, err := evaluate(g, rules, w, t, meter)
		return err == nil && x.Result == o.Result && x.Pays == o.Pays && x.Win == o.Win && x.Award == o.Award && x.MeterShare == o.MeterShare
	}
	if !r.ForAll(slices.Collect(maps.Keys(blind)), suits, same) {
		return Outcome{}, fmt.Errorf("%w: %s turns on the suit of a card known by its rank alone", ErrIncomplete, w.Bet)
	}
	return o, nil
}

// TurnsOnDealer reports whether a wager on bet can turn on the dealer's
// cards, as Places has it for a round where the dealer holds cards:
// 21+3 (the up card), Push 22, and a bet this package does not know.
func TurnsOnDealer(bet Bet) bool {
	switch bet {
	case Blazing7s, PotOfGold:
		return false
	}
	return true
}

// Places returns the places of round r whose cards Evaluate can turn on
// in judging wager w, whatever cards lie there; a card anywhere else
// changes nothing of w's outcome. 21+3: the player's first two cards and
// the dealer's up card. Blazing 7's: the player's first three cards (a
// third 7, or the card that busts the hand). Push 22: the dealer's
// cards. Pot of Gold: the first two cards of each of the seat's hands
// (the lammers: each split's pair, each double's two cards). A bet this
// package does not know: every card of the dealer's and the seat's.
func Places(r game.Round, w Wager) []game.Place {
	var out []game.Place
	dealer := func(n int) {
		for i := range min(n, len(r.Dealer.Cards)) {
			out = append(out, game.Place{Hand: -1, Card: i})
		}
	}
	s, _ := findSeat(r, w.Seat)
	got := s.ReceivedAt()
	hands := func(n int) {
		for hi, h := range s.Hands {
			for i := range min(n, len(h.Cards)) {
				out = append(out, game.Place{Seat: s.Seat, Hand: hi, Card: i})
			}
		}
	}
	switch w.Bet {
	case TwentyOnePlusThree:
		out = append(out, got[:min(2, len(got))]...)
		dealer(1)
	case Blazing7s:
		out = append(out, got[:min(3, len(got))]...)
	case Push22:
		dealer(len(r.Dealer.Cards))
	case PotOfGold:
		hands(2)
	default:
		dealer(len(r.Dealer.Cards))
		hands(math.MaxInt)
	}
	return out
}

// maxRankOnly is how many cards known by their rank alone, among those a
// wager turns on, Evaluate tries every suit of at once: four make 256
// judgements.
const maxRankOnly = 4

// rankOnly returns the ranks of the cards known by their rank alone at
// the places at (those a wager turns on, Places), by place.
func rankOnly(r game.Round, at []game.Place) map[game.Place]cards.Rank {
	out := map[game.Place]cards.Rank{}
	for i, c := range r.Dealer.Cards {
		if p := (game.Place{Hand: -1, Card: i}); c.RankOnly() && slices.Contains(at, p) {
			out[p] = c.Rank
		}
	}
	for _, s := range r.Seats {
		for hi, h := range s.Hands {
			for i, c := range h.Cards {
				if p := (game.Place{Seat: s.Seat, Hand: hi, Card: i}); c.RankOnly() && slices.Contains(at, p) {
					out[p] = c.Rank
				}
			}
		}
	}
	return out
}

// evaluate decides one wager as Evaluate does, taking a card known by its
// rank alone for what its rank makes of it.
func evaluate(r game.Round, rules game.Rules, w Wager, t PayTables, meter float64) (Outcome, error) {
	seat, ok := findSeat(r, w.Seat)
	if !ok && w.Bet != Push22 {
		return Outcome{}, fmt.Errorf("%w: no cards at seat %d", ErrIncomplete, w.Seat)
	}
	o := Outcome{Seat: w.Seat, Bet: w.Bet, Wager: w.Amount, Result: Lose}
	var err error
	switch w.Bet {
	case TwentyOnePlusThree:
		err = threeCard(&o, r, seat, t.TwentyOnePlusThree)
	case Blazing7s:
		err = blazing(&o, seat, t.Blazing7s, meter)
	case Push22:
		push22(&o, r, t.Push22)
	case PotOfGold:
		err = potOfGold(&o, rules, seat, t.PotOfGold)
	default:
		return Outcome{}, fmt.Errorf("unknown bet %q", w.Bet)
	}
	if err != nil {
		return Outcome{}, err
	}
	for _, c := range o.Cards {
		if !c.Rank.Valid() {
			// A card the bet depends on was never read (a hole card
			// never turned): judging without it would be a guess.
			return Outcome{}, fmt.Errorf("%w: a card %s depends on was not read", ErrIncomplete, w.Bet)
		}
	}
	return o, nil
}

func findSeat(r game.Round, n int) (game.Seat, bool) {
	for _, s := range r.Seats {
		if s.Seat == n {
			return s, true
		}
	}
	return game.Seat{}, false
}

// cents rounds an amount of money to the cent.
func cents(x float64) float64 { return math.Round(x*100) / 100 }

func threeCard(o *Outcome, r game.Round, s game.Seat, t ThreeCardTable) error {
	two, ok := s.FirstTwo()
	up, okUp := r.Dealer.UpCard()
	if !ok || !okUp {
		return fmt.Errorf("%w: 21+3 needs the player's first two cards and the dealer's up card", ErrIncomplete)
	}
	hand := [3]cards.Card{two[0], two[1], up}
	o.Cards = hand[:]
	h := ClassifyThreeCard(hand)
	if h == SuitedThreeOfAKind && t.SuitedThreeOfAKind == 0 {
		h = ThreeOfAKind // the table pays suited trips as three of a kind
	}
	if h != NoHand {
		if pays := t.Pays(h); pays > 0 {
			o.Result, o.Pays, o.Win = h.String(), pays, cents(pays*o.Wager)
		}
	}
	return nil
}

func blazing(o *Outcome, s game.Seat, t Blazing7sTable, meter float64) error {
	got := s.Received()
	if len(got) < 2 {
		return fmt.Errorf("%w: Blazing 7's needs the player's first two cards", ErrIncomplete)
	}
	o.Cards = got[:2]
	sevens := 0
	for _, c := range got[:2] {
		if c.Rank == cards.Seven {
			sevens++
		}
	}
	res := sevenNone
	switch sevens {
	case 1:
		res = sevenOne // a 7 that comes third after a single 7 still pays as one 7
	case 2:
		res = sevenTwo
		if third, ok := thirdCard(s); ok {
			o.Cards = got[:3]
			if third.Rank == cards.Seven {
				res = sevenClass(got[0], got[1], third)
			}
		}
	}
	o.Result = res.String()
	switch res {
	case sevenNone:
		o.Result = Lose
	case sevenSameSuit, sevenSameColour:
		pct := t.SameSuit
		if res == sevenSameColour {
			pct = t.SameColour
		}
		o.Award, o.MeterShare = fmt.Sprintf("%g%%", pct*100), pct
		o.Win = cents(pct * meter)
	default:
		o.Pays = t.pays(res)
		o.Win = cents(t.win(res) * o.Wager)
	}
	return nil
}

// thirdCard returns the next card the player received after the first two,
// the one that may make three 7s: a hit, the double-down card, or after a
// split the first card dealt to the first split hand. The card that busts a
// hand never counts, so it is not returned.
func thirdCard(s game.Seat) (cards.Card, bool) {
	got := s.Received()
	if len(got) < 3 {
		return cards.Card{}, false
	}
	first := s.Hands[0]
	if !s.Split() && len(first.Cards) == 3 && first.Busted() {
		return cards.Card{}, false
	}
	return got[2], true
}

func push22(o *Outcome, r game.Round, t Push22Table) {
	o.Cards = r.Dealer.Cards
	if cards.Score(r.Dealer.Cards).Total == 22 {
		o.Result, o.Pays, o.Win = "22", t.Dealer22, cents(t.Dealer22*o.Wager)
	}
}

func potOfGold(o *Outcome, rules game.Rules, s game.Seat, t PotOfGoldTable) error {
	two, ok := s.FirstTwo()
	if !ok {
		return fmt.Errorf("%w: Pot of Gold needs the player's first two cards", ErrIncomplete)
	}
	o.Cards = two[:]
	if rules.Variant != game.FreeBet {
		return fmt.Errorf("Pot of Gold is a Free Bet Blackjack bet, but the table deals %s", rules.Variant)
	}
	// Once the first two cards make a free bet impossible, the bet is lost.
	if !game.FreeSplit(two[:]) && !game.FreeDouble(two[:]) {
		return nil
	}
	// Lammers are counted on every hand's first two cards: one never
	// read leaves the count a guess.
	for _, h := range s.Hands {
		if slices.ContainsFunc(h.Cards[:min(2, len(h.Cards))], func(c cards.Card) bool { return !c.Rank.Valid() }) {
			return fmt.Errorf("%w: Pot of Gold counts lammers on a card that was not read", ErrIncomplete)
		}
	}
	n := s.Lammers()
	if pays := t.PaysFor(n); pays > 0 {
		o.Result, o.Pays, o.Win = fmt.Sprintf("%d_lammers", n), pays, cents(pays*o.Wager)
	}
	return nil
}

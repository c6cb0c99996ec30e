// Package deal plays whole rounds of blackjack from a shoe, in casino
// order, with every player following basic strategy. It returns the round
// as the tracker should rebuild it, and the steps the dealer took, card by
// card, which the test-footage generator animates.
//
//	shoe := deal.NewShoe(6, rand.New(rand.NewPCG(seed, 0)))
//	r, steps := deal.Play(shoe, rules, []int{1, 3, 5})
//
// Casino order: one card to each seat from the dealer's left, the dealer's
// up card, a second card to each seat, then the hole card. With a hole card
// the dealer peeks under an ace or a ten and ends the round on a blackjack.
// Each seat then plays its hands in turn; a split hand is played to the end
// before the next one. Last, the dealer turns the hole card (or, without
// one, takes a second card) and draws to 17 if any hand is still standing.
package deal

import (
	"math/rand/v2"

	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/strategy"
)

// MaxHands is how many hands a seat may split into (re-splits up to four).
const MaxHands = 4

// Source deals cards in shoe order.
type Source interface {
	Next() cards.Card
}

// Shoe is a shuffled multi-deck shoe with a cut card.
type Shoe struct {
	cards []cards.Card
	pos   int
	cut   int
	rng   *rand.Rand
}

// NewShoe returns a shuffled shoe of n decks. The cut card is placed at
// three quarters, as casinos commonly do; Next reshuffles when it is
// reached, between one card and the next, which for a simulation is as
// good as between rounds.
func NewShoe(n int, rng *rand.Rand) *Shoe {
	s := &Shoe{cards: cards.Shoe(n), rng: rng}
	s.cut = len(s.cards) * 3 / 4
	s.Shuffle()
	return s
}

// Shuffle puts every card back and shuffles.
func (s *Shoe) Shuffle() {
	s.rng.Shuffle(len(s.cards), func(i, j int) { s.cards[i], s.cards[j] = s.cards[j], s.cards[i] })
	s.pos = 0
}

// PastCut reports whether the cut card has come out: the shoe should be
// shuffled before the next round.
func (s *Shoe) PastCut() bool { return s.pos >= s.cut }

// Next deals the next card.
func (s *Shoe) Next() cards.Card {
	if s.pos >= len(s.cards) {
		s.Shuffle()
	}
	c := s.cards[s.pos]
	s.pos++
	return c
}

// Kind is what a step does.
type Kind string

// The kinds of step.
const (
	Initial    Kind = "initial"    // a player's first or second card
	UpCard     Kind = "up"         // the dealer's up card
	HoleCard   Kind = "hole"       // the dealer's hole card, face down
	Hit        Kind = "hit"        // a player's hit
	DoubleCard Kind = "double"     // the double-down card, laid sideways
	SplitMove  Kind = "split"      // the pair is parted: Card moves to a new hand
	SplitCard  Kind = "split_card" // the card dealt to a split hand
	Bust       Kind = "bust"       // the busting card was shown; the hand is swept away
	Reveal     Kind = "reveal"     // the hole card is turned over
	DealerHit  Kind = "draw"       // a card the dealer draws (or the second card without a hole card)
)

// Step is one thing the dealer does.
type Step struct {
	Kind Kind
	// Seat is the seat number, or 0 for the dealer.
	Seat int
	// Hand is the index in the seat's Hands; for SplitMove, the new hand.
	Hand int
	// Card dealt, moved or turned; the zero Card for Bust.
	Card cards.Card
}

// Play deals one round to the given seats, in the order given (the
// dealer's left first), and plays it out with basic strategy.
func Play(src Source, rules game.Rules, seats []int) (game.Round, []Step) {
	return PlayRoom(src, rules, seats, nil)
}

// Room reports whether the felt has room at a seat for one more hand,
// split from hand `from`, given the round as dealt so far. A table with a
// felt drawn to scale uses it; nil allows re-splits up to MaxHands.
type Room func(r *game.Round, seat, from int) bool

// PlayRoom is Play on a felt that may lack room for a split: a pair is
// then played as the total it makes, as at MaxHands.
func PlayRoom(src Source, rules game.Rules, seats []int, room Room) (game.Round, []Step) {
	p := player{src: src, rules: rules, chart: strategy.For(rules), room: room}
	return p.play(seats)
}

type player struct {
	src   Source
	rules game.Rules
	chart strategy.Chart
	room  Room
	steps []Step
	round game.Round
}

func (p *player) step(k Kind, seat, hand int, c cards.Card) {
	p.steps = append(p.steps, Step{Kind: k, Seat: seat, Hand: hand, Card: c})
}

func (p *player) play(seats []int) (game.Round, []Step) {
	r := &p.round
	for _, n := range seats {
		r.Seats = append(r.Seats, game.Seat{Seat: n, Hands: []game.Hand{{SplitFrom: -1}}})
	}
	for pass := 0; pass < 2; pass++ {
		for i := range r.Seats {
			c := p.src.Next()
			r.Seats[i].Hands[0].Cards = append(r.Seats[i].Hands[0].Cards, c)
			p.step(Initial, r.Seats[i].Seat, 0, c)
		}
		if pass == 0 {
			c := p.src.Next()
			r.Dealer.Cards = append(r.Dealer.Cards, c)
			p.step(UpCard, 0, 0, c)
		} else if p.rules.HoleCard {
			c := p.src.Next()
			r.Dealer.Cards = append(r.Dealer.Cards, c)
			p.step(HoleCard, 0, 0, c)
		}
	}
	up := r.Dealer.Cards[0]
	if p.rules.HoleCard && cards.IsBlackjack(r.Dealer.Cards) {
		p.step(Reveal, 0, 0, r.Dealer.Cards[1]) // the peek found a blackjack
		return p.round, p.steps
	}
	for i := range r.Seats {
		p.playSeat(&r.Seats[i], up)
	}
	if p.rules.HoleCard {
		p.step(Reveal, 0, 0, r.Dealer.Cards[1])
	} else {
		c := p.src.Next()
		r.Dealer.Cards = append(r.Dealer.Cards, c)
		p.step(DealerHit, 0, 0, c)
	}
	if p.anyStanding() {
		for p.rules.DealerHits(r.Dealer.Cards) {
			c := p.src.Next()
			r.Dealer.Cards = append(r.Dealer.Cards, c)
			p.step(DealerHit, 0, 0, c)
		}
	}
	return p.round, p.steps
}

// anyStanding reports whether some player hand still needs the dealer's
// total: neither busted nor a blackjack. Otherwise the dealer draws no card.
func (p *player) anyStanding() bool {
	for _, s := range p.round.Seats {
		for i, h := range s.Hands {
			if !h.Busted() && !(i == 0 && !s.Split() && cards.IsBlackjack(h.Cards)) {
				return true
			}
		}
	}
	return false
}

func (p *player) playSeat(s *game.Seat, up cards.Card) {
	if cards.IsBlackjack(s.Hands[0].Cards) {
		return
	}
	// Hands are played in table order: a split hand is finished before
	// the hand split from it is, in turn, followed by its own split hands.
	// order holds indices into s.Hands in the order they are played.
	order := []int{0}
	for k := 0; k < len(order); k++ {
		i := order[k]
		split := len(s.Hands) > 1
		for {
			h := &s.Hands[i]
			if len(h.Cards) == 1 { // a split hand takes its second card first
				c := p.src.Next()
				h.Cards = append(h.Cards, c)
				p.step(SplitCard, s.Seat, i, c)
			}
			splitAces := split && h.Cards[0].Rank == cards.Ace
			sit := strategy.Situation{
				Cards:     h.Cards,
				Up:        up,
				CanSplit:  len(h.Cards) == 2 && cards.IsPair(h.Cards) && len(s.Hands) < MaxHands && (p.room == nil || p.room(&p.round, s.Seat, i)),
				CanDouble: len(h.Cards) == 2 && !splitAces,
			}
			if splitAces && !(sit.CanSplit && p.chart.Decide(sit) == strategy.Split) {
				break // split aces take one card each
			}
			if cards.Score(h.Cards).Total == 21 {
				break
			}
			switch p.chart.Decide(sit) {
			case strategy.Split:
				moved := h.Cards[1]
				h.Cards = h.Cards[:1]
				s.Hands = append(s.Hands, game.Hand{Cards: []cards.Card{moved}, SplitFrom: i})
				n := len(s.Hands) - 1
				p.step(SplitMove, s.Seat, n, moved)
				split = true
				// the new hand is played right after this one
				order = append(order[:k+1], append([]int{n}, order[k+1:]...)...)
				continue
			case strategy.Double:
				c := p.src.Next()
				h.Cards = append(h.Cards, c)
				h.Doubled = true
				p.step(DoubleCard, s.Seat, i, c)
				if h.Busted() {
					p.step(Bust, s.Seat, i, cards.Card{})
				}
			case strategy.Hit:
				c := p.src.Next()
				h.Cards = append(h.Cards, c)
				p.step(Hit, s.Seat, i, c)
				if h.Busted() {
					p.step(Bust, s.Seat, i, cards.Card{})
					break
				}
				continue
			}
			break
		}
	}
}

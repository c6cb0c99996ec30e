// Package cards defines playing cards as the monitor reads them, and the
// blackjack arithmetic of a hand of them.
//
// A card's text form is its rank followed by its suit, as the surveillance
// room writes it: "AS" (ace of spades), "TH" (ten of hearts), "7D", "QC".
//
//	c, err := cards.Parse("7S")
//	score := cards.Score([]cards.Card{c, cards.MustParse("AH")}) // soft 18
package cards

import (
	"errors"
	"fmt"
)

// A standard playing card's size in mm: Width along its short edge,
// Length along its long edge. Vision fits cards of this size to what the
// camera sees, enrolment finds them by it, and the test footage draws
// them at it.
const (
	Width  = 63.0
	Length = 88.0
)

// Rank is a card's rank, Ace (1) to King (13). The zero Rank is invalid.
type Rank uint8

// The ranks, in order.
const (
	Ace Rank = iota + 1
	Two
	Three
	Four
	Five
	Six
	Seven
	Eight
	Nine
	Ten
	Jack
	Queen
	King
)

const rankLetters = "A23456789TJQK"

// Valid reports whether r is one of the thirteen ranks.
func (r Rank) Valid() bool { return r >= Ace && r <= King }

// String returns the rank's index letter: A, 2–9, T, J, Q or K.
func (r Rank) String() string {
	if !r.Valid() {
		return fmt.Sprintf("Rank(%d)", uint8(r))
	}
	return rankLetters[r-1 : r]
}

// Value is the rank's blackjack value: 1 for an ace (which Score may count
// as 11), 2–9 at face value, and 10 for ten-value cards.
func (r Rank) Value() int {
	if r >= Ten {
		return 10
	}
	return int(r)
}

// IsTenValue reports whether r is a ten, jack, queen or king.
func (r Rank) IsTenValue() bool { return r >= Ten && r <= King }

// Suit is a card's suit. The zero Suit is invalid.
type Suit uint8

// The suits.
const (
	Spades Suit = iota + 1
	Hearts
	Diamonds
	Clubs
)

const suitLetters = "SHDC"

// Suits lists every suit, in the order of their constants.
var Suits = [4]Suit{Spades, Hearts, Diamonds, Clubs}

// Valid reports whether s is one of the four suits.
func (s Suit) Valid() bool { return s >= Spades && s <= Clubs }

// String returns the suit's letter: S, H, D or C.
func (s Suit) String() string {
	if !s.Valid() {
		return fmt.Sprintf("Suit(%d)", uint8(s))
	}
	return suitLetters[s-1 : s]
}

// Red reports whether s is hearts or diamonds. Blazing 7's pays its 10%
// award for three 7s of one colour, so colour is part of the game.
func (s Suit) Red() bool { return s == Hearts || s == Diamonds }

// Other returns the other suit of s's colour: clubs for spades, diamonds
// for hearts, and back; the zero Suit for an invalid one.
func (s Suit) Other() Suit {
	switch s {
	case Spades:
		return Clubs
	case Clubs:
		return Spades
	case Hearts:
		return Diamonds
	case Diamonds:
		return Hearts
	}
	return 0
}

// Card is one playing card. The zero Card is invalid. A Card with a valid
// Rank and the zero Suit is a card known by its rank alone (RankOnly).
type Card struct {
	Rank Rank
	Suit Suit
}

// New returns the card of rank r and suit s.
func New(r Rank, s Suit) Card { return Card{Rank: r, Suit: s} }

// Valid reports whether both rank and suit are valid.
func (c Card) Valid() bool { return c.Rank.Valid() && c.Suit.Valid() }

// RankOnly reports whether c is a card known by its rank alone: its
// rank is valid and its suit the zero Suit. Vision reports such a card
// where it counted the pips of a card whose index it could not read. Its
// rank counts in a hand's total; a judgement that needs its suit waits.
func (c Card) RankOnly() bool { return c.Rank.Valid() && c.Suit == 0 }

// rankOnlySuit stands for the suit of a card known by its rank alone in
// its text form: "8?".
const rankOnlySuit = '?'

// String returns the two-letter form, such as "AS" or "TH", or for a card
// known by its rank alone the rank and "?", such as "8?".
func (c Card) String() string {
	if c.RankOnly() {
		return c.Rank.String() + string(rankOnlySuit)
	}
	if !c.Valid() {
		return fmt.Sprintf("Card(%d,%d)", uint8(c.Rank), uint8(c.Suit))
	}
	return c.Rank.String() + c.Suit.String()
}

// ErrSyntax is wrapped by every error Parse returns.
var ErrSyntax = errors.New("malformed card")

// Parse reads a card in its two-letter form ("AS", "TH", "7D", "QC").
// It also accepts "10" for the ten ("10H") and lower-case letters, since
// people type both; String always writes the canonical form.
func Parse(s string) (Card, error) {
	text := s
	if len(text) == 3 && text[0] == '1' && text[1] == '0' {
		text = "T" + text[2:]
	}
	if len(text) != 2 {
		return Card{}, fmt.Errorf("%w %q: want a rank (A,2-9,T,J,Q,K) followed by a suit (S,H,D,C)", ErrSyntax, s)
	}
	r := rankOf(upper(text[0]))
	if r == 0 {
		return Card{}, fmt.Errorf("%w %q: unknown rank %q", ErrSyntax, s, text[0])
	}
	u := suitOf(upper(text[1]))
	if u == 0 {
		return Card{}, fmt.Errorf("%w %q: unknown suit %q", ErrSyntax, s, text[1])
	}
	return Card{Rank: r, Suit: u}, nil
}

// MustParse is Parse for literals in tests and tables; it panics on error.
func MustParse(s string) Card {
	c, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return c
}

// ParseList reads cards separated by spaces or commas, such as "7S 7C 7H".
func ParseList(s string) ([]Card, error) {
	var out []Card
	start := -1
	for i := 0; i <= len(s); i++ {
		sep := i == len(s) || s[i] == ' ' || s[i] == ',' || s[i] == '\t'
		if !sep && start < 0 {
			start = i
		}
		if sep && start >= 0 {
			c, err := Parse(s[start:i])
			if err != nil {
				return nil, err
			}
			out = append(out, c)
			start = -1
		}
	}
	return out, nil
}

// MarshalText implements encoding.TextMarshaler, so cards appear in JSON
// as "AS", and a card known by its rank alone as "8?". An invalid card is
// an error rather than a silent "Card(0,0)".
func (c Card) MarshalText() ([]byte, error) {
	if !c.Valid() && !c.RankOnly() {
		return nil, fmt.Errorf("%w: rank %d, suit %d", ErrSyntax, c.Rank, c.Suit)
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: Parse, and the form
// MarshalText writes for a card known by its rank alone ("8?", "10?").
func (c *Card) UnmarshalText(b []byte) error {
	if n := len(b); n > 0 && b[n-1] == rankOnlySuit {
		text, r := string(b[:n-1]), Rank(0)
		if text == "10" {
			text = "T"
		}
		if len(text) == 1 {
			r = rankOf(upper(text[0]))
		}
		if r == 0 {
			return fmt.Errorf("%w %q: want a rank (A,2-9,T,J,Q,K) before the ?", ErrSyntax, b)
		}
		*c = Card{Rank: r}
		return nil
	}
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*c = p
	return nil
}

func upper(b byte) byte {
	if b >= 'a' && b <= 'z' {
		return b - 'a' + 'A'
	}
	return b
}

func rankOf(b byte) Rank {
	for i := 0; i < len(rankLetters); i++ {
		if rankLetters[i] == b {
			return Rank(i + 1)
		}
	}
	return 0
}

func suitOf(b byte) Suit {
	for i := 0; i < len(suitLetters); i++ {
		if suitLetters[i] == b {
			return Suit(i + 1)
		}
	}
	return 0
}

// Deck returns one standard 52-card deck, in rank-then-suit order.
func Deck() []Card {
	out := make([]Card, 0, 52)
	for r := Ace; r <= King; r++ {
		for _, s := range Suits {
			out = append(out, Card{Rank: r, Suit: s})
		}
	}
	return out
}

// Shoe returns n decks one after another, unshuffled. Callers shuffle
// with their own seeded source so that runs can be repeated.
func Shoe(n int) []Card {
	out := make([]Card, 0, 52*n)
	for i := 0; i < n; i++ {
		out = append(out, Deck()...)
	}
	return out
}

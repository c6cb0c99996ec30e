package cards

import (
	"errors"
	"testing"
)

func TestParseRoundTrip(t *testing.T) {
	for _, c := range Deck() {
		got, err := Parse(c.String())
		if err != nil || got != c {
			t.Errorf("Parse(%q) = %v, %v, want %v", c.String(), got, err, c)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Card
		err  bool
	}{
		{in: "AS", want: New(Ace, Spades)},
		{in: "TH", want: New(Ten, Hearts)},
		{in: "10H", want: New(Ten, Hearts)},
		{in: "7d", want: New(Seven, Diamonds)},
		{in: "qc", want: New(Queen, Clubs)},
		{in: "", err: true},
		{in: "A", err: true},
		{in: "1S", err: true},
		{in: "AX", err: true},
		{in: "ASS", err: true},
		{in: "110H", err: true},
		{in: "ZS", err: true},
		{in: "7♠", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.err {
				if !errors.Is(err, ErrSyntax) {
					t.Errorf("Parse(%q) error = %v, want ErrSyntax", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Parse(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseList(t *testing.T) {
	got, err := ParseList(" 7S,7C  7H ")
	if err != nil || len(got) != 3 || got[2] != New(Seven, Hearts) {
		t.Errorf("ParseList = %v, %v", got, err)
	}
	if _, err := ParseList("7S XX"); err == nil {
		t.Error("ParseList(\"7S XX\") succeeded, want an error")
	}
}

func TestMarshalInvalid(t *testing.T) {
	if _, err := (Card{}).MarshalText(); err == nil {
		t.Error("MarshalText of the zero card succeeded, want an error")
	}
}

// TestRankOnlyText: a card known by its rank alone writes and reads back
// as its rank and "?"; Parse, for cards people type, still refuses it.
func TestRankOnlyText(t *testing.T) {
	tests := []struct {
		text string
		want Card
		ok   bool
	}{
		{"8?", Card{Rank: Eight}, true},
		{"T?", Card{Rank: Ten}, true},
		{"10?", Card{Rank: Ten}, true},
		{"a?", Card{Rank: Ace}, true},
		{"??", Card{}, false},
		{"?", Card{}, false},
		{"S?", Card{}, false},
		{"88?", Card{}, false},
	}
	for _, tt := range tests {
		var got Card
		err := got.UnmarshalText([]byte(tt.text))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v (ok %v)", tt.text, got, err, tt.want, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Errorf("UnmarshalText(%q) error %v does not wrap ErrSyntax", tt.text, err)
		}
	}
	c := Card{Rank: Eight}
	if !c.RankOnly() || c.Valid() || c.String() != "8?" {
		t.Errorf("Card{Rank: Eight}: RankOnly %v, Valid %v, String %q", c.RankOnly(), c.Valid(), c.String())
	}
	if b, err := c.MarshalText(); err != nil || string(b) != "8?" {
		t.Errorf("MarshalText = %q, %v; want 8?", b, err)
	}
	if _, err := Parse("8?"); err == nil {
		t.Error(`Parse("8?") succeeded, want an error: a typed card names its suit`)
	}
	for _, c := range []Card{{}, {Suit: Hearts}, New(Eight, Hearts)} {
		if c.RankOnly() {
			t.Errorf("%v.RankOnly() = true", c)
		}
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		cards string
		total int
		soft  bool
	}{
		{"AS 7H", 18, true},
		{"AS 7H 9C", 17, false},
		{"AS AH", 12, true},
		{"AS AH AD AC", 14, true},
		{"AS AH AD AC TS", 14, false},
		{"KS QH", 20, false},
		{"KS QH 2C", 22, false},
		{"5S 4H", 9, false},
		{"AS KH", 21, true},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.cards, func(t *testing.T) {
			cs, err := ParseList(tt.cards)
			if err != nil {
				t.Fatal(err)
			}
			got := Score(cs)
			if got.Total != tt.total || got.Soft != tt.soft {
				t.Errorf("Score(%s) = %+v, want total %d soft %v", tt.cards, got, tt.total, tt.soft)
			}
			if got.Bust() != (tt.total > 21) {
				t.Errorf("Score(%s).Bust() = %v", tt.cards, got.Bust())
			}
		})
	}
}

func TestHandKinds(t *testing.T) {
	tests := []struct {
		cards           string
		blackjack, pair bool
	}{
		{"AS KH", true, false},
		{"TS AH", true, false},
		{"AS 5H 5D", false, false},
		{"7S 7H", false, true},
		{"KS QH", false, true},
		{"TS JH", false, true},
		{"9S TH", false, false},
		{"AS AH", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.cards, func(t *testing.T) {
			cs, _ := ParseList(tt.cards)
			if got := IsBlackjack(cs); got != tt.blackjack {
				t.Errorf("IsBlackjack(%s) = %v, want %v", tt.cards, got, tt.blackjack)
			}
			if got := IsPair(cs); got != tt.pair {
				t.Errorf("IsPair(%s) = %v, want %v", tt.cards, got, tt.pair)
			}
		})
	}
}

func TestShoe(t *testing.T) {
	s := Shoe(6)
	if len(s) != 312 {
		t.Fatalf("len(Shoe(6)) = %d, want 312", len(s))
	}
	count := map[Card]int{}
	for _, c := range s {
		count[c]++
	}
	if len(count) != 52 {
		t.Errorf("Shoe(6) has %d distinct cards, want 52", len(count))
	}
	for c, n := range count {
		if n != 6 {
			t.Errorf("Shoe(6) has %d of %v, want 6", n, c)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"AS", "TH", "10D", "qc", "", "7", "XX", "1\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		if !c.Valid() {
			t.Fatalf("Parse(%q) = invalid card %v without error", s, c)
		}
		again, err := Parse(c.String())
		if err != nil || again != c {
			t.Fatalf("Parse(String(%v)) = %v, %v", c, again, err)
		}
	})
}

// FuzzUnmarshalText: whatever UnmarshalText accepts is a card or a card
// known by its rank alone, and writes back to text it reads the same.
func FuzzUnmarshalText(f *testing.F) {
	for _, s := range []string{"AS", "8?", "10?", "??", "?", "XX", "T?\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var c Card
		if err := c.UnmarshalText([]byte(s)); err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("UnmarshalText(%q) error %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		if !c.Valid() && !c.RankOnly() {
			t.Fatalf("UnmarshalText(%q) = %v without error", s, c)
		}
		b, err := c.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%v): %v", c, err)
		}
		var again Card
		if err := again.UnmarshalText(b); err != nil || again != c {
			t.Fatalf("UnmarshalText(%q) = %v, %v; want %v", b, again, err, c)
		}
	})
}

func TestSuitOther(t *testing.T) {
	for _, tt := range []struct{ s, want Suit }{
		{Spades, Clubs}, {Clubs, Spades}, {Hearts, Diamonds}, {Diamonds, Hearts}, {0, 0}, {9, 0},
	} {
		if got := tt.s.Other(); got != tt.want {
			t.Errorf("%v.Other() = %v, want %v", tt.s, got, tt.want)
		}
	}
}

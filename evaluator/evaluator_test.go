package evaluator

import (
	"errors"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/game/gametest"
)

// round builds a round with the dealer's cards and one seat (number 3)
// from one spec per hand: its cards, then optionally "split:N" (split from
// hand N) and "double".
func round(tb testing.TB, dealer string, hands ...string) game.Round {
	tb.Helper()
	s := gametest.Seat(tb, 3, hands...)
	r := game.Round{ID: "t", Dealer: game.Dealer{Cards: gametest.Cards(tb, dealer)}, Seats: []game.Seat{s}}
	if err := r.Validate(); err != nil {
		tb.Fatalf("test round invalid: %v", err)
	}
	return r
}

type evalCase struct {
	name   string
	dealer string
	hands  []string
	result string
	pays   float64
	award  string
	win    float64
}

func runCases(t *testing.T, bet Bet, amount float64, tables PayTables, meter float64, tests []evalCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := round(t, tt.dealer, tt.hands...)
			got, err := Evaluate(r, game.DefaultRules(), Wager{Seat: 3, Bet: bet, Amount: amount}, tables, meter)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if got.Result != tt.result || got.Pays != tt.pays || got.Award != tt.award || got.Win != tt.win {
				t.Errorf("Evaluate(%s | %v) = %s pays %v award %q win %v, want %s pays %v award %q win %v",
					tt.dealer, tt.hands, got.Result, got.Pays, got.Award, got.Win, tt.result, tt.pays, tt.award, tt.win)
			}
			if got.Won() != (tt.result != Lose) {
				t.Errorf("Won() = %v for result %s", got.Won(), got.Result)
			}
		})
	}
}

func TestClassifyThreeCard(t *testing.T) {
	tests := []struct {
		cards string
		want  ThreeCardHand
	}{
		{"KS AH 2D", NoHand},
		{"AS 2H 3D", Straight},
		{"QS KH AD", Straight},
		{"3S AH 2D", Straight},
		{"JS QS KS", StraightFlush},
		{"AS 2S 3S", StraightFlush},
		{"KS AS 2S", Flush},
		{"7S 7H 7D", ThreeOfAKind},
		{"7S 7S 7S", SuitedThreeOfAKind},
		{"2H 9H KH", Flush},
		{"9S 9H KD", NoHand},
		{"9S TH JD", Straight},
		{"TS JH QD", Straight},
	}
	for _, tt := range tests {
		t.Run(tt.cards, func(t *testing.T) {
			cs, _ := cards.ParseList(tt.cards)
			if got := ClassifyThreeCard([3]cards.Card(cs)); got != tt.want {
				t.Errorf("ClassifyThreeCard(%s) = %v, want %v", tt.cards, got, tt.want)
			}
		})
	}
}

func Test21Plus3Classic(t *testing.T) {
	runCases(t, TwentyOnePlusThree, 5, DefaultPayTables(), 1000, []evalCase{
		{name: "flush", dealer: "2H 9C", hands: []string{"9H KH"}, result: "flush", pays: 9, win: 45},
		{name: "straight A-2-3", dealer: "3D 9C", hands: []string{"AS 2H"}, result: "straight", pays: 9, win: 45},
		{name: "straight Q-K-A", dealer: "AD 9C", hands: []string{"QS KH"}, result: "straight", pays: 9, win: 45},
		{name: "K-A-2 is no straight", dealer: "2D 9C", hands: []string{"KS AH"}, result: Lose},
		{name: "three of a kind", dealer: "7D 9C", hands: []string{"7S 7H"}, result: "three_of_a_kind", pays: 9, win: 45},
		{name: "suited trips pay as trips", dealer: "7S 9C", hands: []string{"7S 7S"}, result: "three_of_a_kind", pays: 9, win: 45},
		{name: "straight flush", dealer: "TS 9C", hands: []string{"8S 9S"}, result: "straight_flush", pays: 9, win: 45},
		{name: "pair loses", dealer: "KD 9C", hands: []string{"KS 2H"}, result: Lose},
		{name: "the dealer's second card does not count", dealer: "2D 3C", hands: []string{"4C 9C"}, result: Lose},
		{name: "a later split does not change it", dealer: "8D 9C", hands: []string{"8S 3H", "8C 2D split:0"}, result: "three_of_a_kind", pays: 9, win: 45},
		{name: "third player card does not count", dealer: "6D 7C", hands: []string{"2H 4S 5C"}, result: Lose},
	})
}

func Test21Plus3Xtreme(t *testing.T) {
	tables := DefaultPayTables()
	tables.TwentyOnePlusThree = Xtreme21Plus3
	runCases(t, TwentyOnePlusThree, 2, tables, 1000, []evalCase{
		{name: "flush", dealer: "2H", hands: []string{"9H KH"}, result: "flush", pays: 5, win: 10},
		{name: "straight", dealer: "3D", hands: []string{"AS 2H"}, result: "straight", pays: 10, win: 20},
		{name: "three of a kind", dealer: "7D", hands: []string{"7S 7H"}, result: "three_of_a_kind", pays: 20, win: 40},
		{name: "suited trips are three of a kind, not a flush", dealer: "7S", hands: []string{"7S 7S"}, result: "three_of_a_kind", pays: 20, win: 40},
		{name: "straight flush", dealer: "TS", hands: []string{"8S 9S"}, result: "straight_flush", pays: 30, win: 60},
		{name: "K-A-2 suited is only a flush", dealer: "2S", hands: []string{"KS AS"}, result: "flush", pays: 5, win: 10},
	})
	tables.TwentyOnePlusThree.SuitedThreeOfAKind = 100
	runCases(t, TwentyOnePlusThree, 1, tables, 1000, []evalCase{
		{name: "a table with a suited-trips line", dealer: "7S", hands: []string{"7S 7S"}, result: "suited_three_of_a_kind", pays: 100, win: 100},
	})
}

func TestBlazing7s(t *testing.T) {
	runCases(t, Blazing7s, 1, DefaultPayTables(), 1234.56, []evalCase{
		{name: "no 7", dealer: "TH 7C", hands: []string{"9S 8D"}, result: Lose},
		{name: "one 7", dealer: "TH", hands: []string{"7S 9D"}, result: "one_seven", pays: 2, win: 2},
		{name: "a 7 third after a single 7 pays as one 7", dealer: "TH", hands: []string{"7S 2D 7H"}, result: "one_seven", pays: 2, win: 2},
		{name: "a 7 third after no 7 loses", dealer: "TH", hands: []string{"9S 2D 7H"}, result: Lose},
		{name: "a 7 that busts pays as one 7", dealer: "TH", hands: []string{"7S 8D 7H"}, result: "one_seven", pays: 2, win: 2},
		{name: "two 7s, standing", dealer: "TH 7C", hands: []string{"7S 7D"}, result: "two_sevens", pays: 25, win: 25},
		{name: "two 7s and a hit", dealer: "TH", hands: []string{"7S 7D 2C"}, result: "two_sevens", pays: 25, win: 25},
		{name: "7-7 hit to 21 with a 7", dealer: "TH", hands: []string{"7S 7D 7C"}, result: "three_sevens", pays: 200, win: 200},
		{name: "7-7 hit to 21 without a 7", dealer: "TH", hands: []string{"7S 7D 2C 5H"}, result: "two_sevens", pays: 25, win: 25},
		{name: "two 7s bust on the third card", dealer: "TH", hands: []string{"7S 7D KC"}, result: "two_sevens", pays: 25, win: 25},
		{name: "three 7s of one colour", dealer: "TH", hands: []string{"7S 7C 7C"}, result: "three_sevens_same_colour", award: "10%", win: 123.46},
		{name: "three red 7s", dealer: "TH", hands: []string{"7H 7D 7H"}, result: "three_sevens_same_colour", award: "10%", win: 123.46},
		{name: "three 7s of one suit", dealer: "TH", hands: []string{"7H 7H 7H"}, result: "three_sevens_same_suit", award: "100%", win: 1234.56},
		{name: "the double-down card counts", dealer: "TH", hands: []string{"7H 7D 7S double"}, result: "three_sevens", pays: 200, win: 200},
		{name: "splitting 7-7, a 7 on the first split hand", dealer: "TH", hands: []string{"7H 7D 3S", "7C 4S split:0"}, result: "three_sevens", pays: 200, win: 200},
		{name: "splitting 7-7, same suit on the first split hand", dealer: "TH", hands: []string{"7H 7H", "7H 4S split:0"}, result: "three_sevens_same_suit", award: "100%", win: 1234.56},
		{name: "splitting 7-7, a 7 only on the second split hand", dealer: "TH", hands: []string{"7H 5D", "7C 7S split:0"}, result: "two_sevens", pays: 25, win: 25},
		{name: "splitting 7-7 and re-splitting the third 7", dealer: "TH", hands: []string{"7H 4D", "7C 9S split:0", "7D 2C split:0"}, result: "three_sevens", pays: 200, win: 200},
		{name: "dealer blackjack: two 7s and no third card", dealer: "AH KC", hands: []string{"7S 7D"}, result: "two_sevens", pays: 25, win: 25},
	})
}

func TestBlazing7sForOne(t *testing.T) {
	tables := DefaultPayTables()
	tables.Blazing7s.ForOne = true
	runCases(t, Blazing7s, 1, tables, 5000, []evalCase{
		{name: "one 7 pays 2 for 1", dealer: "TH", hands: []string{"7S 9D"}, result: "one_seven", pays: 2, win: 1},
		{name: "two 7s pay 25 for 1", dealer: "TH", hands: []string{"7S 7D"}, result: "two_sevens", pays: 25, win: 24},
		{name: "three 7s pay 200 for 1", dealer: "TH", hands: []string{"7S 7D 7H"}, result: "three_sevens", pays: 200, win: 199},
		{name: "awards are unchanged", dealer: "TH", hands: []string{"7S 7S 7S"}, result: "three_sevens_same_suit", award: "100%", win: 5000},
	})
}

func TestPush22(t *testing.T) {
	runCases(t, Push22, 5, DefaultPayTables(), 1000, []evalCase{
		{name: "dealer 22", dealer: "TH 6C 6D", hands: []string{"TS 9D"}, result: "22", pays: 11, win: 55},
		{name: "dealer 22 against a player blackjack", dealer: "TH 6C 6D", hands: []string{"AS KD"}, result: "22", pays: 11, win: 55},
		{name: "dealer 21", dealer: "TH 6C 5D", hands: []string{"TS 9D"}, result: Lose},
		{name: "dealer 23", dealer: "TH 6C 7D", hands: []string{"TS 9D"}, result: Lose},
		{name: "soft 22 is 12", dealer: "AH AC", hands: []string{"TS 9D"}, result: Lose},
		{name: "the player's 22 does not count", dealer: "TH 7C", hands: []string{"TS 6D 6C"}, result: Lose},
	})
}

func TestPotOfGold(t *testing.T) {
	runCases(t, PotOfGold, 1, DefaultPayTables(), 1000, []evalCase{
		{name: "no free bet possible", dealer: "TH 7C", hands: []string{"9S KD"}, result: Lose},
		{name: "soft 9 is no free double", dealer: "6H 7C 9D", hands: []string{"AS 8D 2C double"}, result: Lose},
		{name: "free double on hard 9", dealer: "6H 7C 9D", hands: []string{"5S 4D TC double"}, result: "1_lammers", pays: 3, win: 3},
		{name: "hard 11 hit instead of doubled", dealer: "6H 7C 9D", hands: []string{"6S 5D 8C"}, result: Lose},
		{name: "ten-value pair is no free split", dealer: "6H 7C 9D", hands: []string{"KS QD"}, result: Lose},
		{name: "free split", dealer: "6H 7C 9D", hands: []string{"8S TD", "8C 9H split:0"}, result: "1_lammers", pays: 3, win: 3},
		{name: "free split and a free double", dealer: "6H 7C 9D", hands: []string{"8S 3D TC double", "8C 9H split:0"}, result: "2_lammers", pays: 12, win: 12},
		{name: "re-split to three hands", dealer: "6H 7C 9D", hands: []string{"8S TD", "8C 9H split:0", "8H 7H split:0"}, result: "2_lammers", pays: 12, win: 12},
		{name: "re-splits and doubles, seven lammers", dealer: "6H 7C 9D", hands: []string{"8S 3D TC double", "8C 3H 2S double split:0", "8H 2C 5S double split:0", "8D 3S 9C double split:1"}, result: "7_lammers", pays: 1000, win: 1000},
		{name: "a pair not split", dealer: "6H 7C 9D", hands: []string{"9S 9D"}, result: Lose},
		{name: "dealer blackjack before any decision", dealer: "AH KC", hands: []string{"5S 5D"}, result: Lose},
	})
}

func TestPotOfGoldMoreLammersThanTable(t *testing.T) {
	tables := DefaultPayTables()
	tables.PotOfGold.Pays = []float64{3, 12}
	runCases(t, PotOfGold, 2, tables, 1000, []evalCase{
		{name: "the last line pays more", dealer: "6H 7C 9D", hands: []string{"8S 3D TC double", "8C 3H 2S double split:0"}, result: "3_lammers", pays: 12, win: 24},
	})
}

func TestEvaluateErrors(t *testing.T) {
	r := round(t, "TH 7C", "9S")
	tests := []struct {
		name  string
		rules game.Rules
		w     Wager
	}{
		{"one card at the seat", game.DefaultRules(), Wager{Seat: 3, Bet: TwentyOnePlusThree, Amount: 1}},
		{"empty seat", game.DefaultRules(), Wager{Seat: 4, Bet: Blazing7s, Amount: 1}},
		{"unknown bet", game.DefaultRules(), Wager{Seat: 3, Bet: "insurance", Amount: 1}},
		{"pot of gold at a classic table", game.Rules{Variant: game.Classic, Decks: 6}, Wager{Seat: 3, Bet: PotOfGold, Amount: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "pot of gold at a classic table" {
				r = round(t, "TH 7C", "5S 5D")
			}
			if _, err := Evaluate(r, tt.rules, tt.w, DefaultPayTables(), 1000); err == nil {
				t.Error("Evaluate succeeded, want an error")
			}
		})
	}
	_, err := Evaluate(round(t, "", "7S 7D"), game.DefaultRules(), Wager{Seat: 3, Bet: TwentyOnePlusThree}, DefaultPayTables(), 0)
	if !errors.Is(err, ErrIncomplete) {
		t.Errorf("21+3 with no dealer card: %v, want ErrIncomplete", err)
	}
}

// TestRankOnly: a card known by its rank alone (its pips counted, its
// index never read) decides a bet its suit cannot change, and leaves a
// bet its suit could change unjudged.
func TestRankOnly(t *testing.T) {
	tests := []struct {
		name   string
		bet    Bet
		dealer string
		hands  []string
		result string // "" for ErrIncomplete
	}{
		{"push 22 on the dealer's total", Push22, "TH 4C 8?", []string{"TS 9D"}, "22"},
		{"push 22 lost", Push22, "TH 4C 7?", []string{"TS 9D"}, Lose},
		{"push 22 with two such cards", Push22, "T? 4C 8?", []string{"TS 9D"}, "22"},
		{"21+3 straight of two suits whatever its suit", TwentyOnePlusThree, "9H", []string{"7S 8?"}, "straight"},
		{"21+3 straight or straight flush", TwentyOnePlusThree, "9H", []string{"7H 8?"}, ""},
		{"21+3 nothing or a flush", TwentyOnePlusThree, "KH", []string{"2H 7?"}, ""},
		{"21+3 nothing whatever the suit", TwentyOnePlusThree, "KH", []string{"2S 7?"}, Lose},
		{"21+3 up card known by rank alone", TwentyOnePlusThree, "K?", []string{"2S 7C"}, Lose},
		{"21+3 trips, never suited", TwentyOnePlusThree, "7H", []string{"7S 7?"}, "three_of_a_kind"},
		{"blazing 7's one seven", Blazing7s, "TH", []string{"7? 9S"}, "one_seven"},
		{"blazing 7's two sevens", Blazing7s, "TH", []string{"7? 7S 5D"}, "two_sevens"},
		{"blazing 7's three sevens of two colours", Blazing7s, "TH", []string{"7? 7S 7D"}, "three_sevens"},
		{"blazing 7's three sevens, suited or not", Blazing7s, "TH", []string{"7? 7S 7C"}, ""},
		{"blazing 7's no seven", Blazing7s, "TH", []string{"9? 4S"}, Lose},
		{"pot of gold free double", PotOfGold, "6H 7C 9D", []string{"5? 4D TC double"}, "1_lammers"},
		{"a card never read stays unjudged", Push22, "TH 4C ??", []string{"TS 9D"}, ""},
		// Five such cards are more than Evaluate tries the suits of, but
		// 21+3 turns on none of the dealer's draws.
		{"21+3 on five such cards, one of them its own", TwentyOnePlusThree, "K? 2? 3? 4? 2?", []string{"2S 7C"}, Lose},
		{"push 22 on five such cards of the dealer's", Push22, "2? 2? 3? 3? 2?", []string{"TS 9D"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := round(t, tt.dealer, tt.hands...)
			got, err := Evaluate(r, game.Rules{Variant: game.FreeBet, Decks: 6}, Wager{Seat: 3, Bet: tt.bet, Amount: 5}, DefaultPayTables(), 1000)
			switch {
			case tt.result == "" && !errors.Is(err, ErrIncomplete):
				t.Errorf("Evaluate = %s, %v; want ErrIncomplete", got.Result, err)
			case tt.result != "" && (err != nil || got.Result != tt.result):
				t.Errorf("Evaluate = %s, %v; want %s", got.Result, err, tt.result)
			}
		})
	}
}

func TestMeter(t *testing.T) {
	m, err := NewMeter(1000, 0.25, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Value() != 1000 {
		t.Errorf("start below reset: Value() = %v, want 1000", m.Value())
	}
	for range 4 {
		m.Wager()
	}
	if m.Value() != 1001 {
		t.Errorf("after 4 wagers Value() = %v, want 1001", m.Value())
	}
	m.Set(2000)
	if got := m.Award(0.10); got != 200 || m.Value() != 1800 {
		t.Errorf("10%% award = %v, meter %v, want 200 and 1800", got, m.Value())
	}
	m.Set(1050)
	if got := m.Award(0.10); got != 105 || m.Value() != 1000 {
		t.Errorf("10%% award near reset = %v, meter %v, want 105 and 1000 (never below the reset)", got, m.Value())
	}
	m.Set(4321.09)
	if got := m.Award(1); got != 4321.09 || m.Value() != 1000 {
		t.Errorf("100%% award = %v, meter %v, want 4321.09 and 1000", got, m.Value())
	}
	m.Set(10)
	if m.Value() != 1000 {
		t.Errorf("Set(10) = %v, want the reset", m.Value())
	}
	if _, err := NewMeter(-1, 0, 0); err == nil {
		t.Error("NewMeter with a negative reset succeeded")
	}
}

func TestPayTablesValidate(t *testing.T) {
	good := DefaultPayTables()
	if err := good.Validate(); err != nil {
		t.Fatalf("default tables: %v", err)
	}
	bad := []struct {
		name   string
		mutate func(*PayTables)
		field  string
	}{
		{"negative flush", func(p *PayTables) { p.TwentyOnePlusThree.Flush = -9 }, "flush"},
		{"award over 100%", func(p *PayTables) { p.Blazing7s.SameSuit = 1.5 }, "same_suit"},
		{"for 1 under 1", func(p *PayTables) { p.Blazing7s.ForOne = true; p.Blazing7s.One = 0.5 }, "one_seven"},
		{"empty pot of gold", func(p *PayTables) { p.PotOfGold.Pays = nil }, "pays"},
		{"negative push 22", func(p *PayTables) { p.Push22.Dealer22 = -1 }, "pays"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			p := DefaultPayTables()
			p.PotOfGold.Pays = append([]float64(nil), p.PotOfGold.Pays...)
			tt.mutate(&p)
			err := p.Validate()
			var pe *PayTableError
			if !errors.As(err, &pe) || pe.Field != tt.field {
				t.Errorf("Validate() = %v, want a PayTableError on %s", err, tt.field)
			}
		})
	}
}

func TestParseBet(t *testing.T) {
	for _, b := range Bets {
		if got, err := ParseBet(string(b)); err != nil || got != b {
			t.Errorf("ParseBet(%q) = %q, %v", b, got, err)
		}
	}
	if _, err := ParseBet("insurance"); err == nil {
		t.Error("ParseBet(insurance) succeeded")
	}
}

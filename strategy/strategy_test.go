package strategy

import (
	"testing"

	"bjmonitor/cards"
	"bjmonitor/game"
)

func TestDecide(t *testing.T) {
	fb := For(game.DefaultRules())
	classic := For(game.Rules{Variant: game.Classic, Decks: 6, HitSoft17: true, HoleCard: true})
	tests := []struct {
		name  string
		chart Chart
		cards string
		up    string
		split bool
		dbl   bool
		want  Action
	}{
		{"hard 16 vs 10 hits", classic, "TS 6D", "KH", true, true, Hit},
		{"hard 16 vs 6 stands", classic, "TS 6D", "6H", true, true, Stand},
		{"hard 12 vs 3 hits", classic, "TS 2D", "3H", true, true, Hit},
		{"hard 11 doubles vs ace", classic, "6S 5D", "AH", true, true, Double},
		{"hard 11 without the double hits", classic, "6S 5D", "AH", true, false, Hit},
		{"hard 9 vs 2 hits in classic", classic, "5S 4D", "2H", true, true, Hit},
		{"hard 9 vs 2 is a free double", fb, "5S 4D", "2H", true, true, Double},
		{"hard 10 vs ten is a free double", fb, "6S 4D", "TH", true, true, Double},
		{"soft 18 vs 9 hits", classic, "AS 7D", "9H", true, true, Hit},
		{"soft 18 vs 5 doubles", classic, "AS 7D", "5H", true, true, Double},
		{"soft 18 vs 5, three cards, stands", classic, "AS 3D 4C", "5H", true, false, Stand},
		{"aces split", classic, "AS AD", "TH", true, true, Split},
		{"eights split", classic, "8S 8D", "AH", true, true, Split},
		{"tens stand", fb, "KS QD", "6H", true, true, Stand},
		{"fives double", fb, "5S 5D", "6H", true, true, Double},
		{"nines stand vs 7", classic, "9S 9D", "7H", true, true, Stand},
		{"sevens split vs 7", classic, "7S 7D", "7H", true, true, Split},
		{"sevens hit vs 8 in classic", classic, "7S 7D", "8H", true, true, Hit},
		{"sevens split free vs 8", fb, "7S 7D", "8H", true, true, Split},
		{"fours split free vs 3", fb, "4S 4D", "3H", true, true, Split},
		{"no split allowed: 8-8 is a hard 16", classic, "8S 8D", "TH", false, true, Hit},
		{"two aces that cannot split hit", classic, "AS AD", "6H", false, false, Hit},
		{"hard 17 stands", fb, "TS 7D", "AH", true, true, Stand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := cards.ParseList(tt.cards)
			if err != nil {
				t.Fatal(err)
			}
			s := Situation{Cards: cs, Up: cards.MustParse(tt.up), CanSplit: tt.split && cards.IsPair(cs), CanDouble: tt.dbl}
			if got := tt.chart.Decide(s); got != tt.want {
				t.Errorf("Decide(%s vs %s) = %v, want %v", tt.cards, tt.up, got, tt.want)
			}
		})
	}
}

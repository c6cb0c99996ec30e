package tracker

import (
	"strings"
	"testing"

	"bjmonitor/cards"
)

func TestDropMisreads(t *testing.T) {
	c := func(s string, conf float64, sideways bool) Card {
		return Card{Card: cards.MustParse(s), Text: s, Confidence: conf, Sideways: sideways}
	}
	tests := []struct {
		name       string
		in         []Card
		kept, gone string
	}{
		{"a doubtful card after the double", []Card{c("2S", .9, false), c("7D", .9, false), c("5S", .9, true), c("QS", .36, false)}, "2S 7D 5S", "QS"},
		{"a doubtful card before the double", []Card{c("2S", .9, false), c("7D", .9, false), c("QS", .4, false), c("5S", .9, true)}, "2S 7D 5S", "QS"},
		{"a clear card after the double stays", []Card{c("2S", .9, false), c("7D", .9, false), c("5S", .9, true), c("QS", .8, false)}, "2S 7D 5S QS", ""},
		{"two doubtful cards around a double", []Card{c("2S", .9, false), c("3D", .4, false), c("7D", .9, false), c("5S", .9, true), c("QS", .4, false)}, "2S 7D 5S", "3D QS"},
		{"a doubled hand of three stays", []Card{c("2S", .9, false), c("7D", .4, false), c("5S", .9, true)}, "2S 7D 5S", ""},
		{"a doubtful card after a bust", []Card{c("TS", .9, false), c("6D", .9, false), c("9C", .9, false), c("4H", .4, false)}, "TS 6D 9C", "4H"},
		{"a clear card after a bust stays", []Card{c("TS", .9, false), c("6D", .9, false), c("9C", .9, false), c("4H", .7, false)}, "TS 6D 9C 4H", ""},
		{"a doubtful card that busts stays", []Card{c("TS", .9, false), c("6D", .9, false), c("9C", .4, false)}, "TS 6D 9C", ""},
		{"a doubtful card in an ordinary hand stays", []Card{c("TS", .9, false), c("2D", .4, false), c("5C", .9, false)}, "TS 2D 5C", ""},
	}
	text := func(cs []Card) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Text)
		}
		return strings.Join(out, " ")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, gone := dropMisreads(tt.in)
			if text(kept) != tt.kept || text(gone) != tt.gone {
				t.Errorf("kept %q, dropped %q; want %q, %q", text(kept), text(gone), tt.kept, tt.gone)
			}
		})
	}
}

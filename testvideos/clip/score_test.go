package clip

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/testvideos/script"
)

// TestScoreResults scores a small results file against a truth of one
// round with one injected error: the round is exact, the injected error is
// caught whatever its severity, and an alert without error is false, also
// when it went out for review.
func TestScoreResults(t *testing.T) {
	c := cards.MustParse
	truth := &Truth{
		Rounds: []script.Round{{ID: "7", Round: game.Round{
			Dealer: game.Dealer{Cards: []cards.Card{c("5C"), c("KD"), c("7D")}},
			Seats:  []game.Seat{{Seat: 1, Hands: []game.Hand{{SplitFrom: -1, Cards: []cards.Card{c("TS"), c("AD")}}}}},
		}}},
		Injected: []script.Injected{{Round: "7", Seat: 1, Bet: "21+3", Kind: "overpaid"}},
	}
	round := `{"type":"round","round":"7","dealer":[{"card":"5C"},{"card":"KD"},{"card":"7D"}],"seats":[{"seat":1,"hands":[{"cards":[{"card":"TS"},{"card":"AD"}],"split_from":-1}]}]}`
	alert := func(bet, kind, severity string) string {
		return `{"type":"alert","round":"7","seat":1,"bet":"` + bet + `","kind":"` + kind + `","severity":"` + severity + `"}`
	}
	tests := []struct {
		name   string
		lines  []string
		want   Score
		falses []string
	}{
		{"caught", []string{round, alert("21+3", "overpaid", "mismatch")},
			Score{Rounds: 1, Exact: 1, Injected: 1, Caught: 1, Cards: 5, CardsRight: 5}, nil},
		{"caught for review", []string{round, alert("21+3", "overpaid", "review")},
			Score{Rounds: 1, Exact: 1, Injected: 1, Caught: 1, Cards: 5, CardsRight: 5, Reviews: 1}, nil},
		{"missed, and a false alert", []string{round, alert("potofgold", "overpaid", "mismatch")},
			Score{Rounds: 1, Exact: 1, Injected: 1, FalseAlerts: 1, Cards: 5, CardsRight: 5}, []string{"7:1:potofgold:overpaid (mismatch)"}},
		{"a false alert for review", []string{round, alert("21+3", "overpaid", "mismatch"), alert("potofgold", "overpaid", "review")},
			Score{Rounds: 1, Exact: 1, Injected: 1, Caught: 1, FalseAlerts: 1, FalseReview: 1, Cards: 5, CardsRight: 5, Reviews: 1},
			[]string{"7:1:potofgold:overpaid (review)"}},
		{"no round", []string{alert("21+3", "overpaid", "mismatch")},
			Score{Rounds: 1, Injected: 1, Caught: 1, Cards: 5}, nil},
		// A card missing from a hand counts as wrong, and so does each
		// card it moved out of place; the dealer's misread card too.
		{"a card missing, one misread", []string{`{"type":"round","round":"7","dealer":[{"card":"5C"},{"card":"KH"},{"card":"7D"}],` +
			`"seats":[{"seat":1,"hands":[{"cards":[{"card":"AD"}],"split_from":-1}]}]}`, alert("21+3", "overpaid", "review")},
			Score{Rounds: 1, Injected: 1, Caught: 1, Cards: 5, CardsRight: 2, Reviews: 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ScoreResults(truth, strings.NewReader(strings.Join(tt.lines, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.False, tt.falses) {
				t.Errorf("false alerts %q, want %q", got.False, tt.falses)
			}
			got.Mismatched, got.Missed, got.False = nil, nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := ScoreResults(truth, strings.NewReader("{not json")); err == nil {
		t.Error("a malformed results line scored without error")
	}
}

package clip

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"

	"bjmonitor/cards"
	"bjmonitor/game"
	"bjmonitor/roundrecord"
)

// Score compares a replay's results with a clip's ground truth.
type Score struct {
	Rounds, Exact    int
	Injected, Caught int
	FalseAlerts      int
	// FalseReview counts the false alerts that went out with severity
	// review (their cards doubtful), which the bar counts all the same:
	// an officer still has to look at each.
	FalseReview int
	// Cards counts the cards dealt (the dealer's and every hand's), and
	// CardsRight those the results hold in the same place: the same hand
	// of the same seat (or the dealer's) at the same position in it.
	Cards, CardsRight int
	// Reviews counts every alert that went out with severity review,
	// false or not: each costs an officer a look.
	Reviews       int
	Mismatched    []string // rounds not rebuilt exactly: got and want
	Missed, False []string // injected errors without alert; alerts without error, with their severity
}

func (s Score) String() string {
	per1000 := func(n int) float64 { return 1000 * float64(n) / float64(max(s.Rounds, 1)) }
	return fmt.Sprintf("%d of %d rounds rebuilt exactly, %d of %d cards read right (%.1f%%), %d of %d injected errors caught, "+
		"%d false alerts (%d for review, %d sure), %d review alerts (%.0f per 1,000 rounds)",
		s.Exact, s.Rounds, s.CardsRight, s.Cards, 100*float64(s.CardsRight)/float64(max(s.Cards, 1)), s.Caught, s.Injected,
		s.FalseAlerts, s.FalseReview, s.FalseAlerts-s.FalseReview, s.Reviews, per1000(s.Reviews))
}

// Add adds o's counts to s (not its lists).
func (s *Score) Add(o Score) {
	s.Rounds += o.Rounds
	s.Exact += o.Exact
	s.Injected += o.Injected
	s.Caught += o.Caught
	s.FalseAlerts += o.FalseAlerts
	s.FalseReview += o.FalseReview
	s.Cards += o.Cards
	s.CardsRight += o.CardsRight
	s.Reviews += o.Reviews
}

// record is the part of a result line the score reads.
type record struct {
	Type  string `json:"type"`
	Round string `json:"round"`
	Seat  int    `json:"seat"`
	Bet   string `json:"bet"`
	Kind  string `json:"kind"`
	// Severity is mismatch or review.
	Severity string `json:"severity"`
}

// ScoreResults reads a replay's JSON lines and scores them against t: a
// round is exact when every card of every hand and of the dealer, the
// splits and the doubles are as dealt (a card never read is the zero
// card, which never equals the truth); an alert matches an injected error
// by round, seat, bet and kind. Round records are read by package
// roundrecord.
func ScoreResults(t *Truth, results io.Reader) (Score, error) {
	rounds := map[string]game.Round{}
	alerts := map[string]string{} // key: severity
	s := Score{Rounds: len(t.Rounds), Injected: len(t.Injected)}
	sc := bufio.NewScanner(results)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return Score{}, fmt.Errorf("results: %w", err)
		}
		switch r.Type {
		case "round":
			rec, err := roundrecord.Parse(sc.Bytes())
			if err != nil {
				return Score{}, fmt.Errorf("results: %w", err)
			}
			rd, err := rec.Round()
			if err != nil {
				return Score{}, fmt.Errorf("results: %w", err)
			}
			rounds[rd.ID] = rd
		case "alert":
			alerts[fmt.Sprintf("%s:%d:%s:%s", r.Round, r.Seat, r.Bet, r.Kind)] = r.Severity
			if r.Severity == "review" {
				s.Reviews++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Score{}, err
	}
	for _, r := range t.Rounds {
		want := r.Round
		want.ID = ""
		got := rounds[r.ID]
		got.ID = ""
		n, right := cardsRight(got, want)
		s.Cards += n
		s.CardsRight += right
		if reflect.DeepEqual(got, want) {
			s.Exact++
		} else {
			s.Mismatched = append(s.Mismatched, fmt.Sprintf("round %s: got %v, want %v", r.ID, got, want))
		}
	}
	for _, in := range t.Injected {
		k := fmt.Sprintf("%s:%d:%s:%s", in.Round, in.Seat, in.Bet, in.Kind)
		if _, ok := alerts[k]; ok {
			s.Caught++
			delete(alerts, k)
		} else {
			s.Missed = append(s.Missed, k)
		}
	}
	for k, sev := range alerts {
		s.False = append(s.False, k+" ("+sev+")")
		if sev == "review" {
			s.FalseReview++
		}
	}
	sort.Strings(s.False)
	s.FalseAlerts = len(s.False)
	return s, nil
}

// cardsRight counts want's cards, and those got holds in the same place.
func cardsRight(got, want game.Round) (n, right int) {
	same := func(g, w []cards.Card) {
		n += len(w)
		for i, c := range w {
			if i < len(g) && g[i] == c {
				right++
			}
		}
	}
	same(got.Dealer.Cards, want.Dealer.Cards)
	for _, ws := range want.Seats {
		var gs game.Seat
		for _, s := range got.Seats {
			if s.Seat == ws.Seat {
				gs = s
			}
		}
		for h, wh := range ws.Hands {
			var gc []cards.Card
			if h < len(gs.Hands) {
				gc = gs.Hands[h].Cards
			}
			same(gc, wh.Cards)
		}
	}
	return n, right
}

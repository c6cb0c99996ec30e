package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/alerts"
	"bjmonitor/cards"
	"bjmonitor/roundrecord"
	"bjmonitor/testvideos/clip"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// blankReader reads crops as its reader does, except that a crop read
// as a card of rank blank, of any suit, is read as no card at all: a
// card of a deck the model cannot read. (Were only one suit blanked, the
// model's next guess at the card, another suit, would stand.)
type blankReader struct {
	vision.Reader
	blank cards.Rank
}

var _ vision.Reader = blankReader{}

func (b blankReader) Classify(crops []gocv.Mat) ([]classify.Result, error) {
	res, err := b.Reader.Classify(crops)
	for i, r := range res {
		if r.Card.Rank == b.blank {
			res[i] = classify.Result{Confidence: r.Confidence}
		}
	}
	return res, err
}

// TestReplayUnreadCard replays the Free Bet sample with a reader that
// cannot read one card: that card stays in its hand, in its place, as an
// unread card ("??"); every alert of its seat goes out for review (and
// those of any seat whose cards lie within reach of it); no alert is a
// false mismatch; and the other round is rebuilt exactly. A
// number card whose pips are counted (vision.count_pips, the default) is
// known by its rank, and by the suit its pips name ("5D", in doubt): it
// raises no doubt, its round is rebuilt exactly, and its round's alerts
// stand as surely as its cards were read, every injected error caught
// and none false.
func TestReplayUnreadCard(t *testing.T) {
	if testing.Short() {
		t.Skip("replays video")
	}
	// Each rank is one card's alone in the clip.
	tests := []struct {
		name   string
		blank  cards.Rank // the rank read as none
		noPips bool       // vision.count_pips off
		round  string
		seat   int
		want   string // the seat's first hand
		review bool   // the seat's alerts for review, for a card never read
		exact  bool   // the round rebuilt exactly all the same
	}{
		{"a hand's second card, over its first (QD, round 1001, seat 2)", cards.Queen, false, "1001", 2, "2H ?? 4H 8H", true, false},
		{"a hand's first card, alone until the second came (5D, round 1000, seat 4)", cards.Five, true, "1000", 4, "?? 6C 2C", true, false},
		{"a hand's first card, its pips counted (5D, round 1000, seat 4)", cards.Five, false, "1000", 4, "5D 6C 2C", false, true},
	}
	truth, err := clip.ReadTruth(sample("freebet-1080p", "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.noPips {
				t.Setenv("MONITOR_VISION_COUNT_PIPS", "false")
			}
			got := replayBlank(t, tt.blank)
			var exact []string
			rounds, found := readResults(t, got)
			for _, rec := range rounds {
				if rec.ID != tt.round || tt.exact {
					exact = append(exact, rec.ID)
				}
				if rec.ID != tt.round {
					continue
				}
				if hand := firstHand(rec, tt.seat); hand != tt.want {
					t.Errorf("round %s seat %d: hand %q, want %q", rec.ID, tt.seat, hand, tt.want)
				}
				if doubt := strings.Contains(strings.Join(rec.DoubtsAt(tt.seat), "; "), "never read"); doubt != tt.review {
					t.Errorf("round %s: doubts at seat %d %q, want one for an unread card: %v", rec.ID, tt.seat, rec.DoubtsAt(tt.seat), tt.review)
				}
			}
			doubted := map[int]bool{} // the seats a doubt of the round bears on
			for _, rec := range rounds {
				if rec.ID == tt.round {
					for _, st := range rec.Seats {
						doubted[st.Seat] = len(rec.DoubtsAt(st.Seat)) > 0
					}
				}
			}
			clean, stood := cleanSeverities(t, "freebet-1080p"), 0
			for _, a := range found {
				if a.Round != tt.round {
					continue
				}
				switch {
				case tt.review && a.Seat == tt.seat && a.Severity != alerts.Review:
					t.Errorf("round %s: alert seat %d %s %s is %s, want review", a.Round, a.Seat, a.Bet, a.Kind, a.Severity)
				case a.Seat != tt.seat && !doubted[a.Seat]:
					// No doubt bears on it: it stands as in the clean run.
					stood++
					if want := clean[a.ID]; a.Severity != want {
						t.Errorf("round %s: alert seat %d %s %s is %s, want %s as in the clean run", a.Round, a.Seat, a.Bet, a.Kind, a.Severity, want)
					}
				}
			}
			t.Logf("round %s: %d alerts at seats no doubt bears on stand as in the clean run", tt.round, stood)
			s, err := clip.ScoreResults(truth, strings.NewReader(got))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range s.False {
				if !strings.HasSuffix(f, "(review)") {
					t.Errorf("false alert %s", f)
				}
			}
			if !tt.review && len(s.Missed) > 0 {
				// An unread card leaves the bets on it unjudged, so an
				// error on them goes unjudged too; a card known by its
				// rank judges them.
				t.Errorf("injected errors missed: %v", s.Missed)
			}
			if s.Exact != len(exact) {
				t.Errorf("%d rounds rebuilt exactly, want %d (rounds %v): %v", s.Exact, len(exact), exact, s.Mismatched)
			}
			t.Log(s)
		})
	}
}

// replayBlank replays the Free Bet sample reading the cards of rank
// blank as none, and returns the results.
func replayBlank(t *testing.T, blank cards.Rank) string {
	t.Helper()
	old := newMain
	newMain = func(m *Main) { m.wrapReader = func(r vision.Reader) vision.Reader { return blankReader{r, blank} } }
	defer func() { newMain = old }()
	got, _, stderr, err := replaySample(t, "freebet-1080p", sample("freebet-1080p", "events.jsonl"), sample("freebet-1080p", "mp4"))
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, stderr)
	}
	return got
}

// readResults reads a replay's results: the round records, through
// roundrecord, and the alerts, in order.
func readResults(t *testing.T, out string) (rounds []roundrecord.Record, found []alerts.Alert) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var rec struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Type {
		case alerts.RecordRound:
			r, err := roundrecord.Parse(sc.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			rounds = append(rounds, r)
		case alerts.RecordAlert:
			var a alerts.Alert
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Fatal(err)
			}
			found = append(found, a)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rounds, found
}

// firstHand writes a seat's first hand as its cards, space-separated.
func firstHand(r roundrecord.Record, seat int) string {
	for _, s := range r.Seats {
		if s.Seat == seat && len(s.Hands) > 0 {
			var cs []string
			for _, c := range s.Hands[0].Cards {
				cs = append(cs, c.Card)
			}
			return strings.Join(cs, " ")
		}
	}
	return ""
}

package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/controller"
	"bjmonitor/vision"
)

// felt lays cards on the sample table's felt for a pipeline's tracker, as
// vision would report them, frame by frame at 25 frames a second.
type felt struct {
	tb    testing.TB
	p     *Pipeline
	frame int
	on    []vision.Observation
	got   []Result
}

// Where the cards go on the sample table: seat 4's hand grows towards the
// players, the dealer's row to the right.
var (
	seat4  = []calibration.Point{{X: 13, Y: 386}, {X: 15, Y: 415}, {X: 17, Y: 437}}
	dealer = []calibration.Point{{X: -28, Y: 174}, {X: 0, Y: 174}, {X: 28, Y: 174}}
)

// lay puts a card down (XX: face down) and lets a second pass.
func (f *felt) lay(card string, at calibration.Point) {
	o := vision.Observation{Center: at, Angle: 90, Confidence: 0.97}
	if card == "XX" {
		o.FaceDown = true
	} else {
		o.Card = cards.MustParse(card)
	}
	f.on = append(f.on, o)
	f.wait(1)
}

// turn turns the card at at face up as card.
func (f *felt) turn(card string, at calibration.Point) {
	for i := range f.on {
		if f.on[i].Center == at {
			f.on[i].FaceDown, f.on[i].Card = false, cards.MustParse(card)
		}
	}
	f.wait(1)
}

// clear sweeps the felt and lets two seconds pass.
func (f *felt) clear() { f.on = nil; f.wait(2) }

func (f *felt) wait(seconds float64) {
	for range int(seconds * 25) {
		fr := vision.Frame{Index: f.frame, Time: float64(f.frame) / 25, Cards: append([]vision.Observation(nil), f.on...)}
		f.got = append(f.got, f.p.observed(f.p.trk.Observe(fr), fr.Index)...)
		f.frame++
	}
}

// event applies controller events, one JSON object each.
func (f *felt) event(lines ...string) {
	for _, l := range lines {
		f.got = append(f.got, f.p.Event(ev(f.tb, l), f.frame)...)
	}
}

// results returns the results so far and checks each.
func (f *felt) results() []Result {
	for _, r := range f.got {
		checkResult(f.tb, r)
	}
	out := f.got
	f.got = nil
	return out
}

// dealRound deals seat 4 TS 8D, the dealer 9C up, a hole card turned to 7H
// and a 2S (18). 21+3 on TS 8D 9C is a straight: a $5 wager wins $45.
func dealRound(f *felt) {
	f.lay("TS", seat4[0])
	f.lay("9C", dealer[0])
	f.lay("8D", seat4[1])
	f.lay("XX", dealer[1])
	f.turn("7H", dealer[1])
	f.lay("2S", dealer[2])
}

// nextRound plays round 1001 as round 1000 is dealt, its 21+3 underpaid
// too; its game_start may have come already.
func nextRound(f *felt) {
	f.event(start1001, wager1001)
	dealRound(f)
	f.event(paid1001, end1001)
	f.clear()
}

const (
	start1001 = `{"type":"game_start","round":"1001"}`
	wager1001 = `{"type":"wager","round":"1001","seat":4,"bet":"21+3","amount":5}`
	paid1001  = `{"type":"payout","round":"1001","seat":4,"bet":"21+3","amount":35}`
	end1001   = `{"type":"game_end","round":"1001"}`
	start7777 = `{"type":"game_start","round":"7777"}` // forged
	end7777   = `{"type":"game_end","round":"7777"}`
)

const (
	wager  = `{"type":"wager","round":"1000","seat":4,"bet":"21+3","amount":5}`
	paid35 = `{"type":"payout","round":"1000","seat":4,"bet":"21+3","amount":35}`
	paid10 = `{"type":"payout","round":"1000","seat":4,"bet":"21+3","amount":10}`
	start  = `{"type":"game_start","round":"1000"}`
	end    = `{"type":"game_end","round":"1000"}`
)

// kinds lists results' alerts as "round:kind:severity[:rule]", and the
// rounds rebuilt.
func kinds(rs []Result) (alertList, rounds string) {
	var as, ro []string
	for _, r := range rs {
		if r.Rebuilt() {
			ro = append(ro, r.Round.ID)
		}
		for _, a := range r.Alerts {
			s := a.Round + ":" + a.Kind + ":" + a.Severity
			if a.Rule != "" {
				s += ":" + a.Rule
			}
			as = append(as, s)
		}
	}
	return strings.Join(as, " "), strings.Join(ro, " ")
}

// roundPlay is one way a round's entries may come, and what the
// pipeline must make of it: alerts and rounds as kinds gives them.
type roundPlay struct {
	name           string
	play           func(f *felt)
	alerts, rounds string
}

// roundPlays are TestRoundIDsAndProcedure's cases.
var roundPlays = []roundPlay{
	{"clean", func(f *felt) {
		f.event(start, wager)
		dealRound(f)
		f.event(paid35, end)
	}, "1000:underpaid:mismatch", "1000"},
	{"the monitor started mid-round", func(f *felt) {
		// Its own round from the cards in view; the entries it gets
		// name the controller's round.
		dealRound(f)
		f.event(wager, paid35, end)
	}, "1000:underpaid:review", "1000"},
	{"the monitor restarted mid-round, its wager lost", func(f *felt) {
		dealRound(f)
		f.event(paid35, end)
	}, "1000:unjudged:review", "1000"},
	{"a forged early game_end", func(f *felt) {
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.lay("9C", dealer[0])
		f.lay("8D", seat4[1])
		f.lay("XX", dealer[1])
		f.event(end) // the hole card is not turned yet
		f.turn("7H", dealer[1])
		f.lay("2S", dealer[2])
		f.event(paid35)
		f.clear()
		f.event(end) // the real one, too late to end anything
	}, "1000:procedure:review:early_game_end 1000:underpaid:mismatch", "1000"},
	{"an early game_end while the players take cards, no hole card", func(f *felt) {
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.lay("9C", dealer[0])
		f.lay("8D", seat4[1])
		f.event(end) // seat 4 may still hit: the dealer has played nothing
		f.lay("7H", dealer[1])
		f.lay("2S", dealer[2])
		f.event(paid35)
		f.clear()
	}, "1000:procedure:review:early_game_end 1000:underpaid:mismatch", "1000"},
	{"an early game_end while the dealer must draw", func(f *felt) {
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.lay("9C", dealer[0])
		f.lay("8D", seat4[1])
		f.lay("7H", dealer[1])
		f.event(end) // 16: the dealer draws
		f.lay("2S", dealer[2])
		f.event(paid35, end) // the real one ends the round
	}, "1000:procedure:review:early_game_end 1000:underpaid:mismatch", "1000"},
	{"an early game_end, then the next round's game_start", func(f *felt) {
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.lay("9C", dealer[0])
		f.lay("8D", seat4[1])
		f.lay("7H", dealer[1])
		f.event(end)
		f.lay("2S", dealer[2])
		f.event(paid35, start1001) // no alert: its game_end came
		f.clear()
	}, "1000:procedure:review:early_game_end 1000:underpaid:mismatch", "1000"},
	{"a payout sent twice", func(f *felt) {
		f.event(start, wager)
		dealRound(f)
		f.event(paid35, paid35, end)
	}, "1000:underpaid:mismatch 1000:procedure:review:extra_payout", "1000"},
	{"a top-up of an underpayment", func(f *felt) {
		f.event(start, wager)
		dealRound(f)
		f.event(paid35, paid10, end)
	}, "1000:underpaid:mismatch 1000:procedure:review:extra_payout", "1000"},
	{"game_start and game_end sent again after the round", func(f *felt) {
		f.event(start, wager)
		dealRound(f)
		f.event(paid35, end, start, end)
	}, "1000:underpaid:mismatch", "1000"},
	{"a game_start inside an open round, then its game_end", func(f *felt) {
		// The dealer started round 1001 without ending 1000, took its
		// wagers and dealt it: the cards are 1001's, as its game_end
		// says.
		f.event(start, wager)
		f.event(start1001, wager1001)
		dealRound(f)
		f.event(end1001)
	}, "1000:procedure:review:game_start_in_open_round 1000:unjudged:review 1001:missed_payout:review", "1001"},
	{"a forged game_start and game_end mid-round", func(f *felt) {
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.lay("9C", dealer[0])
		f.event(start7777)
		f.lay("8D", seat4[1])
		f.event(end7777)
		f.lay("XX", dealer[1])
		f.turn("7H", dealer[1])
		f.lay("2S", dealer[2])
		f.event(paid35)
		f.clear()
		f.event(end)
		nextRound(f)
	}, "1000:procedure:review:game_start_in_open_round 7777:procedure:review:game_end_not_dealt 1000:underpaid:mismatch 1001:underpaid:mismatch", "1000 1001"},
	{"a forged game_start and game_end before the first card", func(f *felt) {
		f.event(start, wager, start7777, end7777)
		dealRound(f)
		f.event(paid35)
		f.clear()
		f.event(end)
	}, "1000:procedure:review:game_start_in_open_round 7777:procedure:review:game_end_not_dealt 1000:underpaid:mismatch", "1000"},
	{"a forged game_start, a card, the forged game_end", func(f *felt) {
		// 7777 made no entry: the cards are not its.
		f.event(start, wager, start7777)
		dealRound(f)
		f.event(end7777, paid35, end)
	}, "1000:procedure:review:game_start_in_open_round 7777:procedure:review:game_end_not_dealt 1000:underpaid:mismatch", "1000"},
	{"a forged game_start and game_end as the table is cleared", func(f *felt) {
		f.event(start, wager)
		dealRound(f)
		f.event(paid35, start7777)
		f.clear() // the tracker closes the round here; it waits for its game_end
		f.event(end7777, end)
		nextRound(f)
	}, "1000:procedure:review:game_start_in_open_round 7777:procedure:review:game_end_not_dealt 1000:underpaid:mismatch 1001:underpaid:mismatch", "1000 1001"},
	{"a forged game_start, wager and game_end mid-round", func(f *felt) {
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.event(start7777, `{"type":"wager","round":"7777","seat":4,"bet":"21+3","amount":5}`, end7777)
		f.lay("9C", dealer[0])
		f.lay("8D", seat4[1])
		f.lay("7H", dealer[1])
		f.lay("2S", dealer[2])
		f.event(paid35, end)
	}, "1000:procedure:review:game_start_in_open_round 7777:unjudged:review 7777:procedure:review:game_end_not_dealt 1000:underpaid:mismatch", "1000"},
	{"the controller restarted mid-round under a new id", func(f *felt) {
		// Round 1000's cards are on the felt; the controller carries
		// on as round 1001, and 1000's game_end never comes. No sure
		// alert rests on entries that may be missing.
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.lay("9C", dealer[0])
		f.lay("8D", seat4[1])
		f.event(start1001, wager1001)
		f.lay("XX", dealer[1])
		f.turn("7H", dealer[1])
		f.lay("2S", dealer[2])
		f.event(paid1001, end1001)
		f.clear()
		f.event(`{"type":"game_start","round":"1002"}`, `{"type":"wager","round":"1002","seat":4,"bet":"21+3","amount":5}`)
		dealRound(f)
		f.event(`{"type":"payout","round":"1002","seat":4,"bet":"21+3","amount":45}`, `{"type":"game_end","round":"1002"}`)
		f.clear()
	}, "1000:procedure:review:game_start_in_open_round 1001:unjudged:review 1001:procedure:review:game_end_not_dealt 1000:procedure:review:game_start_in_open_round 1000:missed_payout:review", "1000 1002"},
	{"a forged game_start mid-round", func(f *felt) {
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.lay("9C", dealer[0])
		f.event(start1001)
		f.lay("8D", seat4[1])
		f.lay("XX", dealer[1])
		f.turn("7H", dealer[1])
		f.lay("2S", dealer[2])
		f.event(paid35)
		f.clear()
		f.event(end)
		nextRound(f)
	}, "1000:procedure:review:game_start_in_open_round 1000:underpaid:mismatch 1001:underpaid:mismatch", "1000 1001"},
	{"a forged game_start as the table is cleared, the game_end late", func(f *felt) {
		f.event(start, wager)
		dealRound(f)
		f.event(paid35, start1001)
		f.clear() // the tracker closes the round here; it waits for its game_end
		f.event(end)
		nextRound(f)
	}, "1000:procedure:review:game_start_in_open_round 1000:underpaid:mismatch 1001:underpaid:mismatch", "1000 1001"},
	{"a judged round's game_start sent again while a round waits for its game_end", func(f *felt) {
		f.event(`{"type":"game_start","round":"999"}`)
		dealRound(f)
		f.event(`{"type":"game_end","round":"999"}`)
		f.clear()
		f.event(start, wager)
		dealRound(f)
		f.event(paid35, start1001)
		f.clear()                                      // 1000 waits for its game_end
		f.event(`{"type":"game_start","round":"999"}`) // 999's, again: it begins and ends nothing
		f.event(end)
		nextRound(f)
	}, "1000:procedure:review:game_start_in_open_round 1000:underpaid:mismatch 1001:underpaid:mismatch", "999 1000 1001"},
	{"a forged game_start after the table is cleared", func(f *felt) {
		f.event(start, wager)
		dealRound(f)
		f.event(paid35)
		f.clear()
		f.event(start1001)
		f.wait(1)
		f.event(end)
		nextRound(f)
	}, "1000:procedure:review:game_start_in_open_round 1000:underpaid:mismatch 1001:underpaid:mismatch", "1000 1001"},
	{"a forged game_start naming another round", func(f *felt) {
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.event(`{"type":"game_start","round":"9999"}`)
		f.lay("9C", dealer[0])
		f.lay("8D", seat4[1])
		f.lay("XX", dealer[1])
		f.turn("7H", dealer[1])
		f.lay("2S", dealer[2])
		f.event(paid35, end)
		f.clear()
		nextRound(f)
	}, "1000:procedure:review:game_start_in_open_round 1000:underpaid:mismatch 9999:procedure:review:game_start_in_open_round 1001:underpaid:mismatch", "1000 1001"},
	{"a game_end lost in a broker gap", func(f *felt) {
		// The table is cleared, the next round starts: the round is
		// judged once the next one's first card comes, with a doubt.
		f.event(start, wager)
		dealRound(f)
		f.event(paid35)
		f.clear()
		nextRound(f)
	}, "1000:procedure:review:game_start_in_open_round 1000:underpaid:review 1001:underpaid:mismatch", "1000 1001"},
	{"a game_end lost, the next round dealt at once", func(f *felt) {
		f.event(start, wager)
		dealRound(f)
		f.event(paid35, start1001) // the cards still on the felt
		f.on = nil
		f.wait(1.2) // swept, but not long enough to call the table cleared
		f.event(wager1001)
		dealRound(f)
		f.event(paid1001, end1001)
	}, "1000:procedure:review:game_start_in_open_round 1000:underpaid:review 1001:underpaid:mismatch", "1000 1001"},
	{"game_start and game_end name two rounds", func(f *felt) {
		f.event(`{"type":"game_start","round":"999"}`, `{"type":"wager","round":"999","seat":4,"bet":"21+3","amount":5}`)
		dealRound(f)
		f.event(end)
	}, "999:unjudged:review", "1000"},
	{"the monitor stopped mid-round", func(f *felt) {
		f.event(start, wager)
		f.lay("TS", seat4[0])
		f.got = append(f.got, f.p.Flush()...)
	}, "1000:unjudged:review", "1000"},
}

// TestRoundIDsAndProcedure plays one round many ways, as the controller's
// entries may come: the controller's round id always wins, no entry is
// lost, and entries that break the dealer's procedure are alerts of their
// own, for review, that never turn a sure alert into a doubtful one.
func TestRoundIDsAndProcedure(t *testing.T) {
	for _, tt := range roundPlays {
		t.Run(tt.name, func(t *testing.T) {
			f := &felt{tb: t, p: newPipeline(t)}
			tt.play(f)
			f.got = append(f.got, f.p.Flush()...)
			if n := len(f.p.early) + len(f.p.startUnseen) + len(f.p.entries) + len(f.p.inside); n != 0 || !f.p.Idle() {
				t.Errorf("%d things held for rounds after Flush; idle %v", n, f.p.Idle())
			}
			rs := f.results()
			gotAlerts, gotRounds := kinds(rs)
			if gotAlerts != tt.alerts || gotRounds != tt.rounds {
				t.Errorf("alerts %q, rounds %q; want %q, %q", gotAlerts, gotRounds, tt.alerts, tt.rounds)
				for _, r := range rs {
					t.Logf("round %s doubts %q alerts %+v", r.Round.ID, r.Round.DoubtsAt(0), r.Alerts)
				}
			}
		})
	}
}

// TestMeterBetweenRounds: a meter reading that names no round, between
// rounds, is judged at once against the meter as the last round left it,
// under that round's id; before any round it sets the monitor's meter.
func TestMeterBetweenRounds(t *testing.T) {
	f := &felt{tb: t, p: newPipeline(t)}
	f.event(`{"type":"meter","bet":"blazing7s","amount":1500}`)
	if v := f.p.rec.Meter().Value(); v != 1500 {
		t.Errorf("meter %v after the first reading, want 1500", v)
	}
	f.event(start, `{"type":"wager","round":"1000","seat":4,"bet":"blazing7s","amount":1}`)
	dealRound(f)
	f.event(end, `{"type":"meter","bet":"blazing7s","amount":1400}`)
	if got, _ := kinds(f.results()); got != "1000:meter_mismatch:mismatch" {
		t.Errorf("alerts %q, want 1000:meter_mismatch:mismatch", got)
	}
}

// TestResumeEarlyEnd drops a pipeline (a monitor killed) after a game_end
// that came while its round was still being dealt, and starts another
// (the monitor restarted) on the same felt, with the events the killed
// one had journaled for the round in play taken again first, the early
// game_end marked as held open (controller.Event.HeldOpen). The alerts of
// the two runs together are a run's without the kill, where the round's
// cards are still on the felt at the restart: it is judged when the table
// is cleared, with them, and the procedure alert is raised once. Where
// the table was cleared while the monitor was down, the felt seen empty
// ends the round, judged without cards, and the next round keeps its own.
func TestResumeEarlyEnd(t *testing.T) {
	drawing := func(f *felt) { // the dealer on 16, still to draw
		f.lay("TS", seat4[0])
		f.lay("9C", dealer[0])
		f.lay("8D", seat4[1])
		f.lay("7H", dealer[1])
	}
	for _, tt := range []struct {
		name    string
		before  func(f *felt) // played before the kill
		journal []string      // what the killed pipeline journaled
		after   func(f *felt) // played after the restart
		// killed is the alerts of the killed and restarted runs
		// together, clean those of a run without the kill.
		killed, clean string
	}{
		{"the dealer still drawing",
			func(f *felt) { f.event(start, wager); drawing(f); f.event(end) },
			[]string{start, wager, end},
			func(f *felt) { f.lay("2S", dealer[2]); f.event(paid35); f.clear(); f.event(end) },
			"1000:procedure:review:early_game_end 1000:underpaid:mismatch",
			"1000:procedure:review:early_game_end 1000:underpaid:mismatch"},
		{"its game_start not seen before the kill",
			func(f *felt) { drawing(f); f.event(wager, end) },
			[]string{wager, end},
			func(f *felt) { f.lay("2S", dealer[2]); f.event(paid35); f.clear() },
			"1000:procedure:review:early_game_end 1000:underpaid:review",
			"1000:procedure:review:early_game_end 1000:underpaid:review"},
		{"a game_end that finds it over",
			func(f *felt) { f.event(start, wager); drawing(f); f.event(end) },
			[]string{start, wager, end},
			func(f *felt) { f.lay("2S", dealer[2]); f.event(paid35, end); f.clear(); nextRound(f) },
			"1000:procedure:review:early_game_end 1000:underpaid:mismatch 1001:underpaid:mismatch",
			"1000:procedure:review:early_game_end 1000:underpaid:mismatch 1001:underpaid:mismatch"},
		{"the table cleared while the monitor was down",
			// Its cards were never seen by the restarted monitor: its
			// wager goes out unjudged when the next round starts, and
			// the next round keeps its own cards.
			func(f *felt) { f.event(start, wager); drawing(f); f.event(end) },
			[]string{start, wager, end},
			func(f *felt) { f.on = nil; f.wait(2); nextRound(f) },
			"1000:procedure:review:early_game_end 1000:unjudged:review 1001:underpaid:mismatch",
			"1000:procedure:review:early_game_end 1000:missed_payout:review 1001:underpaid:mismatch"},
		{"the next round's game_start before the kill",
			func(f *felt) { f.event(start, wager); drawing(f); f.event(end, start1001) },
			[]string{start, wager, end, start1001},
			func(f *felt) {
				f.lay("2S", dealer[2])
				f.event(paid35)
				f.clear()
				f.event(wager1001)
				dealRound(f)
				f.event(paid1001, end1001)
				f.clear()
			},
			"1000:procedure:review:early_game_end 1000:underpaid:mismatch 1001:underpaid:mismatch",
			"1000:procedure:review:early_game_end 1000:underpaid:mismatch 1001:underpaid:mismatch"},
		{"the next round's game_start before the kill, the table cleared while down",
			func(f *felt) { f.event(start, wager); drawing(f); f.event(end, start1001) },
			[]string{start, wager, end, start1001},
			func(f *felt) {
				f.on = nil
				f.wait(2)
				f.event(wager1001)
				dealRound(f)
				f.event(paid1001, end1001)
				f.clear()
			},
			"1000:procedure:review:early_game_end 1000:unjudged:review 1001:underpaid:mismatch",
			"1000:procedure:review:early_game_end 1000:missed_payout:review 1001:underpaid:mismatch"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clean := &felt{tb: t, p: newPipeline(t)}
			tt.before(clean)
			tt.after(clean)
			clean.got = append(clean.got, clean.p.Flush()...)
			if got, _ := kinds(clean.results()); got != tt.clean {
				t.Errorf("without the kill: alerts %q, want %q", got, tt.clean)
			}

			killed := &felt{tb: t, p: newPipeline(t)}
			tt.before(killed)
			restarted := &felt{tb: t, p: newPipeline(t), frame: killed.frame, on: killed.on}
			for _, l := range tt.journal {
				e := ev(t, l)
				e.HeldOpen = e.Type == controller.GameEnd
				restarted.got = append(restarted.got, restarted.p.Event(e, restarted.frame)...)
			}
			tt.after(restarted)
			restarted.got = append(restarted.got, restarted.p.Flush()...)
			got, _ := kinds(append(killed.results(), restarted.results()...))
			if got != tt.killed {
				t.Errorf("killed and restarted: alerts %q, want %q", got, tt.killed)
			}
			if !restarted.p.Idle() {
				t.Error("the restarted pipeline holds a round after Flush")
			}
		})
	}
}

// TestResumeLateGameEnd: a game_end for round 1000, judged already,
// comes late (a re-send without seq, a second one) while round 1001 is
// being dealt, and the monitor is killed. The journal, written as the
// live monitor writes it (each event appended as it is taken, a round's
// lines forgotten once it is published), then holds that game_end alone
// among 1001's events. The restarted pipeline takes the journal's events
// again (controller.Resume) on the same felt: round 1001 keeps its cards
// and its id, and its alerts are those of a run without the kill. Round
// 1000 is not judged or published again.
func TestResumeLateGameEnd(t *testing.T) {
	for _, tt := range []struct {
		name string
		// before plays round 1001 up to the kill; take applies an
		// event and journals it.
		before func(f *felt, take func(...string))
	}{
		{"inside the next round", func(f *felt, take func(...string)) {
			take(start1001, wager1001)
			f.lay("TS", seat4[0])
			f.lay("9C", dealer[0])
			take(end)
		}},
		{"before the next round's game_start", func(f *felt, take func(...string)) {
			take(end, start1001, wager1001)
			f.lay("TS", seat4[0])
			f.lay("9C", dealer[0])
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "controller.journal")
			j, _, _, err := controller.OpenJournal(path)
			if err != nil {
				t.Fatal(err)
			}
			killed := &felt{tb: t, p: newPipeline(t)}
			take := journaled(t, j, killed)
			take(start, wager)
			dealRound(killed)
			take(paid35, end)
			killed.clear()
			if err := j.Forget("1000"); err != nil { // published
				t.Fatal(err)
			}
			tt.before(killed, take)
			j.Close() // killed

			_, events, _, err := controller.OpenJournal(path)
			if err != nil {
				t.Fatal(err)
			}
			restarted := &felt{tb: t, p: newPipeline(t), frame: killed.frame, on: killed.on}
			replay, late := controller.Resume(events)
			if len(late) != 1 {
				t.Errorf("game_ends left out of the replay: %+v, want round 1000's late one", late)
			}
			for _, e := range replay {
				restarted.got = append(restarted.got, restarted.p.Event(e, restarted.frame)...)
			}
			restarted.lay("8D", seat4[1])
			restarted.lay("XX", dealer[1])
			restarted.turn("7H", dealer[1])
			restarted.lay("2S", dealer[2])
			restarted.event(paid1001, end1001)
			restarted.clear()
			restarted.got = append(restarted.got, restarted.p.Flush()...)
			rs := append(killed.results(), restarted.results()...)
			ids := map[string]int{}
			for _, r := range rs {
				ids[r.Round.ID]++
			}
			if ids["1000"] != 1 || ids["1001"] != 1 {
				t.Errorf("killed and restarted: round 1000 published %d times, 1001 %d times; want once each", ids["1000"], ids["1001"])
			}
			got, rounds := kinds(rs)
			if want := "1000:underpaid:mismatch 1001:underpaid:mismatch"; got != want {
				t.Errorf("killed and restarted: alerts %q, want %q", got, want)
			}
			if want := "1000 1001"; rounds != want {
				t.Errorf("killed and restarted: rounds published %q, want %q", rounds, want)
			}
		})
	}
}

// TestLateGameStart: a monitor not yet controlled (live, before the
// controller is first heard) opens a round of its own from the cards in
// view. A game_start that comes 8 s after that round's first card, on
// cards dealt after the felt was seen cleared, names that round: its
// cards are the controller's round's, and are judged under its id,
// whole, with a doubt naming the late game_start (its alerts review),
// not split into a round of the tracker's own and a controller round
// missing its first cards (with a spurious early_game_end). Cards that
// lay on the felt from the monitor's start (a restart: the previous
// round's leftovers) were never seen dealt, and stay a round of the
// tracker's own, closed by the game_start: the controller's round keeps
// only its own cards, and its sure alerts. So do cards found on the felt
// after frames went unwatched (the camera away).
func TestLateGameStart(t *testing.T) {
	for _, tt := range []struct {
		name   string
		before func(f *felt) // up to the game_start
		after  func(f *felt) // from the game_start
		want   string        // alerts
		rounds string        // rounds published with their seats
	}{
		{"dealt on a cleared felt",
			func(f *felt) {
				f.wait(2)
				f.lay("TS", seat4[0])
				f.lay("9C", dealer[0])
				f.lay("8D", seat4[1])
				f.lay("XX", dealer[1])
				f.wait(5)
			},
			func(f *felt) {
				f.turn("7H", dealer[1])
				f.lay("2S", dealer[2])
				f.event(paid35, end)
				f.clear()
			},
			"1000:underpaid:review", "1000"},
		{"leftovers on the felt at the start",
			func(f *felt) {
				f.lay("5S", seat4[0])
				f.lay("KD", dealer[0])
				f.lay("6C", seat4[1])
				f.wait(7)
			},
			func(f *felt) {
				f.clear()
				dealRound(f)
				f.event(paid35, end)
				f.clear()
			},
			"1000:underpaid:mismatch", "auto-1 1000"},
		{"found on the felt after the camera was away",
			func(f *felt) {
				f.wait(2)
				f.frame += 250 // 10 s not watched
				f.lay("5S", seat4[0])
				f.lay("KD", dealer[0])
				f.lay("6C", seat4[1])
				f.wait(7)
			},
			func(f *felt) {
				f.clear()
				dealRound(f)
				f.event(paid35, end)
				f.clear()
			},
			"1000:underpaid:mismatch", "auto-1 1000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &felt{tb: t, p: newPipeline(t)}
			tt.before(f)
			f.event(start, wager)
			tt.after(f)
			f.got = append(f.got, f.p.Flush()...)
			got, rounds := kinds(f.results())
			if got != tt.want || rounds != tt.rounds {
				t.Errorf("alerts %q, rounds %q; want %q, %q", got, rounds, tt.want, tt.rounds)
			}
		})
	}
}

// TestOwnRoundClosedByGameStart: cards dealt before any game_start make a
// round of the tracker's own; a game_start that comes well after them
// (over 4 s) closes it. That round is published under the tracker's id
// (auto-N) with its seats, and every result and alert after it names its
// round: none has an empty id. Played as live plays it (the controller
// not heard from yet) and as a replay with a controller log does (the
// controller marks rounds from the start).
func TestOwnRoundClosedByGameStart(t *testing.T) {
	for _, controlled := range []bool{false, true} {
		t.Run(map[bool]string{false: "live", true: "replay"}[controlled], func(t *testing.T) {
			p := newPipeline(t)
			if controlled {
				p.trk.Claim("", "") // no round open: only marks the tracker controlled
			}
			f := &felt{tb: t, p: p}
			f.lay("TS", seat4[0])
			f.lay("9C", dealer[0])
			f.wait(5)
			f.event(start, wager)
			f.lay("8D", seat4[1])
			f.lay("XX", dealer[1])
			f.turn("7H", dealer[1])
			f.lay("2S", dealer[2])
			f.event(paid35, end)
			f.clear()
			f.got = append(f.got, f.p.Flush()...)
			rs := f.results() // checkResult: an id on every result, and its alerts name it
			var own *Result
			for i, r := range rs {
				if strings.HasPrefix(r.Round.ID, "auto-") {
					own = &rs[i]
				}
			}
			if own == nil || !own.Rebuilt() {
				t.Fatalf("no round of the tracker's own published with its seats: %+v", rs)
			}
			if _, rounds := kinds(rs); rounds != own.Round.ID+" 1000" {
				t.Errorf("rounds %q, want the tracker's own, then 1000", rounds)
			}
		})
	}
}

// journaled returns a function that takes controller lines as live does:
// each is appended to the journal j, then given to f's pipeline.
func journaled(t *testing.T, j *controller.Journal, f *felt) func(lines ...string) {
	return func(lines ...string) {
		for _, l := range lines {
			if err := j.Append(ev(t, l)); err != nil {
				t.Fatal(err)
			}
			f.event(l)
		}
	}
}

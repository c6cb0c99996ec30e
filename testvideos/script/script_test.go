package script

import (
	"reflect"
	"slices"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/controller"
	"bjmonitor/evaluator"
	"bjmonitor/game"
)

func write(tb testing.TB, mutate func(*Config)) *Script {
	tb.Helper()
	cfg := DefaultConfig()
	cfg.Rounds = 40
	mutate(&cfg)
	s, err := Write(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

var configs = []struct {
	name   string
	mutate func(*Config)
}{
	{"free bet", func(c *Config) {}},
	{"classic, 8 decks, S17, no hole card", func(c *Config) {
		c.Rules = game.Rules{Variant: game.Classic, Decks: 8, HoleCard: false}
		c.Seed = 9
	}},
	{"errors injected", func(c *Config) { c.ErrorRate = 0.3; c.Seed = 5 }},
}

// Every card dealt appears once, where the ground truth says it ends up.
func TestEveryCardInTruth(t *testing.T) {
	for _, tc := range configs {
		t.Run(tc.name, func(t *testing.T) {
			s := write(t, tc.mutate)
			for _, r := range s.Rounds {
				if err := r.Round.Validate(); err != nil {
					t.Fatalf("round %s: %v", r.ID, err)
				}
				want := map[[3]int]cards.Card{} // seat, hand, index
				for i, c := range r.Round.Dealer.Cards {
					want[[3]int{0, 0, i}] = c
				}
				for _, st := range r.Round.Seats {
					for h, hand := range st.Hands {
						for i, c := range hand.Cards {
							want[[3]int{st.Seat, h, i}] = c
						}
					}
				}
				got := map[[3]int]cards.Card{}
				for _, c := range s.Cards {
					if c.Round != r.ID {
						continue
					}
					hand, index := c.Hand, c.Index
					if n := len(c.Moves); n > 0 {
						hand, index = c.Moves[n-1].Hand, c.Moves[n-1].Index
					}
					k := [3]int{c.Seat, hand, index}
					if _, dup := got[k]; dup {
						t.Errorf("round %s: two cards end at %v", r.ID, k)
					}
					got[k] = c.Card
					if !(c.Placed < c.Shown && c.Shown <= c.Removed && c.Removed <= r.EndFrame && c.Placed >= r.StartFrame) {
						t.Errorf("round %s card %d: frames placed %d shown %d removed %d outside the round %d-%d", r.ID, c.ID, c.Placed, c.Shown, c.Removed, r.StartFrame, r.EndFrame)
					}
					if c.Busting != busts(r.Round, c.Seat, hand, index) {
						t.Errorf("round %s card %d: busting %v, but the ground truth disagrees", r.ID, c.ID, c.Busting)
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("round %s: cards on the felt %v, ground truth %v", r.ID, got, want)
				}
			}
			if last := s.Rounds[len(s.Rounds)-1]; s.Frames <= last.EndFrame {
				t.Errorf("clip has %d frames, the last round ends at %d", s.Frames, last.EndFrame)
			}
		})
	}
}

// busts reports whether the card at that place took its hand over 21.
func busts(r game.Round, seat, hand, index int) bool {
	for _, s := range r.Seats {
		if s.Seat == seat {
			h := s.Hands[hand]
			return h.Busted() && index == len(h.Cards)-1
		}
	}
	return false
}

// Replaying the ground truth through the evaluator gives its outcomes.
func TestOutcomesReplay(t *testing.T) {
	for _, tc := range configs {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Rounds = 40
			tc.mutate(&cfg)
			s, err := Write(cfg)
			if err != nil {
				t.Fatal(err)
			}
			meter, _ := evaluator.NewMeter(cfg.MeterReset, cfg.MeterContribution, cfg.MeterStart)
			for _, r := range s.Rounds {
				if meter.Value() != r.MeterStart {
					t.Errorf("round %s starts with meter %v, want %v", r.ID, r.MeterStart, meter.Value())
				}
				for _, w := range r.Wagers {
					if w.Bet == evaluator.Blazing7s {
						meter.Wager()
					}
				}
				if len(r.Outcomes) != len(r.Wagers) {
					t.Fatalf("round %s: %d outcomes for %d wagers", r.ID, len(r.Outcomes), len(r.Wagers))
				}
				for i, w := range r.Wagers {
					o, err := evaluator.Evaluate(r.Round, cfg.Rules, w, cfg.Tables, meter.Value())
					if err != nil {
						t.Fatal(err)
					}
					if o.MeterShare > 0 {
						meter.Award(o.MeterShare)
					}
					if !reflect.DeepEqual(o, r.Outcomes[i]) {
						t.Errorf("round %s wager %+v: evaluator says %+v, ground truth %+v", r.ID, w, o, r.Outcomes[i])
					}
				}
				if meter.Value() != r.MeterEnd {
					t.Errorf("round %s ends with meter %v, want %v", r.ID, r.MeterEnd, meter.Value())
				}
			}
		})
	}
}

// The controller log matches the outcomes, except exactly where an error
// was injected.
func TestControllerLog(t *testing.T) {
	for _, tc := range configs {
		t.Run(tc.name, func(t *testing.T) {
			s := write(t, tc.mutate)
			type key struct {
				round string
				seat  int
				bet   string
			}
			entered := map[key]controller.Event{}
			starts, ends := 0, 0
			last := -1.0
			for _, e := range s.Events {
				if err := e.Validate(); err != nil {
					t.Fatalf("event %+v: %v", e, err)
				}
				if *e.T < last {
					t.Fatalf("events out of order at %+v", e)
				}
				last = *e.T
				switch e.Type {
				case controller.GameStart:
					starts++
				case controller.GameEnd:
					ends++
				case controller.Payout:
					entered[key{e.Round, e.Seat, e.Bet}] = e
				case controller.ProgressiveAward:
					entered[key{e.Round, e.Seat, string(evaluator.Blazing7s)}] = e
				}
			}
			if starts != len(s.Rounds) || ends != len(s.Rounds) {
				t.Errorf("%d game_start and %d game_end for %d rounds", starts, ends, len(s.Rounds))
			}
			injected := map[key]Injected{}
			for _, in := range s.Injected {
				injected[key{in.Round, in.Seat, in.Bet}] = in
			}
			for _, r := range s.Rounds {
				for _, o := range r.Outcomes {
					k := key{r.ID, o.Seat, string(o.Bet)}
					e, ok := entered[k]
					in, wrong := injected[k]
					right := (o.Won() && ok && e.Amount == o.Win && (o.Award == e.Award)) || (!o.Won() && !ok)
					if right == wrong {
						t.Errorf("round %s seat %d %s: outcome %s win %v, entered %+v (present %v), injected %+v", r.ID, o.Seat, o.Bet, o.Result, o.Win, e, ok, in)
					}
					delete(injected, k)
				}
			}
			for k, in := range injected {
				if in.Kind != PaidWithoutWager {
					t.Errorf("injected %+v matches no wager", in)
				}
				if e, ok := entered[k]; !ok || e.Amount != in.Entered {
					t.Errorf("injected %+v was not entered", in)
				}
			}
		})
	}
}

func TestErrorRates(t *testing.T) {
	none := write(t, func(c *Config) {})
	if len(none.Injected) != 0 {
		t.Errorf("error rate 0 injected %d errors", len(none.Injected))
	}
	all := write(t, func(c *Config) { c.ErrorRate = 1; c.Rounds = 60 })
	kinds := map[string]int{}
	for _, in := range all.Injected {
		kinds[in.Kind]++
	}
	for _, k := range []string{Overpaid, Underpaid, MissedPayout, PaidWithoutWager} {
		if kinds[k] == 0 {
			t.Errorf("error rate 1 over 60 rounds injected no %s: %v", k, kinds)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a := write(t, func(c *Config) { c.ErrorRate = 0.2 })
	b := write(t, func(c *Config) { c.ErrorRate = 0.2 })
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed wrote different scripts")
	}
	c := write(t, func(c *Config) { c.ErrorRate = 0.2; c.Seed = 2 })
	if reflect.DeepEqual(a.Rounds[0].Round, c.Rounds[0].Round) {
		t.Error("another seed dealt the same first round")
	}
	// Injecting errors does not change the cards.
	d := write(t, func(c *Config) { c.ErrorRate = 0 })
	for i := range a.Rounds {
		if !reflect.DeepEqual(a.Rounds[i].Round, d.Rounds[i].Round) {
			t.Fatalf("round %d: error injection changed the cards", i)
		}
	}
}

func TestStackedScene(t *testing.T) {
	// Casino order for one player: card, up card, card, hole card, then draws.
	stack, _ := cards.ParseList("7H 6S 7D TC 7S 9C 8H 4D 3C TS")
	s := write(t, func(c *Config) {
		c.Rounds = 1
		c.Players = []int{3}
		c.Stack = stack
		c.SideBetRate = 1
	})
	r := s.Rounds[0]
	if got := len(r.Round.Seats[0].Hands); got < 2 {
		t.Fatalf("the stacked 7-7 was not split: %+v", r.Round.Seats[0])
	}
	i := slices.IndexFunc(r.Outcomes, func(o evaluator.Outcome) bool { return o.Bet == evaluator.Blazing7s })
	if i < 0 || r.Outcomes[i].Result != "three_sevens" {
		t.Errorf("Blazing 7's outcome %+v, want three_sevens", r.Outcomes)
	}
	moved := 0
	for _, c := range s.Cards {
		moved += len(c.Moves)
	}
	if moved == 0 {
		t.Error("no card moved in the split")
	}
}

func TestAtAndArm(t *testing.T) {
	s := write(t, func(c *Config) { c.Rounds = 2 })
	for _, c := range s.Cards {
		if ps := s.At(c.Placed); !slices.ContainsFunc(ps, func(p Placement) bool { return p.Card.ID == c.ID }) {
			t.Errorf("card %d not on the felt at its placed frame", c.ID)
		}
		if _, ok := s.ArmAt(c.Placed); !ok {
			t.Errorf("card %d lands with no hand over it", c.ID)
		}
		if ps := s.At(c.Removed); slices.ContainsFunc(ps, func(p Placement) bool { return p.Card.ID == c.ID }) {
			t.Errorf("card %d still on the felt when removed", c.ID)
		}
		if c.FaceDown {
			ps := s.At(c.Shown)
			i := slices.IndexFunc(ps, func(p Placement) bool { return p.Card.ID == c.ID })
			if i < 0 || !ps[i].FaceDown {
				t.Errorf("hole card %d not face down when shown", c.ID)
			}
		}
	}
	if len(s.At(0)) != 0 {
		t.Error("cards on the felt in the first frame")
	}
}

func TestValidate(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.Seats = 0 },
		func(c *Config) { c.Rounds = 0 },
		func(c *Config) { c.FPS = 0 },
		func(c *Config) { c.ErrorRate = 2 },
		func(c *Config) { c.Players = []int{9} },
		func(c *Config) { c.Timing.Cover = 5 },
		func(c *Config) { c.Rules.Decks = 0 },
	}
	for i, m := range bad {
		c := DefaultConfig()
		m(&c)
		if _, err := Write(c); err == nil {
			t.Errorf("bad config %d accepted", i)
		}
	}
}

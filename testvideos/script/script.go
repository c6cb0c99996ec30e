package script

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"bjmonitor/cards"
	"bjmonitor/controller"
	"bjmonitor/deal"
	"bjmonitor/evaluator"
	"bjmonitor/game"
)

// Config sets up a clip's screenplay.
type Config struct {
	Rules  game.Rules
	Tables evaluator.PayTables
	// Meter is the Blazing 7's meter: reset, contribution per wager, and
	// the value at the start of the clip.
	MeterReset, MeterContribution, MeterStart float64
	// Seats at the table, numbered 1 to Seats.
	Seats int
	// Players, when set, are the seats played every round; otherwise each
	// round seats two to five players at random.
	Players []int
	Rounds  int
	FPS     float64
	Seed    uint64
	// FirstRound is the controller's number for the first round.
	FirstRound int
	// SideBetRate is the chance that a player places each side bet.
	SideBetRate float64
	// ErrorRate is the chance that a settlement entry is wrong, and, per
	// round, that a payout is entered for a bet nobody placed.
	ErrorRate float64
	// Stack, when set, is dealt before the shuffled shoe, to script a
	// scene (a 7-7 split, a double, a bust).
	Stack []cards.Card
	// Room, when set, says where the felt has room for a split hand (the
	// clip's layout knows); a pair with no room is played as its total.
	Room   deal.Room
	Timing Timing
}

// Timing is how long the dealer takes, in seconds.
type Timing struct {
	Lead     float64 // empty felt before the first round
	Card     float64 // from one card to the next
	Cover    float64 // the dealer's hand covers a card as it lands
	Decision float64 // a player thinks before a hit, double or split
	BustShow float64 // a busting card lies before the sweep
	Settle   float64 // paying and collecting at the end of a round
	Gap      float64 // empty felt between rounds
}

// DefaultConfig is a Free Bet table with 7 seats at 25 frames a second,
// every controller entry correct.
func DefaultConfig() Config {
	return Config{
		Rules:             game.DefaultRules(),
		Tables:            evaluator.DefaultPayTables(),
		MeterReset:        1000,
		MeterContribution: 0.15,
		MeterStart:        1000,
		Seats:             7,
		Rounds:            3,
		FPS:               25,
		Seed:              1,
		FirstRound:        1000,
		SideBetRate:       0.6,
		Timing:            Timing{Lead: 1, Card: 0.7, Cover: 0.3, Decision: 0.5, BustShow: 1.2, Settle: 2, Gap: 1},
	}
}

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	if err := c.Rules.Validate(); err != nil {
		return err
	}
	if err := c.Tables.Validate(); err != nil {
		return err
	}
	switch {
	case c.Seats < 1 || c.Seats > 9:
		return fmt.Errorf("seats %d: want 1 to 9", c.Seats)
	case c.Rounds < 1:
		return fmt.Errorf("rounds %d: want at least 1", c.Rounds)
	case !(c.FPS >= 1 && c.FPS <= 120):
		return fmt.Errorf("fps %v: want 1 to 120", c.FPS)
	case !(c.SideBetRate >= 0 && c.SideBetRate <= 1):
		return fmt.Errorf("side bet rate %v: want 0 to 1", c.SideBetRate)
	case !(c.ErrorRate >= 0 && c.ErrorRate <= 1):
		return fmt.Errorf("error rate %v: want 0 to 1", c.ErrorRate)
	case c.Timing.Card <= c.Timing.Cover || c.Timing.Cover <= 0:
		return fmt.Errorf("timing: a card every %vs must take longer than the %vs the hand covers it", c.Timing.Card, c.Timing.Cover)
	}
	for _, p := range c.Players {
		if p < 1 || p > c.Seats {
			return fmt.Errorf("player seat %d: want 1 to %d", p, c.Seats)
		}
	}
	return nil
}

// Card is one physical card's life on the felt.
type Card struct {
	ID    int        `json:"id"`
	Round string     `json:"round"`
	Card  cards.Card `json:"card"`
	// Seat is the seat number, or 0 for the dealer.
	Seat int `json:"seat"`
	// Hand and Index are where the card first lies: the hand at the seat
	// and the card's position in it, from 0.
	Hand  int `json:"hand"`
	Index int `json:"index"`
	// Sideways: a double-down card, laid across.
	Sideways bool `json:"sideways,omitempty"`
	// FaceDown: dealt face down (the hole card) until Turned.
	FaceDown bool `json:"face_down,omitempty"`
	// Frames: it lands (under the dealer's hand), is first seen whole,
	// is turned face up (-1: never), and is swept away.
	Placed  int `json:"placed_frame"`
	Shown   int `json:"shown_frame"`
	Turned  int `json:"turned_frame"`
	Removed int `json:"removed_frame"`
	// Busting: this card took its hand over 21.
	Busting bool `json:"busting,omitempty"`
	// Moves: a split moves the pair's second card to a new hand.
	Moves []Move `json:"moves,omitempty"`
}

// Move is a card moved to another place at a frame.
type Move struct {
	Frame int `json:"frame"`
	Hand  int `json:"hand"`
	Index int `json:"index"`
}

// Arm is the dealer's hand and forearm reaching over a place on the felt.
type Arm struct {
	Start, End int // frames, End excluded
	Round      string
	Seat       int // 0 for the dealer's own cards
	Hand       int
	Index      int
	// Seats are the round's seats as finally dealt (set by ArmAt): where
	// a split hand lies depends on every hand of the round.
	Seats []game.Seat
}

// Round is the ground truth of one round.
type Round struct {
	ID string `json:"round"`
	// StartFrame and EndFrame are the frames of game_start and game_end.
	StartFrame int                 `json:"start_frame"`
	EndFrame   int                 `json:"end_frame"`
	Round      game.Round          `json:"cards"`
	Wagers     []evaluator.Wager   `json:"wagers"`
	Outcomes   []evaluator.Outcome `json:"outcomes"`
	MeterStart float64             `json:"meter_start"`
	MeterEnd   float64             `json:"meter_end"`
	splits     []split
}

type split struct {
	seat, frame int
}

// Injected is a wrong controller entry put in on purpose.
type Injected struct {
	Round string `json:"round"`
	Seat  int    `json:"seat"`
	Bet   string `json:"bet"`
	// Kind is overpaid, underpaid, missed_payout, wrong_award or
	// paid_without_wager.
	Kind     string  `json:"kind"`
	Expected float64 `json:"expected"`
	Entered  float64 `json:"entered"`
}

// The kinds of injected error.
const (
	Overpaid         = "overpaid"
	Underpaid        = "underpaid"
	MissedPayout     = "missed_payout"
	WrongAward       = "wrong_award"
	PaidWithoutWager = "paid_without_wager"
)

// Script is a whole clip's screenplay and ground truth.
type Script struct {
	FPS      float64            `json:"fps"`
	Frames   int                `json:"frames"`
	Cards    []Card             `json:"cards"`
	Rounds   []Round            `json:"rounds"`
	Events   []controller.Event `json:"-"`
	Injected []Injected         `json:"injected"`
	Arms     []Arm              `json:"-"`
}

// Placement is a card on the felt at one frame.
type Placement struct {
	Card *Card
	// Hand and Index are where it lies now; Hands is how many hands its
	// seat has now (split hands lie side by side).
	Hand, Index, Hands int
	FaceDown           bool
	// Seats are the seats of the card's round as finally dealt: where a
	// split hand lies depends on every hand of the round.
	Seats []game.Seat
}

// At returns the cards on the felt at frame f, in the order they landed
// (later cards lie on top).
func (s *Script) At(f int) []Placement {
	var out []Placement
	for i := range s.Cards {
		c := &s.Cards[i]
		if f < c.Placed || f >= c.Removed {
			continue
		}
		p := Placement{Card: c, Hand: c.Hand, Index: c.Index, FaceDown: c.FaceDown && (c.Turned < 0 || f < c.Turned), Hands: 1}
		for _, m := range c.Moves {
			if f >= m.Frame {
				p.Hand, p.Index = m.Hand, m.Index
			}
		}
		if c.Seat > 0 {
			if r := s.round(c.Round); r != nil {
				p.Hands, p.Seats = handsAt(r, c.Seat, f), r.Round.Seats
			}
		}
		out = append(out, p)
	}
	return out
}

// round returns the round of an ID, or nil.
func (s *Script) round(id string) *Round {
	for i := range s.Rounds {
		if s.Rounds[i].ID == id {
			return &s.Rounds[i]
		}
	}
	return nil
}

// handsAt is how many hands a seat of round r has at frame f.
func handsAt(r *Round, seat, f int) int {
	n := 1
	for _, sp := range r.splits {
		if sp.seat == seat && f >= sp.frame {
			n++
		}
	}
	return n
}

// ArmAt returns the dealer's hand over the felt at frame f, if any.
func (s *Script) ArmAt(f int) (Arm, bool) {
	for _, a := range s.Arms {
		if f >= a.Start && f < a.End {
			if r := s.round(a.Round); a.Seat > 0 && r != nil {
				a.Seats = r.Round.Seats
			}
			return a, true
		}
	}
	return Arm{}, false
}

// Write deals the rounds and writes the screenplay.
func Write(cfg Config) (*Script, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	meter, err := evaluator.NewMeter(cfg.MeterReset, cfg.MeterContribution, cfg.MeterStart)
	if err != nil {
		return nil, err
	}
	w := &writer{
		cfg:    cfg,
		s:      &Script{FPS: cfg.FPS},
		shoe:   &stacked{stack: slices.Clone(cfg.Stack), shoe: deal.NewShoe(cfg.Rules.Decks, rand.New(rand.NewPCG(cfg.Seed, 1)))},
		bets:   rand.New(rand.NewPCG(cfg.Seed, 2)),
		errs:   rand.New(rand.NewPCG(cfg.Seed, 3)),
		meter:  meter,
		t:      cfg.Timing.Lead,
		onFelt: map[place][]int{},
	}
	for i := 0; i < cfg.Rounds; i++ {
		w.round(strconv.Itoa(cfg.FirstRound + i))
	}
	w.s.Frames = w.frame(w.t + cfg.Timing.Gap)
	controller.SortByTime(w.s.Events)
	return w.s, nil
}

// stacked deals the stacked cards first, then from the shoe.
type stacked struct {
	stack []cards.Card
	shoe  *deal.Shoe
}

func (s *stacked) Next() cards.Card {
	if len(s.stack) > 0 {
		c := s.stack[0]
		s.stack = s.stack[1:]
		return c
	}
	return s.shoe.Next()
}

type place struct{ seat, hand int }

type writer struct {
	cfg   Config
	s     *Script
	shoe  *stacked
	bets  *rand.Rand
	errs  *rand.Rand
	meter *evaluator.Meter
	t     float64 // seconds
	// onFelt lists the IDs of the cards in each hand of the current round.
	onFelt map[place][]int
}

func (w *writer) frame(t float64) int { return int(math.Round(t * w.cfg.FPS)) }

func (w *writer) event(e controller.Event) {
	w.s.Events = append(w.s.Events, controller.At(math.Round(w.t*1000)/1000, e))
	w.t += 0.05
}

func (w *writer) players() []int {
	if len(w.cfg.Players) > 0 {
		return w.cfg.Players
	}
	n := 2 + w.bets.IntN(4)
	seats := w.bets.Perm(w.cfg.Seats)[:min(n, w.cfg.Seats)]
	for i := range seats {
		seats[i]++
	}
	slices.Sort(seats)
	return seats
}

func (w *writer) wagers(players []int) []evaluator.Wager {
	var out []evaluator.Wager
	offered := []evaluator.Bet{evaluator.TwentyOnePlusThree, evaluator.Blazing7s}
	if w.cfg.Rules.Variant == game.FreeBet {
		offered = append(offered, evaluator.Push22, evaluator.PotOfGold)
	}
	amounts := map[evaluator.Bet][]float64{
		evaluator.TwentyOnePlusThree: {1, 2, 5, 10, 25},
		evaluator.Blazing7s:          {1},
		evaluator.Push22:             {1, 5, 10},
		evaluator.PotOfGold:          {1, 2, 5},
	}
	for _, seat := range players {
		for _, b := range offered {
			if w.bets.Float64() < w.cfg.SideBetRate {
				a := amounts[b]
				out = append(out, evaluator.Wager{Seat: seat, Bet: b, Amount: a[w.bets.IntN(len(a))]})
			}
		}
	}
	return out
}

func (w *writer) round(id string) {
	tm := w.cfg.Timing
	clear(w.onFelt)
	if w.shoe.shoe.PastCut() {
		w.shoe.shoe.Shuffle()
	}
	players := w.players()
	r := Round{ID: id, StartFrame: w.frame(w.t), MeterStart: w.meter.Value()}
	w.event(controller.Event{Type: controller.GameStart, Round: id})
	r.Wagers = w.wagers(players)
	for _, wg := range r.Wagers {
		w.event(controller.Event{Type: controller.Wager, Round: id, Seat: wg.Seat, Bet: string(wg.Bet), Amount: wg.Amount})
		if wg.Bet == evaluator.Blazing7s {
			w.meter.Wager()
		}
	}
	w.t += 0.5

	arms := len(w.s.Arms)
	truth, steps := deal.PlayRoom(w.shoe, w.cfg.Rules, players, w.cfg.Room)
	r.Round = truth
	r.Round.ID = id
	w.s.Rounds = append(w.s.Rounds, r)
	cur := &w.s.Rounds[len(w.s.Rounds)-1]

	// The outcomes are known once the cards are; 21+3 is settled after
	// the first deal, the rest at the end.
	r.Outcomes = w.outcomes(cur.Round, r.Wagers)
	cur.Outcomes = r.Outcomes
	dealt := 0
	initial := 2*len(players) + 1
	if w.cfg.Rules.HoleCard {
		initial++
	}
	for _, st := range steps {
		switch st.Kind {
		case deal.Initial, deal.UpCard, deal.HoleCard:
			w.lay(id, st, st.Kind == deal.HoleCard, false)
			dealt++
			if dealt == initial {
				w.settle(cur, func(o evaluator.Outcome) bool { return o.Bet == evaluator.TwentyOnePlusThree })
			}
		case deal.Hit, deal.SplitCard:
			if st.Kind == deal.Hit {
				w.t += tm.Decision
			}
			w.lay(id, st, false, false)
		case deal.DoubleCard:
			w.t += tm.Decision
			w.lay(id, st, false, true)
		case deal.DealerHit:
			w.lay(id, st, false, false)
		case deal.SplitMove:
			w.t += tm.Decision
			w.splitMove(cur, st)
		case deal.Bust:
			w.bust(st)
		case deal.Reveal:
			w.reveal(id)
		}
	}
	w.t += 0.5
	w.settle(cur, func(o evaluator.Outcome) bool { return o.Bet != evaluator.TwentyOnePlusThree })
	w.injectUnwagered(cur, players)
	w.event(controller.Event{Type: controller.Meter, Bet: string(evaluator.Blazing7s), Amount: w.meter.Value()})
	cur.MeterEnd = w.meter.Value()
	w.t += tm.Settle
	w.clearFelt()
	for i := arms; i < len(w.s.Arms); i++ {
		w.s.Arms[i].Round = id
	}
	cur.EndFrame = w.frame(w.t)
	w.event(controller.Event{Type: controller.GameEnd, Round: id})
	w.t += tm.Gap
}

// outcomes judges every wager, in seat order, advancing the meter for the
// awards as the controller would.
func (w *writer) outcomes(r game.Round, wagers []evaluator.Wager) []evaluator.Outcome {
	out := make([]evaluator.Outcome, 0, len(wagers))
	for _, wg := range wagers {
		o, err := evaluator.Evaluate(r, w.cfg.Rules, wg, w.cfg.Tables, w.meter.Value())
		if err != nil {
			// Every seat that wagers is dealt two cards, so this is a bug.
			panic(fmt.Sprintf("script: round %s: %v", r.ID, err))
		}
		if o.MeterShare > 0 {
			w.meter.Award(o.MeterShare)
		}
		out = append(out, o)
	}
	return out
}

// lay puts the card of step st on the felt, under the dealer's hand.
func (w *writer) lay(round string, st deal.Step, faceDown, sideways bool) {
	tm := w.cfg.Timing
	pl := place{st.Seat, st.Hand}
	c := Card{
		ID: len(w.s.Cards), Round: round, Card: st.Card, Seat: st.Seat, Hand: st.Hand,
		Index: len(w.onFelt[pl]), Sideways: sideways, FaceDown: faceDown,
		Placed: w.frame(w.t), Shown: w.frame(w.t + tm.Cover), Turned: -1, Removed: math.MaxInt32,
	}
	w.s.Arms = append(w.s.Arms, Arm{Start: w.frame(w.t - 0.15), End: c.Shown, Seat: st.Seat, Hand: st.Hand, Index: c.Index})
	w.onFelt[pl] = append(w.onFelt[pl], c.ID)
	w.s.Cards = append(w.s.Cards, c)
	w.t += tm.Card
}

func (w *writer) splitMove(r *Round, st deal.Step) {
	tm := w.cfg.Timing
	from := r.Round.Seats[seatIndex(r.Round, st.Seat)].Hands[st.Hand].SplitFrom
	src := place{st.Seat, from}
	ids := w.onFelt[src]
	moved := ids[len(ids)-1] // the pair's second card
	w.onFelt[src] = ids[:len(ids)-1]
	f := w.frame(w.t)
	w.s.Arms = append(w.s.Arms, Arm{Start: f, End: w.frame(w.t + tm.Cover), Seat: st.Seat, Hand: st.Hand})
	w.s.Cards[moved].Moves = append(w.s.Cards[moved].Moves, Move{Frame: w.frame(w.t + tm.Cover/2), Hand: st.Hand, Index: 0})
	r.splits = append(r.splits, split{seat: st.Seat, frame: w.frame(w.t + tm.Cover/2)})
	w.onFelt[place{st.Seat, st.Hand}] = []int{moved}
	w.t += tm.Card
}

func (w *writer) bust(st deal.Step) {
	tm := w.cfg.Timing
	pl := place{st.Seat, st.Hand}
	ids := w.onFelt[pl]
	w.s.Cards[ids[len(ids)-1]].Busting = true
	w.t += tm.BustShow - tm.Card/2 // the busting card has lain since it was dealt
	f := w.frame(w.t)
	w.s.Arms = append(w.s.Arms, Arm{Start: f - w.frame(0.2), End: f + w.frame(tm.Cover), Seat: st.Seat, Hand: st.Hand})
	for _, id := range ids {
		w.s.Cards[id].Removed = f
	}
	delete(w.onFelt, pl)
	w.t += tm.Card
}

func (w *writer) reveal(round string) {
	for _, id := range w.onFelt[place{0, 0}] {
		c := &w.s.Cards[id]
		if c.FaceDown && c.Turned < 0 {
			f := w.frame(w.t)
			c.Turned = f
			w.s.Arms = append(w.s.Arms, Arm{Start: f - w.frame(0.2), End: f + w.frame(w.cfg.Timing.Cover), Seat: 0, Index: c.Index})
		}
	}
	w.t += w.cfg.Timing.Card
}

// clearFelt sweeps every remaining card, seat by seat, then the dealer's.
func (w *writer) clearFelt() {
	keys := make([]place, 0, len(w.onFelt))
	for k := range w.onFelt {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b place) int {
		// the dealer's cards last
		ka, kb := a.seat, b.seat
		if ka == 0 {
			ka = 100
		}
		if kb == 0 {
			kb = 100
		}
		if ka != kb {
			return ka - kb
		}
		return a.hand - b.hand
	})
	for _, k := range keys {
		f := w.frame(w.t)
		w.s.Arms = append(w.s.Arms, Arm{Start: f - w.frame(0.15), End: f + w.frame(w.cfg.Timing.Cover), Seat: k.seat, Hand: k.hand})
		for _, id := range w.onFelt[k] {
			w.s.Cards[id].Removed = f
		}
		w.t += 0.4
	}
	clear(w.onFelt)
}

func seatIndex(r game.Round, n int) int {
	for i, s := range r.Seats {
		if s.Seat == n {
			return i
		}
	}
	panic(fmt.Sprintf("script: no seat %d", n))
}

package enroll

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"bjmonitor/calibration"
	"bjmonitor/cards"
	"bjmonitor/testvideos/cardart"
	"bjmonitor/testvideos/scene"
	"bjmonitor/vision/classify"
)

var (
	thresholds = flag.Bool("thresholds", false, "measure the template matches on every gnome deck and print how MatchOptions' thresholds were chosen")
	onlyDecks  = flag.String("decks", "", "with -thresholds, only these decks (comma-separated): gnome decks, or procedural ones (proc:N, designs in font families held out of training; they need scripts/setup-fonts)")
)

// playCrop is an index corner of a card dealt in play, cut where the
// card lies, with what it shows.
type playCrop struct {
	card    cards.Card
	visible bool // no other card lies over its index
	crop    gocv.Mat
}

// playCrops deals every card of deck into hands on the default table, as
// in play (overlapping, turned a few degrees, under uneven light and
// noise), over as many scenes as it takes, and cuts both index corners of
// every card with the calibration solved on each scene. The caller
// closes the crops.
func playCrops(tb testing.TB, art *cardart.Art, deck string, seed uint64) []playCrop {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	order := cards.Deck()
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	cropper := classify.NewCropper()
	defer cropper.Close()
	var out []playCrop
	for len(order) > 0 {
		cfg := scene.DefaultConfig()
		cfg.Deck = deck
		sc, err := scene.New(cfg, art, rand.New(rand.NewPCG(seed, uint64(len(order)))))
		if err != nil {
			tb.Fatal(err)
		}
		placed := dealHands(sc.Layout(), &order, rng)
		frame, cal := renderAndCalibrate(tb, sc, placed)
		for i, p := range placed {
			l := poseCard(p.Pose)
			for corner := range 2 {
				crop := gocv.NewMat()
				if err := cropper.Cut(frame, cornerFrame(cal, l, corner), &crop); err != nil {
					crop.Close()
					tb.Fatal(err)
				}
				out = append(out, playCrop{card: p.Card, visible: indexVisible(placed, i, corner), crop: crop})
			}
		}
		frame.Close()
		sc.Close()
	}
	return out
}

// dealHands takes cards off order into hands of four at every seat and
// the dealer's row, each card shifted up to 2 mm and turned up to 3°.
func dealHands(l *scene.Layout, order *[]cards.Card, rng *rand.Rand) []scene.PlacedCard {
	jitter := func(p scene.Pose) scene.Pose {
		p.Center = p.Center.Add(scene.Point{X: rng.Float64()*4 - 2, Y: rng.Float64()*4 - 2})
		p.RotDeg += rng.Float64()*6 - 3
		return p
	}
	var placed []scene.PlacedCard
	take := func(pose scene.Pose, z int) {
		if len(*order) == 0 {
			return
		}
		placed = append(placed, scene.PlacedCard{Card: (*order)[0], Pose: jitter(pose), Z: z})
		*order = (*order)[1:]
	}
	for _, s := range l.Seats {
		for i := range 4 {
			take(s.CardPose(0, 1, i), i)
		}
	}
	for i := range 4 {
		take(l.Dealer.CardPose(i), i)
	}
	return placed
}

func renderAndCalibrate(tb testing.TB, sc *scene.Scene, placed []scene.PlacedCard) (gocv.Mat, *calibration.Calibration) {
	tb.Helper()
	if err := sc.SetCards(placed); err != nil {
		tb.Fatal(err)
	}
	frame := gocv.NewMat()
	if err := sc.Render(&frame, 1); err != nil {
		frame.Close()
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "table.json")
	if err := sc.WriteCalibration(path); err != nil {
		frame.Close()
		tb.Fatal(err)
	}
	table, err := calibration.Load(path)
	if err != nil {
		frame.Close()
		tb.Fatal(err)
	}
	cal, err := calibration.Solve(frame, table)
	if err != nil {
		frame.Close()
		tb.Fatal(err)
	}
	return frame, cal
}

func poseCard(p scene.Pose) laid {
	s, c := math.Sincos(p.RotDeg * math.Pi / 180)
	return laid{
		centre: calibration.Point{X: p.Center.X, Y: p.Center.Y},
		u:      calibration.Point{X: c, Y: s},
		v:      calibration.Point{X: -s, Y: c},
	}
}

// indexVisible reports whether no card above placed[i] covers any of the
// index box (2..12 mm by 2..25 mm from the corner) of its corner.
func indexVisible(placed []scene.PlacedCard, i, corner int) bool {
	l := poseCard(placed[i].Pose)
	u, v := l.u, l.v
	if corner == 1 {
		u, v = scale(u, -1), scale(v, -1)
	}
	o := calibration.Point{X: l.centre.X - u.X*cardW/2 - v.X*cardH/2, Y: l.centre.Y - u.Y*cardW/2 - v.Y*cardH/2}
	for j := i + 1; j < len(placed); j++ {
		if placed[j].Z <= placed[i].Z {
			continue
		}
		q := poseCard(placed[j].Pose)
		for _, a := range [][2]float64{{2, 2}, {12, 2}, {2, 25}, {12, 25}, {7, 13}} {
			p := calibration.Point{X: o.X + a[0]*u.X + a[1]*v.X, Y: o.Y + a[0]*u.Y + a[1]*v.Y}
			d := calibration.Point{X: p.X - q.centre.X, Y: p.Y - q.centre.Y}
			if math.Abs(d.X*q.u.X+d.Y*q.u.Y) < cardW/2 && math.Abs(d.X*q.v.X+d.Y*q.v.Y) < cardH/2 {
				return false
			}
		}
	}
	return true
}

func closeCrops(cs []playCrop) {
	for _, c := range cs {
		c.crop.Close()
	}
}

// TestEnrolledReadsPlay enrols a deck the model never trained on, then
// reads every index corner of that deck dealt in hands. With the deck no
// corner is read wrong with confidence (0.75, what an alert trusts), the
// deck itself decides a third of the visible indices or more, and the
// visible indices are read right at least as often as by the model alone.
func TestEnrolledReadsPlay(t *testing.T) {
	art := newArt(t)
	model := openCascade(t)
	const deck = "neoclassical"
	d, _, err := learn(t, still(t, art, deck, 3, nil), model)
	if err != nil {
		t.Fatal(err)
	}
	e, err := classify.NewEnrolled(openCascadeOwned(t), openEmbedder(t), d, classify.DefaultMatchOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	pcs := playCrops(t, art, deck, 11)
	defer closeCrops(pcs)
	var crops []gocv.Mat
	for _, pc := range pcs {
		crops = append(crops, pc.crop)
	}
	got, err := e.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := model.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	visible, decided, right, rightAlone := 0, 0, 0, 0
	for i, pc := range pcs {
		if got[i].Card.Valid() && got[i].Card != pc.card && got[i].Confidence >= 0.75 {
			t.Errorf("corner of %v read %v", pc.card, got[i])
		}
		if !pc.visible {
			continue
		}
		visible++
		if got[i].Confidence >= classify.DefaultMatchOptions().Confidence {
			decided++
		}
		if got[i].Card == pc.card {
			right++
		}
		if alone[i].Card == pc.card {
			rightAlone++
		}
	}
	t.Logf("%d visible index corners: %d read right (%d by the model alone), %d decided by the deck", visible, right, rightAlone, decided)
	if visible < 50 || decided < visible/3 || right < rightAlone {
		t.Errorf("%d visible index corners, %d read right (model alone %d), %d decided; want at least 50, a third decided, no fewer right than alone", visible, right, rightAlone, decided)
	}
}

// matchStat is one crop's best template match and whether it was right.
type matchStat struct {
	score, ratio float64
	right        bool
	visible      bool
	agree        bool // the model reads the card the templates match best
	modelRight   bool // the model reads the card
	// nearWrong is the cosine of the nearest card other than the crop's
	// own, truth the crop's own, and model the card the model reads,
	// where it reads a card (else NaN): Likeness.Prefers compares them.
	nearWrong, truth, model float64
}

// decided reports whether the deck decides the corner at o, as
// classify.Match.Decided does.
func (m matchStat) decided(o classify.MatchOptions) bool {
	ratio := o.OverruleRatio
	if m.agree {
		ratio = o.ConfirmRatio
	}
	return m.score >= o.MinScore && m.ratio >= ratio
}

// TestEnrolledThresholds measures, on every gnome deck, how the enrolled
// templates match index corners dealt in play, and prints for a grid of
// thresholds how many corners they decide and how many of those wrong.
// It is how DefaultMatchOptions was chosen; the KDE acceptance decks are
// never used here. Run it with -thresholds (some minutes).
func TestEnrolledThresholds(t *testing.T) {
	if !*thresholds {
		t.Skip("run with -thresholds")
	}
	art := newArt(t)
	model := openCascade(t)
	decks, err := cardart.Decks("")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, dk := range decks {
		names = append(names, dk.Name)
	}
	if *onlyDecks != "" {
		names = strings.Split(*onlyDecks, ",")
	}
	var all []matchStat
	for _, name := range names {
		// A deck's seeds follow its place among the gnome decks, as
		// they did before procedural decks could be named; a
		// procedural deck's follow its own seed.
		k := slices.IndexFunc(decks, func(dk cardart.Deck) bool { return dk.Name == name })
		if n, ok := strings.CutPrefix(name, cardart.ProceduralPrefix); ok {
			// proc:7u, proc:7t and proc:7ut are dealt as proc:7 is.
			seed := strings.TrimSuffix(strings.TrimSuffix(n, cardart.TightSuffix), cardart.UprightSuffix)
			if k, err = strconv.Atoi(seed); err != nil {
				t.Fatalf("deck %q: %v", name, err)
			}
			k += 100
		} else if k < 0 {
			t.Fatalf("no deck %q", name)
		}
		dk := cardart.Deck{Name: name}
		d, _, err := learn(t, still(t, art, dk.Name, uint64(20+k), nil), model)
		if err != nil {
			t.Errorf("%s: %v", dk.Name, err)
			continue
		}
		stats := deckStats(t, art, d, dk.Name, uint64(40+k))
		all = append(all, stats...)
		t.Logf("%-18s %s", dk.Name, summary(stats, classify.DefaultMatchOptions()))
	}
	t.Logf("all decks: %s", summary(all, classify.DefaultMatchOptions()))
	thresholdTables(t, all)
}

// thresholdTables prints, for a grid of score floors and ratios, how many
// corners the matches decide and how many of them wrong.
func thresholdTables(t *testing.T, all []matchStat) {
	for _, agree := range []bool{true, false} {
		var b strings.Builder
		what := "overrule the model (the model reads another card)"
		if agree {
			what = "confirm the model (it reads the same card)"
		}
		fmt.Fprintf(&b, "where the deck would %s: corners decided / wrong, by MinScore (rows) and ratio (columns):\n%8s", what, "")
		ratios := []float64{1, 1.5, 2, 3, 4, 5, 6}
		for _, r := range ratios {
			fmt.Fprintf(&b, " %10.1f", r)
		}
		for _, s := range []float64{0.5, 0.7, 0.8, 0.9} {
			fmt.Fprintf(&b, "\n%8.2f", s)
			for _, r := range ratios {
				dec, wrong := decide(all, s, r, agree)
				fmt.Fprintf(&b, " %5d %4d", dec, wrong)
			}
		}
		t.Log(b.String())
	}
	pairTable(t, all)
	right, wrong := split(all)
	t.Logf("right best matches: score %s; ratio %s", quantiles(right, func(m matchStat) float64 { return m.score }), quantiles(right, func(m matchStat) float64 { return m.ratio }))
	t.Logf("wrong best matches: score %s; ratio %s", quantiles(wrong, func(m matchStat) float64 { return m.score }), quantiles(wrong, func(m matchStat) float64 { return m.ratio }))
}

// pairTable prints, for a grid of ratios, how the deck compares two
// cards at a visible corner (Likeness.Prefers, as where a card's two
// corners read as two cards): how often the corner looks more like some
// other card than its own, and, where the model misreads it, how often
// it looks more like its own card than the model's, and the reverse.
func pairTable(t *testing.T, all []matchStat) {
	var b strings.Builder
	vis, misread := 0, 0
	for _, m := range all {
		if m.visible {
			vis++
			if !m.modelRight && !math.IsNaN(m.model) {
				misread++
			}
		}
	}
	fmt.Fprintf(&b, "two cards compared at %d visible corners (%d misread by the model), by ratio:\n%6s %22s %24s %24s", vis, misread, "ratio", "another card preferred", "own preferred to model's", "model's preferred to own")
	for _, r := range []float64{1, 1.5, 2, 3, 4} {
		other, own, models := 0, 0, 0
		for _, m := range all {
			if !m.visible {
				continue
			}
			if 1-m.truth >= r*math.Max(1-m.nearWrong, 1e-9) {
				other++
			}
			if m.modelRight || math.IsNaN(m.model) {
				continue
			}
			if 1-m.model >= r*math.Max(1-m.truth, 1e-9) {
				own++
			}
			if 1-m.truth >= r*math.Max(1-m.model, 1e-9) {
				models++
			}
		}
		fmt.Fprintf(&b, "\n%6.1f %22d %24d %24d", r, other, own, models)
	}
	t.Log(b.String())
	o := classify.DefaultMatchOptions()
	doubted, bestRight, modelRight := 0, 0, 0
	for _, m := range all {
		if m.decided(o) || m.agree || math.IsNaN(m.model) || m.score < o.MinScore || 1-m.model < o.OverruleRatio*math.Max(1-m.score, 1e-9) {
			continue
		}
		doubted++
		if m.right {
			bestRight++
		}
		if m.modelRight {
			modelRight++
		}
	}
	t.Logf("at the defaults the deck puts its best card in doubt in the model's place at %d corners (all %d): the best card right %d, the model's right %d",
		doubted, len(all), bestRight, modelRight)
}

func deckStats(tb testing.TB, art *cardart.Art, d *classify.Deck, deck string, seed uint64) []matchStat {
	tb.Helper()
	inner := openCascadeOwned(tb)
	e, err := classify.NewEnrolled(inner, openEmbedder(tb), d, classify.DefaultMatchOptions())
	if err != nil {
		tb.Fatal(err)
	}
	defer e.Close()
	pcs := playCrops(tb, art, deck, seed)
	defer closeCrops(pcs)
	var crops []gocv.Mat
	for _, pc := range pcs {
		crops = append(crops, pc.crop)
	}
	ms, err := e.Match(crops)
	if err != nil {
		tb.Fatal(err)
	}
	model := openCascadeOwned(tb)
	defer model.Close()
	res, err := model.Classify(crops)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]matchStat, len(ms))
	for i, m := range ms {
		out[i] = matchStat{score: m.Score, ratio: m.Ratio(), right: m.Card == pcs[i].card, visible: pcs[i].visible, agree: res[i].Card == m.Card, modelRight: res[i].Card == pcs[i].card}
		out[i].truth, _ = m.Likeness.Of(pcs[i].card)
		out[i].nearWrong, out[i].model = math.Inf(-1), math.NaN()
		for _, c := range cards.Deck() {
			if cos, ok := m.Likeness.Of(c); ok && c != pcs[i].card {
				out[i].nearWrong = math.Max(out[i].nearWrong, cos)
			}
		}
		if cos, ok := m.Likeness.Of(res[i].Card); ok {
			out[i].model = cos
		}
	}
	return out
}

func openCascadeOwned(tb testing.TB) *classify.Cascade {
	tb.Helper()
	c, err := classify.OpenCascade(fastModelPath, modelPath, classify.DefaultRecheckBelow)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func decide(all []matchStat, score, ratio float64, agree bool) (decided, wrong int) {
	for _, m := range all {
		if m.agree == agree && m.score >= score && m.ratio >= ratio {
			decided++
			if !m.right {
				wrong++
			}
		}
	}
	return decided, wrong
}

func summary(stats []matchStat, o classify.MatchOptions) string {
	vis, visDecided, visModel, dec, wrong := 0, 0, 0, 0, 0
	for _, m := range stats {
		d := m.decided(o)
		if m.visible {
			vis++
			if d && m.right {
				visDecided++
			}
			if m.modelRight {
				visModel++
			}
		}
		if d {
			dec++
			if !m.right {
				wrong++
			}
		}
	}
	return fmt.Sprintf("%d corners (%d with the index visible): %d decided, %d of them wrong; visible indices decided right %d of %d (the model reads %d right)",
		len(stats), vis, dec, wrong, visDecided, vis, visModel)
}

func split(all []matchStat) (right, wrong []matchStat) {
	for _, m := range all {
		if m.right {
			right = append(right, m)
		} else {
			wrong = append(wrong, m)
		}
	}
	return right, wrong
}

func quantiles(ms []matchStat, f func(matchStat) float64) string {
	if len(ms) == 0 {
		return "none"
	}
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	sort.Float64s(v)
	q := func(p float64) float64 { return v[int(p*float64(len(v)-1))] }
	return fmt.Sprintf("min %.3f, 1%% %.3f, 10%% %.3f, median %.3f, max %.3f (n=%d)", q(0), q(0.01), q(0.1), q(0.5), q(1), len(v))
}

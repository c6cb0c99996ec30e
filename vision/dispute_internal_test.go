package vision

import (
	"math"
	"slices"
	"strings"
	"testing"

	"bjmonitor/calibration"
	"bjmonitor/cards"
)

// TestDropSamePlace reads one card's place as the cases say, each group
// a card read at a corner with its confidence (guessed: at a corner only
// guessed), and checks what stands there: the surest reading, in doubt
// where another card was read there at disputeFloor or more at a corner
// not merely guessed, with that card as its rival where the reading
// itself was sure. A card's two index corners, a half turn apart, are
// one place though the centres they give lie apart, where both read
// one rank: as KDE nicu-white's 3♠ in a fan of four (acceptance seed
// 3403, round 1005, seat 6, frame 2150), its top left corner placed 11°
// askew and read 3♠, its bottom right one read 3♣, 13.8 mm apart.
func TestDropSamePlace(t *testing.T) {
	type group struct {
		card    string
		conf    float64
		guessed bool
		at      calibration.Point
		corners []corner // where it was read
	}
	one := []corner{{}} // one corner, in no frame: no half-turn twin
	here, away := calibration.Point{X: 100, Y: 200}, calibration.Point{X: 100, Y: 240}
	deg := func(a float64) calibration.Point { return pt(math.Cos(a*math.Pi/180), math.Sin(a*math.Pi/180)) }
	at := func(x, y, a float64) corner { return corner{P: pt(x, y), U: deg(a), V: deg(a + 90)} }
	topLeft, bottomRight := at(-345.4, 288.8, 7), at(-307.2, 388.8, -172)
	fan3S, fan3C := calibration.Point{X: -319.4, Y: 336.3}, calibration.Point{X: -332.4, Y: 340.9}
	tests := []struct {
		name       string
		groups     []group
		wantConf   float64 // the first group's, which stands
		wantRivals string
	}{
		{"a sure reading disputed", []group{{"9C", 0.95, false, here, one}, {"6C", 0.6, false, here, one}}, DisputedConfidence, "6C"},
		{"a doubtful reading disputed", []group{{"9C", 0.72, false, here, one}, {"6C", 0.6, false, here, one}}, DisputedConfidence, ""},
		{"disputed by two", []group{{"9C", 0.95, false, here, one}, {"6C", 0.6, false, here, one}, {"8C", 0.55, false, here, one}}, DisputedConfidence, "6C 8C"},
		{"another card read too doubtfully", []group{{"9C", 0.95, false, here, one}, {"6C", 0.4, false, here, one}}, 0.95, ""},
		{"another card read at a guessed corner", []group{{"9C", 0.95, false, here, one}, {"6C", 0.6, true, here, one}}, 0.95, ""},
		{"the same card read twice", []group{{"9C", 0.95, false, here, one}, {"9C", 0.6, false, here, one}}, 0.95, ""},
		{"another card read at another place", []group{{"9C", 0.95, false, here, one}, {"6C", 0.6, false, away, one}}, 0.95, ""},
		{"one card's two index corners, read two suits", []group{{"3S", 0.95, false, fan3S, []corner{topLeft}}, {"3C", 0.55, false, fan3C, []corner{bottomRight}}}, DisputedConfidence, "3C"},
		{"a card read at two corners, and one rank read apart", []group{{"8D", 0.6, false, fan3S, []corner{topLeft}}, {"8H", 0.88, false, fan3C, []corner{bottomRight, at(-358.4, 292.1, 8)}}}, 0.6, ""},
		{"one card read at its two corners apart", []group{{"3S", 0.6, false, fan3S, []corner{topLeft}}, {"3S", 0.95, false, fan3C, []corner{bottomRight}}}, 0.6, ""},
		{"two ranks read at corners a half turn apart", []group{{"3S", 0.95, false, fan3S, []corner{topLeft}}, {"4C", 0.55, false, fan3C, []corner{bottomRight}}}, 0.95, ""},
		{"two ranks alike further apart", []group{{"3S", 0.95, false, fan3S, []corner{topLeft}}, {"3C", 0.55, false, fan3C.Add(pt(-10, 10)), []corner{at(-317.2, 398.8, -172)}}}, 0.95, ""},
		{"one rank read apart, not a half turn", []group{{"3S", 0.95, false, fan3S, []corner{topLeft}}, {"3C", 0.55, false, fan3C, []corner{at(-307.2, 388.8, 98)}}}, 0.95, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var faces []*faceGroup
			for _, g := range tt.groups {
				faces = append(faces, &faceGroup{face: face{card: cards.MustParse(g.card), conf: g.conf, centre: g.at}, at: g.corners, guessed: g.guessed})
			}
			dropSamePlace(faces)
			if !faces[0].kept() || faces[0].conf != tt.wantConf {
				t.Fatalf("%s: kept %v at %.2f, want kept at %.2f", tt.groups[0].card, faces[0].kept(), faces[0].conf, tt.wantConf)
			}
			var rivals []string
			for _, c := range faces[0].rivals {
				rivals = append(rivals, c.String())
			}
			slices.Sort(rivals)
			if got := strings.Join(rivals, " "); got != tt.wantRivals {
				t.Errorf("rivals %q, want %q", got, tt.wantRivals)
			}
		})
	}
}

// TestMergeTwoCards merges two zones' observations of one card that name
// two cards and checks which stands. The cases come from KDE
// ancient-egyptians (acceptance seed 3201), a deck that prints its second
// index upright, on cards straddling two seats' zones:
//   - round 1000, frame 426: a 6♣ whose two corners seat 3 read 6♣ at
//     0.99 and 9♣ at 0.87 (the upright index upside down), and so put
//     the 6♣ in doubt with the 9♣ as its rival; seat 2 saw the second
//     corner alone, read it 9♣ at 0.87, and that, surer than the card in
//     doubt, stood for it;
//   - round 1001, frame 758: a 6♥ whose two corners seat 2 read 6♥ (the
//     second one turned back, settleTurned); seat 1 saw the second one
//     alone and read it 9♦ at 0.98, surer than seat 2's 0.975.
func TestMergeTwoCards(t *testing.T) {
	at := calibration.Point{X: 198, Y: 358}
	obs := func(card string, conf float64, indices int, rivals ...string) Observation {
		o := Observation{Card: cards.MustParse(card), Confidence: conf, Center: at, Angle: -100, indices: indices}
		for _, r := range rivals {
			o.Rivals = append(o.Rivals, cards.MustParse(r))
		}
		return o
	}
	tests := []struct {
		name       string
		a, b       Observation
		want       string
		wantRivals string
	}{
		{"the zone that weighed the other's card", obs("6C", DisputedConfidence, 1, "9C"), obs("9C", 0.87, 1), "6C", "9C"},
		{"the same, zones the other way", obs("9C", 0.87, 1), obs("6C", DisputedConfidence, 1, "9C"), "6C", "9C"},
		{"both weighed the other's: the surer", obs("6C", DisputedConfidence, 1, "9C"), obs("9C", 0.72, 1, "6C"), "9C", "6C"},
		{"another rival weighed: the surer", obs("6C", DisputedConfidence, 1, "8C"), obs("9C", 0.87, 1), "9C", ""},
		{"two corners agree", obs("6H", 0.975, 2), obs("9D", 0.98, 1), "6H", ""},
		{"the same, zones the other way round", obs("9D", 0.98, 1), obs("6H", 0.975, 2), "6H", ""},
		{"two corners agree, not surely: the surer", obs("6H", 0.6, 2), obs("9D", 0.98, 1), "9D", ""},
		{"one corner each: the surer", obs("6C", 0.8, 1), obs("9C", 0.87, 1), "9C", ""},
		{"one card read twice: the surer", obs("6C", 0.98, 1), obs("6C", 0.9, 2), "6C", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Detector{zones: []*zone{{obs: []Observation{tt.a}}, {obs: []Observation{tt.b}}}}
			got := d.merge()
			if len(got) != 1 {
				t.Fatalf("%d observations, want 1: %+v", len(got), got)
			}
			var rivals []string
			for _, r := range got[0].Rivals {
				rivals = append(rivals, r.String())
			}
			if got[0].Card.String() != tt.want || strings.Join(rivals, " ") != tt.wantRivals {
				t.Errorf("%v rivals %v stands, want %s rivals %q", got[0].Card, got[0].Rivals, tt.want, tt.wantRivals)
			}
		})
	}
}

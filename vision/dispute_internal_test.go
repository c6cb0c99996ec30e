package vision

import (
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
// itself was sure.
func TestDropSamePlace(t *testing.T) {
	type group struct {
		card    string
		conf    float64
		guessed bool
		at      calibration.Point
	}
	here, away := calibration.Point{X: 100, Y: 200}, calibration.Point{X: 100, Y: 240}
	tests := []struct {
		name       string
		groups     []group
		wantConf   float64 // the first group's, which stands
		wantRivals string
	}{
		{"a sure reading disputed", []group{{"9C", 0.95, false, here}, {"6C", 0.6, false, here}}, disputedConfidence, "6C"},
		{"a doubtful reading disputed", []group{{"9C", 0.72, false, here}, {"6C", 0.6, false, here}}, disputedConfidence, ""},
		{"disputed by two", []group{{"9C", 0.95, false, here}, {"6C", 0.6, false, here}, {"8C", 0.55, false, here}}, disputedConfidence, "6C 8C"},
		{"another card read too doubtfully", []group{{"9C", 0.95, false, here}, {"6C", 0.4, false, here}}, 0.95, ""},
		{"another card read at a guessed corner", []group{{"9C", 0.95, false, here}, {"6C", 0.6, true, here}}, 0.95, ""},
		{"the same card read twice", []group{{"9C", 0.95, false, here}, {"9C", 0.6, false, here}}, 0.95, ""},
		{"another card read at another place", []group{{"9C", 0.95, false, here}, {"6C", 0.6, false, away}}, 0.95, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var faces []*faceGroup
			for _, g := range tt.groups {
				faces = append(faces, &faceGroup{face: face{card: cards.MustParse(g.card), conf: g.conf, centre: g.at}, at: []corner{{}}, guessed: g.guessed})
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

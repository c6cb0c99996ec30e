package main

import (
	"testing"

	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

func TestLabelOf(t *testing.T) {
	const s = 1.7 // px a mm
	// card returns a card lying upright with its top-left corner at
	// (x, y) px, placed at frame placed.
	card := func(name string, x, y float64, placed int, faceUp bool) lyingCard {
		w, h := 63*s, 88*s
		return lyingCard{card: name, placed: placed, faceUp: faceUp, quad: [4]classify.Vec{
			{X: x, Y: y}, {X: x + w, Y: y}, {X: x + w, Y: y + h}, {X: x, Y: y + h}}}
	}
	// at returns a reading cut at (x, y) px with its edges along u and v.
	at := func(x, y float64, u, v classify.Vec) vision.Reading {
		return vision.Reading{Crop: classify.Frame{Origin: classify.Vec{X: x, Y: y}, U: u.Scale(s), V: v.Scale(s)}}
	}
	right, left, down, up := classify.Vec{X: 1}, classify.Vec{X: -1}, classify.Vec{Y: 1}, classify.Vec{Y: -1}
	sevenS := card("7S", 100, 100, 10, true)
	w, h := 63*s, 88*s
	capped := at(100, 100, right, down)
	capped.Capped = true
	for _, tt := range []struct {
		name       string
		r          vision.Reading
		lying      []lyingCard
		fourCorner bool   // the deck prints four indices
		want       string // "" for no label
	}{
		{"top-left corner", at(101, 102, right, down), []lyingCard{sevenS}, false, "7S"},
		{"bottom-right corner", at(100+w, 100+h, left, up), []lyingCard{sevenS}, false, "7S"},
		{"a few mm off", at(100+3.5*s, 100, right, down), []lyingCard{sevenS}, false, "7S"},
		{"too far off", at(100+6*s, 100, right, down), []lyingCard{sevenS}, false, ""},
		{"top-right corner, no index", at(100+w, 100, down, left), []lyingCard{sevenS}, false, classify.ClassNone},
		{"bottom-left corner, no index", at(100, 100+h, up, right), []lyingCard{sevenS}, false, classify.ClassNone},
		{"top-right corner of a four-index deck", at(100+w, 100, down, left), []lyingCard{sevenS}, true, ""},
		{"top-right corner, a later card over it", at(100+w, 100, down, left), []lyingCard{sevenS, card("KD", 100+w-5*s, 100+5*s, 20, true)}, false, ""},
		{"top-right corner, the crop out of the card", at(100+w, 100, up, right), []lyingCard{sevenS}, false, classify.ClassNone},
		{"top-right corner, the crop on the card beside", at(100+w, 100, up, right), []lyingCard{sevenS, card("KD", 100+w+3*s, 100-40*s, 5, true)}, false, ""},
		{"face down, top-right corner", at(100+w, 100, down, left), []lyingCard{card("7S", 100, 100, 10, false)}, false, ""},
		{"index corner cut along the long edge", at(100, 100, down, right), []lyingCard{sevenS}, false, ""},
		{"face down", at(100, 100, right, down), []lyingCard{card("7S", 100, 100, 10, false)}, false, classify.ClassBack},
		{"under the dealer's hand", capped, []lyingCard{sevenS}, false, ""},
		{"a later card over the index", at(100, 100, right, down), []lyingCard{sevenS, card("KD", 100+4*s, 100+5*s, 20, true)}, false, ""},
		{"a later card over the index's edge", at(100, 100, right, down), []lyingCard{sevenS, card("KD", 100+10*s, 100+22*s, 20, true)}, false, "7S"},
		{"an earlier card beneath", at(100, 100, right, down), []lyingCard{sevenS, card("KD", 100+4*s, 100+5*s, 5, true)}, false, "7S"},
		{"no card there", at(500, 500, right, down), []lyingCard{sevenS}, false, ""},
	} {
		got, ok := labelOf(tt.r, tt.lying, !tt.fourCorner)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("%s: labelOf = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
}

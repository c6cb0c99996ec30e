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
		name  string
		r     vision.Reading
		lying []lyingCard
		want  string // "" for no label
	}{
		{"top-left corner", at(101, 102, right, down), []lyingCard{sevenS}, "7S"},
		{"bottom-right corner", at(100+w, 100+h, left, up), []lyingCard{sevenS}, "7S"},
		{"a few mm off", at(100+3.5*s, 100, right, down), []lyingCard{sevenS}, "7S"},
		{"too far off", at(100+6*s, 100, right, down), []lyingCard{sevenS}, ""},
		{"top-right corner, no index", at(100+w, 100, down, left), []lyingCard{sevenS}, ""},
		{"index corner cut along the long edge", at(100, 100, down, right), []lyingCard{sevenS}, ""},
		{"face down", at(100, 100, right, down), []lyingCard{card("7S", 100, 100, 10, false)}, classify.ClassBack},
		{"under the dealer's hand", capped, []lyingCard{sevenS}, ""},
		{"a later card over the index", at(100, 100, right, down), []lyingCard{sevenS, card("KD", 100+4*s, 100+5*s, 20, true)}, ""},
		{"a later card over the index's edge", at(100, 100, right, down), []lyingCard{sevenS, card("KD", 100+10*s, 100+22*s, 20, true)}, "7S"},
		{"an earlier card beneath", at(100, 100, right, down), []lyingCard{sevenS, card("KD", 100+4*s, 100+5*s, 5, true)}, "7S"},
		{"no card there", at(500, 500, right, down), []lyingCard{sevenS}, ""},
	} {
		got, ok := labelOf(tt.r, tt.lying)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("%s: labelOf = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
}

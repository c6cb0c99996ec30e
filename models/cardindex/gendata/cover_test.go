package main

import (
	"math/rand/v2"
	"testing"
)

// TestCoverPlace: the next card laid over an index covers part of it, the
// pip's foot or the index's outer side, and never the corner where the
// rank begins, so the corner is still found and the crop still cut there.
func TestCoverPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, ext := range []Vec{{12, 25}, {18, 36}} {
		for range 2000 {
			place := coverPlace(r, ext)
			if underCard(place, Vec{1, 1}) || underCard(place, Vec{2, 3}) {
				t.Fatalf("extent %v: a card at %v covers the corner of the rank", ext, place)
			}
			if !underCard(place, Vec{ext.X / 2, ext.Y - 1}) && !underCard(place, Vec{ext.X - 1, ext.Y / 2}) {
				t.Fatalf("extent %v: a card at %v covers none of the index", ext, place)
			}
		}
	}
}

package cardface_test

import (
	"math/rand/v2"
	"testing"

	"bjmonitor/cards"
	"bjmonitor/testvideos/cardface"
)

// BenchmarkDraw times one face at the training data's 300×420.
func BenchmarkDraw(b *testing.B) {
	fonts := goFonts(b)
	r := rand.New(rand.NewPCG(1, 2))
	var sts []cardface.Style
	for range 8 {
		st, err := cardface.NewStyle(r, fonts)
		if err != nil {
			b.Fatal(err)
		}
		sts = append(sts, st)
	}
	deck := cards.Deck()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := cardface.Draw(sts[i%len(sts)], deck[(i*7)%52], 300, 420); err != nil {
			b.Fatal(err)
		}
	}
}

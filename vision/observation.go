package vision

import (
	"bjmonitor/calibration"
	"bjmonitor/cards"
)

// Observation is one card seen in one frame.
type Observation struct {
	// Card is the rank and suit read, or the zero Card when the card is
	// face down or could not be read: its outline shows a card, but no
	// corner of it reads as one (Unreadable).
	Card cards.Card
	// Confidence in the reading, from 0 to 1. A card partly covered by a
	// hand is reported with low confidence, never guessed confidently.
	Confidence float64
	FaceDown   bool
	// Sideways: the card lies across its hand, as a double-down card does.
	Sideways bool
	// Center and Angle place the card on the table: its centre in mm, and
	// the direction of its long edge in degrees.
	Center calibration.Point
	Angle  float64
	// Quad is the card's outline on the table, in mm, and ImageQuad in
	// image pixels; both clockwise from the corner whose index was read.
	Quad      [4]calibration.Point
	ImageQuad [4]calibration.Point
	// Clipped: the card reaches past the edge of the picture. Part of it
	// cannot be seen, nor a card that lies beside it beyond the edge (a
	// split hand laid further out), so its hand may be incomplete.
	Clipped bool
	// Rivals are the other cards this card's corners were read as, each
	// surely enough to put the reading in doubt (its Confidence is then
	// 0.7 at most), where the reading itself was sure: the card is Card
	// or one of them, unless every reading of it was wrong. Nil where
	// no other card was read there.
	Rivals []cards.Card
	// Pips is what the card's pips say where they were counted
	// (Options.CountPips): the rank they count and, where
	// Options.Suits reads them surely as one of the two suits of the
	// colour Card reads, that suit; for a card known by its rank alone,
	// the suit they read surely over all four, each glyph likeliest of
	// it. The zero Card where no pips were counted; its Suit is zero
	// where none was read surely.
	Pips cards.Card
	// indices is how many index corners were read as Card: two where
	// both of a card's index corners were seen and agree, none for a
	// back or a card unread.
	indices int
	// otherSuit is the least probability a reading of Card's index gave
	// Card's rank in the other suit of its colour
	// (classify.Result.OtherSuit).
	otherSuit float64
}

// Confident is the confidence from which a reading counts as sure: the
// bar of at most 0.1% wrong among confident readings is measured at it
// (the card index model was trained with label smoothing, so a sure
// reading scores about 0.95, not 1).
const Confident = 0.75

// DisputedConfidence is what a card in doubt is reported with (its
// corners read as two cards), below Confident: its round goes out for
// review where the card could change the verdict.
const DisputedConfidence = 0.7

// Unreadable is the confidence below which a reading says nothing of
// the card: the model is as likely seeing the printing on the felt, or
// an index it was never shown. A card whose every reading is below it
// is observed with the zero Card: it lies there, unread.
const Unreadable = 0.35

// Frame is what one frame showed.
type Frame struct {
	Index int
	// Time is seconds from the first frame.
	Time  float64
	Cards []Observation
	// Busy reports that something other than cards moved on the felt (a
	// hand, an arm, chips): cards under it may be hidden for a while.
	Busy bool
}

// Dist is the distance between two table points, in mm.
func Dist(a, b calibration.Point) float64 { return a.Sub(b).Len() }

// Package vision turns frames from the overhead camera into card
// observations: every card on the felt, its rank, suit and how sure the
// reading is, where it lies on the table, and whether it is face down or
// sideways (a double-down card).
//
// It spends time only where the picture changed, and only once the change
// has come to rest: most table video is still felt, and a hand moving
// over the cards is not worth reading. The recognition model (package
// vision/classify, files in ../models) runs on OpenCV's DNN module on the
// CPU. With Options.CountPips (the default), a card that lies whole is
// read a second way too, by its pips (package vision/pips), which owe
// nothing to its index's font: where they count another rank, the count
// stands, for review, and a card whose index cannot be read at all is
// known by the rank they count alone (cards.Card.RankOnly). With
// Options.Suits, the pips are read for their suit as well
// (Observation.Pips), for the tracker to weigh against the index's
// reading: a club and a spade are told apart by a pip far larger than
// the index's. A card whose
// two index corners read as two cards is read again with each corner's
// glyphs turned half round, for decks that print their second index
// upright: from the card's other end it stands upside down.
package vision

// Package tracker turns the cards seen frame by frame into rounds: which
// card went to which seat and hand, in the order dealt, including splits,
// doubles, the card that busts a hand (dealt, then swept away) and the
// dealer's hole card once it is turned.
//
// A card counts once it has lain still for Config.StableFrames frames. The
// dealer's hand covers cards as it deals; a card that was counted is
// remembered while covered, and is never counted twice. Cards go to a seat
// by the zone they lie in, and to a hand by position: a new card joins the
// hand whose last card it lies next to, and a card that leaves a pair for a
// place of its own starts a split hand of the pair's seat, in whichever
// seat's zone it lies.
//
// A card in view that cannot be read (seen by its outline alone, or read
// only below vision.Unreadable, clear of the cards counted) counts all
// the same, unread: it keeps its place in its hand, and what it could
// change goes for review. A card whose two index corners read as two
// cards, in one frame or in turn, stands in doubt with both as its
// candidates.
//
// Rounds begin and end with the controller's game_start and game_end
// (StartRound, EndRound). Without a controller, a cleared table ends a
// round, as it does a round whose game_end came too early
// (EndWhenCleared). A round the tracker opened itself, from the cards in
// view, takes the controller's id once the controller names it (Claim).
// Each finished round is checked against the game's rules (a doubled hand
// takes exactly one card, a split needs a pair, the dealer draws to 17);
// what the rules cannot settle is flagged as a doubt and its cards'
// confidence lowered.
//
// A Round is the game's round (game.Round: the seats, hands and cards the
// rules check and the evaluator judges) with what the picture showed of
// each card, by its place: when it was counted, where it lay, how sure its
// reading is. Round.Cards yields each card with its sighting; MarshalJSON
// writes the round record the monitor publishes (package roundrecord's
// layout), and ParseRound reads it back with the sightings.
//
//	t := tracker.New(tracker.DefaultConfig(25), table, rules)
//	for frame := range frames {
//		for _, r := range t.Observe(frame) { publish(r) }
//	}
//	rounds := t.Flush()
//
// A Tracker is not safe for concurrent use.
package tracker

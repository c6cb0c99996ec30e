// Package cardart supplies playing-card images for the synthetic table
// footage: card faces cut from the SVG decks of Debian's gnome-cards-data
// (the aisleriot themes in /usr/share/aisleriot/cards), and a plain card
// back drawn here.
//
// Only decks with English indices (A, K, Q, J) and the four French suits
// in the usual two colours are offered; Decks lists them and Excluded says
// why the others are left out (see also README.md). Other card designs,
// such as the KDE decks, are kept out of New and Decks on purpose: they are
// reserved for acceptance tests, so that the monitor is measured on card
// designs it was never tuned on. NewAcceptance and AcceptanceDecks serve
// the KDE decks of kdegames-card-data-kf5, named "kde:<name>", for
// scripts/acceptance only; training must never call them.
//
// Faces are rendered lazily, a whole deck at a time, with rsvg-convert
// (package librsvg2-bin), and cached as PNG files under
// $XDG_CACHE_HOME/bjmonitor/cardart (Options.CacheDir overrides it), so
// that only the first use of a deck on a machine pays for the rendering.
//
//	art, err := cardart.New(cardart.Options{})
//	if err != nil { ... }
//	defer art.Close() // closes every Mat that Face and Back returned
//	decks, _ := cardart.Decks("")
//	face, err := art.Face(decks[0].Name, cards.MustParse("7S"))
//	// face is BGRA, Options.Width×Height pixels (63×88 mm proportions),
//	// transparent outside the card's rounded corners. The Art owns it:
//	// read it, copy it, never Close or modify it.
//
// An Art is safe for concurrent use.
package cardart

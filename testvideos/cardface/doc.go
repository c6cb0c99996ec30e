// Package cardface draws playing-card faces procedurally, in designs that
// no deck in the project has: the rank in a font (any TrueType or
// OpenType face that draws A, J, Q, K and the digits), the suit pip as a
// drawn shape or a font's suit glyph, laid out as card makers lay out
// their indices.
//
// A Style is one deck's design, drawn at random by NewStyle:
//
//   - index size from regular to jumbo (rank 6.5 to 20 mm high), the pip
//     below the rank or beside it, the index in two corners or in four;
//   - ink in two colours (red and black, each in several shades) or four
//     (green clubs, blue or orange diamonds);
//   - stroke weight thinner or bolder than the font's, condensed or wide
//     ranks, a condensed "10";
//   - white, cream, grey or tinted paper, corner radius 2.5 to 4 mm;
//   - pips for the number cards in the usual layouts, one large pip for
//     aces, and abstract court art in a frame for J, Q and K.
//
// Draw renders one card of a Style as an NRGBA image of any size with the
// card's 63 × 88 mm proportions, transparent outside its rounded outline.
// Fonts are read once by LoadFonts; a Font is safe for concurrent use.
//
// The card index model (models/cardindex) trains on these faces next to
// the gnome decks so that it reads an index by its shape, whatever the
// printer's type; see models/README.md.
//
//	fonts, err := cardface.LoadFonts(cardface.DefaultFontDirs...)
//	...
//	st := cardface.NewStyle(rng, fonts)
//	img := cardface.Draw(st, cards.Card{Rank: cards.Queen, Suit: cards.Hearts}, 300, 420)
package cardface

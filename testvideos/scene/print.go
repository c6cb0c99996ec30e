package scene

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"strings"
)

// The printed layout and the fixed objects on the table (chip tray, shoe,
// discard holder, players' chips) are written as one SVG in table
// millimetres and rendered by rsvg-convert: that gives anti-aliased lines,
// real fonts and gradients for a few lines of code, and the same drawing
// at any resolution. The felt itself is textured in Go (see felt.go),
// because its grain must be per pixel and seeded.

// canvasRect is the part of the table plane the canvas covers, in mm.
type canvasRect struct{ X0, Y0, W, H float64 }

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// layoutSVG returns the SVG of everything printed on or standing on the
// table, transparent where bare felt shows. rng picks the players' chips
// and the tray's fill.
func layoutSVG(l *Layout, cfg Config, r canvasRect, rng *rand.Rand) string {
	var b strings.Builder
	ink := hex(cfg.Ink)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="%.3f %.3f %.3f %.3f">`, r.X0, r.Y0, r.W, r.H)
	b.WriteString(`<defs>
<linearGradient id="wood" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#24140c"/><stop offset="0.7" stop-color="#3b2214"/><stop offset="1" stop-color="#4a2c19"/></linearGradient>
<radialGradient id="chipshade" cx="0.45" cy="0.4" r="0.6"><stop offset="0" stop-color="#fff" stop-opacity="0.18"/><stop offset="1" stop-color="#000" stop-opacity="0.18"/></radialGradient>
<linearGradient id="tube" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#000" stop-opacity="0.55"/><stop offset="0.35" stop-color="#fff" stop-opacity="0.12"/><stop offset="0.6" stop-color="#fff" stop-opacity="0.05"/><stop offset="1" stop-color="#000" stop-opacity="0.6"/></linearGradient>
<linearGradient id="shoe" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#2a0f10"/><stop offset="0.5" stop-color="#4a1a1c"/><stop offset="1" stop-color="#230c0d"/></linearGradient>
</defs>`)
	o := l.ArcCenter
	R := l.Config.FeltRadius
	// Floor and rail everywhere but the felt: the felt is the disc of
	// radius R about o, cut by the dealer's straight edge at Y = 0, and is
	// left transparent (even-odd hole) for the textured felt underneath.
	hx := math.Sqrt(R*R - o.Y*o.Y)
	fmt.Fprintf(&b, `<path fill-rule="evenodd" fill="#1b1517" d="M %.2f %.2f h %.2f v %.2f h %.2f Z M %.2f 0 L %.2f 0 A %.2f %.2f 0 1 1 %.2f 0 Z"/>`,
		r.X0-10, r.Y0-10, r.W+20, r.H+20, -(r.W + 20), -hx, hx, R, R, -hx)
	for i := 0; i < 6; i++ { // the rail's padding, lighter along its crown
		t := float64(i) / 5
		k := math.Sin(t * math.Pi)
		c := color.RGBA{R: uint8(40 + 26*k), G: uint8(24 + 14*k), B: uint8(20 + 9*k), A: 255}
		fmt.Fprintf(&b, `<circle cx="%.2f" cy="%.2f" r="%.2f" fill="none" stroke="%s" stroke-width="20.5"/>`, o.X, o.Y, R+10+20*float64(i), hex(c))
	}
	// The dealer's side of the table: a wooden edge beyond the felt.
	if r.Y0 < 0 {
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="url(#wood)"/>`, r.X0-10, r.Y0-10, r.W+20, -r.Y0+10)
		fmt.Fprintf(&b, `<rect x="%.2f" y="-6" width="%.2f" height="6" fill="#0e0806"/>`, r.X0-10, r.W+20)
	}

	// Printed ink, slightly translucent so the felt's grain shows through.
	fmt.Fprintf(&b, `<g opacity="0.88" fill="none" stroke="%s">`, ink)
	// Border line just inside the rail.
	edge := math.Acos(math.Min(1, (20-o.Y)/(R-45))) * 180 / math.Pi
	arcPath(&b, o, R-45, -edge, edge, 3)
	// From the dealer outwards: the payout line, then the insurance band
	// with the dealer's rule at its ends, then the seats. The radii sit
	// between the dealer's cards and the players' (see LayoutConfig).
	cr := l.Config.CardRadius
	spread := l.Config.SpreadDeg/2 - 3 // ends short of the shoe and discards
	arcPath(&b, o, cr-152, -spread, spread, 2.5)
	arcPath(&b, o, cr-116, -spread, spread, 2.5)
	b.WriteString(`</g>`)
	fmt.Fprintf(&b, `<g opacity="0.9" fill="%s">`, ink)
	arcText(&b, o, cr-160, 0, "BLACKJACK PAYS 3 TO 2", 26, "DejaVu Serif", "bold")
	arcText(&b, o, cr-125, 0, "INSURANCE PAYS 2 TO 1", 19, "DejaVu Sans", "bold")
	arcText(&b, o, cr-127, spread-7.5, "DEALER HITS SOFT 17", 12, "DejaVu Sans", "normal")
	arcText(&b, o, cr-127, -spread+7.5, "DEALER 22 PUSHES", 12, "DejaVu Sans", "normal")
	b.WriteString(`</g>`)

	for _, s := range l.Seats {
		seatSVG(&b, s, cfg, rng)
	}
	traySVG(&b, l.Dealer.Tray, rng)
	shoeSVG(&b, !cfg.NoDiscards)
	if !cfg.NoMarks {
		for _, m := range l.Marks {
			markSVG(&b, m)
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// arcPath strokes an arc about o from angle a0 to a1 (degrees from +Y
// towards +X).
func arcPath(b *strings.Builder, o Point, r, a0, a1, width float64) {
	p0 := o.Add(polar(r, a0))
	p1 := o.Add(polar(r, a1))
	large := 0
	if a1-a0 > 180 {
		large = 1
	}
	// From a0 to a1 the angle grows, which runs counter-clockwise in the
	// image (sweep flag 0).
	fmt.Fprintf(b, `<path d="M %.2f %.2f A %.2f %.2f 0 %d 0 %.2f %.2f" stroke-width="%.2f"/>`, p0.X, p0.Y, r, r, large, p1.X, p1.Y, width)
}

func polar(r, deg float64) Point {
	s, c := math.Sincos(deg * math.Pi / 180)
	return Point{r * s, r * c}
}

// arcText sets text along the arc of radius r (its baseline) centred at
// angle mid, readable from the players' side: letters stand with their
// tops towards the arc's centre. librsvg has no textPath, so each glyph
// is placed and turned on its own, with advance widths estimated per
// character class (good to a few per cent for DejaVu).
func arcText(b *strings.Builder, o Point, r, mid float64, text string, size float64, family, weight string) {
	adv := func(ch rune) float64 {
		switch {
		case ch == ' ':
			return 0.33
		case ch == '·' || ch == '.' || ch == ',' || ch == '\'':
			return 0.34
		case ch >= '0' && ch <= '9':
			return 0.64
		case ch >= 'a' && ch <= 'z':
			return 0.58
		case ch == 'I':
			return 0.36
		case ch == 'M' || ch == 'W':
			return 0.86
		default:
			return 0.72
		}
	}
	if weight == "bold" {
		size *= 1
	}
	total := 0.0
	for _, ch := range text {
		total += adv(ch) * size
	}
	// Angles grow to the right as the players read (towards +X).
	a := mid - total/2/r*180/math.Pi
	for _, ch := range text {
		w := adv(ch) * size
		centre := a + w/2/r*180/math.Pi
		p := o.Add(polar(r, centre))
		if ch != ' ' {
			fmt.Fprintf(b, `<text x="0" y="0" font-family="%s" font-weight="%s" font-size="%.2f" text-anchor="middle" transform="translate(%.2f %.2f) rotate(%.3f)">%s</text>`,
				family, weight, size, p.X, p.Y, -centre, xmlEscape(string(ch)))
		}
		a += w / r * 180 / math.Pi
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// seatSVG prints one seat: the betting circle, the side-bet spots, the
// Blazing 7's sensor, and sometimes a player's chips.
func seatSVG(b *strings.Builder, s Seat, cfg Config, rng *rand.Rand) {
	ink := hex(cfg.Ink)
	rot := -s.AngleDeg
	fmt.Fprintf(b, `<g opacity="0.9"><circle cx="%.2f" cy="%.2f" r="45" fill="none" stroke="%s" stroke-width="3"/>`, s.Bet.X, s.Bet.Y, ink)
	fmt.Fprintf(b, `<circle cx="%.2f" cy="%.2f" r="39" fill="none" stroke="%s" stroke-width="1.2"/></g>`, s.Bet.X, s.Bet.Y, ink)
	// 21+3: a gold-ringed spot with its name.
	p := s.TwentyOnePlus3
	fmt.Fprintf(b, `<g opacity="0.9" transform="translate(%.2f %.2f) rotate(%.2f)"><circle r="24" fill="#1a2a6a" fill-opacity="0.55" stroke="%s" stroke-width="2"/>`, p.X, p.Y, rot, ink)
	fmt.Fprintf(b, `<text y="4.5" font-family="DejaVu Sans" font-weight="bold" font-size="13" text-anchor="middle" fill="%s">21+3</text></g>`, ink)
	// Push 22 / Pot of Gold spot.
	p = s.Push22
	fmt.Fprintf(b, `<g opacity="0.9" transform="translate(%.2f %.2f) rotate(%.2f)"><circle r="24" fill="#7a1010" fill-opacity="0.6" stroke="%s" stroke-width="2"/>`, p.X, p.Y, rot, ink)
	fmt.Fprintf(b, `<text y="-1" font-family="DejaVu Sans" font-weight="bold" font-size="8.5" text-anchor="middle" fill="%s">PUSH</text>`, ink)
	fmt.Fprintf(b, `<text y="10" font-family="DejaVu Sans" font-weight="bold" font-size="11" text-anchor="middle" fill="%s">22</text></g>`, ink)
	// Blazing 7's: a black sensor plate with a lit red 7.
	p = s.Blazing7s
	fmt.Fprintf(b, `<g transform="translate(%.2f %.2f) rotate(%.2f)"><rect x="-19" y="-14" width="38" height="28" rx="5" fill="#0c0c0e" stroke="#3a3a40" stroke-width="1.5"/>`, p.X, p.Y, rot)
	b.WriteString(`<circle r="10" fill="#5a0608"/><circle r="8" fill="#d81e1e" fill-opacity="0.8"/>`)
	b.WriteString(`<text y="6" font-family="DejaVu Serif" font-weight="bold" font-size="17" text-anchor="middle" fill="#ffe060">7</text></g>`)
	// Chips on the main bet of most seats, and some side bets.
	if cfg.NoChips {
		return
	}
	if rng.Float64() < 0.8 {
		chipStack(b, s.Bet.Add(Point{rng.Float64()*8 - 4, rng.Float64()*8 - 4}), 1+rng.IntN(4), rng)
	}
	if rng.Float64() < 0.5 {
		chipStack(b, s.TwentyOnePlus3, 1, rng)
	}
	if rng.Float64() < 0.3 {
		chipStack(b, s.Push22, 1, rng)
	}
}

// chipColors are casino chip colours (body, inserts) by denomination.
var chipColors = [][2]string{
	{"#f1efe8", "#2a5db0"}, // 1
	{"#c0161c", "#f4f0e6"}, // 5
	{"#1d7a3a", "#f4f0e6"}, // 25
	{"#18181a", "#e8e4d8"}, // 100
	{"#5b2a86", "#f0d24a"}, // 500
}

// chipStack draws n chips seen from above, each a little offset from the
// one below, as a stack pushed slightly askew looks to an overhead camera.
func chipStack(b *strings.Builder, c Point, n int, rng *rand.Rand) {
	for i := 0; i < n; i++ {
		col := chipColors[rng.IntN(len(chipColors))]
		p := c.Add(Point{rng.Float64()*3 - 1.5, rng.Float64()*3 - 1.5 - float64(i)*0.6})
		spin := rng.Float64() * 360
		fmt.Fprintf(b, `<g transform="translate(%.2f %.2f) rotate(%.1f)">`, p.X, p.Y, spin)
		fmt.Fprintf(b, `<circle r="19.5" fill="#000" fill-opacity="0.35" transform="translate(1.2 1.8)"/>`)
		fmt.Fprintf(b, `<circle r="19.5" fill="%s"/>`, col[0])
		for k := 0; k < 6; k++ { // edge inserts
			fmt.Fprintf(b, `<rect x="-3.2" y="-19.5" width="6.4" height="5" fill="%s" transform="rotate(%d)"/>`, col[1], k*60)
		}
		fmt.Fprintf(b, `<circle r="12.5" fill="none" stroke="%s" stroke-width="1" stroke-dasharray="2 2"/>`, col[1])
		fmt.Fprintf(b, `<circle r="11" fill="%s" fill-opacity="0.85"/><circle r="11" fill="#fff" fill-opacity="0.25"/>`, col[0])
		b.WriteString(`<circle r="19.5" fill="url(#chipshade)"/></g>`)
	}
}

// traySVG draws the dealer's chip tray: a dark plastic body with tubes of
// chips lying on edge, so the camera sees stripes of chip edges.
func traySVG(b *strings.Builder, t [2]Point, rng *rand.Rand) {
	x0, y0, x1, y1 := t[0].X, t[0].Y, t[1].X, t[1].Y
	fmt.Fprintf(b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" rx="6" fill="#000" fill-opacity="0.4" transform="translate(3 5)"/>`, x0, y0, x1-x0, y1-y0)
	fmt.Fprintf(b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" rx="6" fill="#26282b" stroke="#55585c" stroke-width="2"/>`, x0, y0, x1-x0, y1-y0)
	const slots = 12
	sw := (x1 - x0 - 16) / slots
	order := []int{0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4}
	for i := 0; i < slots; i++ {
		sx := x0 + 8 + float64(i)*sw
		sy0, sy1 := y0+8, y1-8
		fmt.Fprintf(b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" rx="3" fill="#111214"/>`, sx+1, sy0, sw-2, sy1-sy0)
		col := chipColors[order[i]]
		fill := sy0 + (sy1-sy0)*(0.05+0.5*rng.Float64())
		// Chip edges, 3.3 mm each, with the inserts as light dashes at a
		// random turn of each chip.
		for y := fill; y+3.3 <= sy1; y += 3.3 {
			fmt.Fprintf(b, `<rect x="%.2f" y="%.2f" width="%.2f" height="2.9" fill="%s"/>`, sx+2, y, sw-4, col[0])
			off := rng.Float64() * (sw - 10)
			fmt.Fprintf(b, `<rect x="%.2f" y="%.2f" width="4" height="2.9" fill="%s"/>`, sx+3+off, y, col[1])
		}
		fmt.Fprintf(b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="url(#tube)"/>`, sx+1, sy0, sw-2, sy1-sy0)
	}
}

// shoeSVG draws the dealing shoe on the dealer's left and, with discards,
// the discard holder on the right: objects a real overhead view always
// has, and that a card detector must not mistake for cards.
func shoeSVG(b *strings.Builder, discards bool) {
	b.WriteString(`<g transform="translate(440 95) rotate(-12)">`)
	b.WriteString(`<rect x="-52" y="-85" width="104" height="175" rx="8" fill="#000" fill-opacity="0.45" transform="translate(6 9)"/>`)
	b.WriteString(`<rect x="-52" y="-85" width="104" height="175" rx="8" fill="url(#shoe)" stroke="#12070a" stroke-width="2"/>`)
	b.WriteString(`<rect x="-40" y="30" width="80" height="52" rx="4" fill="#8e1c22"/>`)
	b.WriteString(`<rect x="-36" y="34" width="72" height="44" rx="3" fill="#a3242b" stroke="#f2f0ea" stroke-width="2"/>`)
	b.WriteString(`<rect x="-45" y="-78" width="90" height="100" rx="4" fill="#0a0506" fill-opacity="0.5"/></g>`)
	if !discards {
		return
	}
	b.WriteString(`<g transform="translate(-445 92) rotate(10)">`)
	b.WriteString(`<rect x="-48" y="-62" width="96" height="130" rx="6" fill="#000" fill-opacity="0.35" transform="translate(5 8)"/>`)
	b.WriteString(`<rect x="-48" y="-62" width="96" height="130" rx="6" fill="#c9d4d8" fill-opacity="0.35" stroke="#e0eaee" stroke-width="2.5" stroke-opacity="0.7"/>`)
	b.WriteString(`<rect x="-33" y="-46" width="66" height="92" rx="4" fill="#9a1b24" stroke="#f4f0e8" stroke-width="2"/>`)
	b.WriteString(`<rect x="-29" y="-42" width="58" height="84" rx="3" fill="none" stroke="#c04850" stroke-width="1"/></g>`)
}

// markSVG prints an ArUco marker on a white square with a one-cell margin.
func markSVG(b *strings.Builder, m Mark) {
	cell := m.Size / 6
	c := m.Corners()[0]
	fmt.Fprintf(b, `<rect x="%.3f" y="%.3f" width="%.3f" height="%.3f" fill="#f4f4f0"/>`, c.X-cell, c.Y-cell, m.Size+2*cell, m.Size+2*cell)
	fmt.Fprintf(b, `<rect x="%.3f" y="%.3f" width="%.3f" height="%.3f" fill="#101010"/>`, c.X, c.Y, m.Size, m.Size)
	bits := ArucoBits(m.ID)
	for r := 0; r < 6; r++ {
		for k := 0; k < 6; k++ {
			if bits[r][k] {
				// Overlap neighbours by a hair so anti-aliasing leaves no seams.
				fmt.Fprintf(b, `<rect x="%.3f" y="%.3f" width="%.3f" height="%.3f" fill="#f4f4f0"/>`, c.X+float64(k)*cell-0.05, c.Y+float64(r)*cell-0.05, cell+0.1, cell+0.1)
			}
		}
	}
}

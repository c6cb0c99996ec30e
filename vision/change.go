package vision

import "image"

// watch follows one zone's footprint in the eighth-size grey picture,
// pixel by pixel, and tells when the zone is worth reading again: when
// something in it changed and has come to rest. The dealer's hand and arm
// move; a card, once dealt, lies still.
//
// A pixel is moving while it differs from the previous frame, and until
// it has held still for SettleFrames frames. Moving pixels, and every
// changed pixel joined to them (the still inside of an arm), make the
// busy area: something there is on its way. A changed pixel outside the
// busy area is fresh: a card came, went or turned over, and lies still.
type watch struct {
	rect  image.Rectangle // the footprint in the eighth-size picture
	prev  []uint8         // the footprint in the previous frame
	ref   []uint8         // the footprint when last read, where it was not busy
	still []uint8         // frames each pixel has held still, up to 255
	busy  []bool
	queue []int
	// fresh: a changed pixel outside the busy area; moving: any busy
	// pixel; waiting: frames the footprint has differed from ref unread.
	fresh, moving bool
	waiting       int
}

func newWatch(r image.Rectangle) *watch {
	n := r.Dx() * r.Dy()
	return &watch{rect: r, prev: make([]uint8, n), ref: make([]uint8, n), still: make([]uint8, n), busy: make([]bool, n)}
}

// update takes the next frame: img is the whole eighth-size grey picture,
// stride bytes a row. first says no frame came before.
func (w *watch) update(img []uint8, stride int, level uint8, settle int, first bool) {
	cols, rows := w.rect.Dx(), w.rect.Dy()
	w.queue = w.queue[:0]
	changed := false
	for y := 0; y < rows; y++ {
		row := img[(w.rect.Min.Y+y)*stride+w.rect.Min.X:][:cols]
		k := y * cols
		prev, ref, still, busy := w.prev[k:k+cols], w.ref[k:k+cols], w.still[k:k+cols], w.busy[k:k+cols]
		for x, c := range row {
			switch {
			case first:
				still[x] = 255 // nothing to go by: take it as still
			case absDiff(c, prev[x]) >= level:
				still[x] = 0
			case still[x] < 255:
				still[x]++
			}
			prev[x] = c
			busy[x] = int(still[x]) < settle
			if busy[x] {
				w.queue = append(w.queue, k+x)
			}
			changed = changed || absDiff(c, ref[x]) >= level
		}
	}
	w.moving = len(w.queue) > 0
	w.fresh = false
	if changed {
		w.waiting++
	} else {
		w.waiting = 0
		return
	}
	// Spread the busy area over the changed pixels joined to it. A hand's
	// grey is close to the felt's here and there, so its changed pixels
	// come in pieces: a changed pixel a few pixels from the busy area
	// joins it too.
	const reach = 3
	for {
		w.spread(level)
		joined := false
		for i, b := range w.busy {
			if b || absDiff(w.prev[i], w.ref[i]) < level {
				continue
			}
			if !w.nearBusy(i, reach) {
				w.fresh = true
				continue
			}
			w.busy[i] = true
			w.queue = append(w.queue, i)
			joined = true
		}
		if !joined {
			return
		}
		w.fresh = false
	}
}

// spread grows the busy area from the pixels queued over the changed
// pixels next to them.
func (w *watch) spread(level uint8) {
	cols, rows := w.rect.Dx(), w.rect.Dy()
	for len(w.queue) > 0 {
		i := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		x, y := i%cols, i/cols
		for _, j := range [4]int{i - 1, i + 1, i - cols, i + cols} {
			if (j == i-1 && x == 0) || (j == i+1 && x == cols-1) || (j < i-1 && y == 0) || (j > i+1 && y == rows-1) {
				continue
			}
			if !w.busy[j] && absDiff(w.prev[j], w.ref[j]) >= level {
				w.busy[j] = true
				w.queue = append(w.queue, j)
			}
		}
	}
}

// nearBusy reports whether a busy pixel lies within reach of pixel i.
func (w *watch) nearBusy(i, reach int) bool {
	cols, rows := w.rect.Dx(), w.rect.Dy()
	x, y := i%cols, i/cols
	for ny := max(y-reach, 0); ny <= min(y+reach, rows-1); ny++ {
		for nx := max(x-reach, 0); nx <= min(x+reach, cols-1); nx++ {
			if w.busy[ny*cols+nx] {
				return true
			}
		}
	}
	return false
}

// read records that the zone was read in the current frame: the picture
// outside the busy area is what the reading saw. all takes the busy area
// too (the first reading).
func (w *watch) read(all bool) {
	for i, b := range w.busy {
		if all || !b {
			w.ref[i] = w.prev[i]
		}
	}
	w.waiting = 0
}

// busyAt reports whether eighth-size pixel p lies in the busy area.
func (w *watch) busyAt(p image.Point) bool {
	if !p.In(w.rect) {
		return false
	}
	return w.busy[(p.Y-w.rect.Min.Y)*w.rect.Dx()+p.X-w.rect.Min.X]
}

func absDiff(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}

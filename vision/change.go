package vision

import "image"

// stillness follows the whole eighth-size grey picture: how many frames
// each pixel has held still (within the change level), up to 255.
type stillness struct {
	prev, still []uint8
}

// update takes the next frame's picture. The first frame is taken as
// still: there is nothing to go by.
func (s *stillness) update(img []uint8, level uint8) {
	if len(s.prev) != len(img) {
		s.prev = append(s.prev[:0], img...)
		s.still = make([]uint8, len(img))
		for i := range s.still {
			s.still[i] = 255
		}
		return
	}
	prev, still := s.prev[:len(img)], s.still[:len(img)]
	for i, c := range img {
		switch {
		case absDiff(c, prev[i]) >= level:
			still[i] = 0
		case still[i] < 255:
			still[i]++
		}
	}
	copy(prev, img)
}

// watch follows one zone's footprint in the eighth-size grey picture,
// pixel by pixel, and tells when the zone is worth reading again: when
// something in it changed and has come to rest. The dealer's hand and arm
// move; a card, once dealt, lies still.
//
// A pixel is moving until it has held still for SettleFrames frames.
// Moving pixels, and every changed pixel joined to them (the still inside
// of an arm), make the busy area: something there is on its way. A
// changed pixel outside the busy area is fresh: a card came, went or
// turned over, and lies still.
type watch struct {
	rect  image.Rectangle // the footprint in the eighth-size picture
	cur   []uint8         // the footprint in this frame
	ref   []uint8         // the footprint when last read, where it was not busy
	busy  []bool
	queue []int
	// fresh: a changed pixel outside the busy area; moving: any busy
	// pixel; waiting: frames the footprint has differed from ref unread.
	fresh, moving bool
	waiting       int
	// again: frames still to hold still before the zone is read once more
	// (0: no second look due); lookAgain: that second look is due now.
	again     int
	lookAgain bool
}

func newWatch(r image.Rectangle) *watch {
	n := r.Dx() * r.Dy()
	return &watch{rect: r, cur: make([]uint8, n), ref: make([]uint8, n), busy: make([]bool, n)}
}

// update takes the next frame: img is the whole eighth-size grey picture,
// stride bytes a row, and still its stillness.
func (w *watch) update(img, still []uint8, stride int, level uint8, settle int) {
	cols, rows := w.rect.Dx(), w.rect.Dy()
	changed, moving := false, false
	s := uint8(min(max(settle, 0), 255)) // a pixel is still for at most 255 frames
	for y := 0; y < rows; y++ {
		at := (w.rect.Min.Y+y)*stride + w.rect.Min.X
		k := y * cols
		cur, ref, busy := w.cur[k:k+cols], w.ref[k:k+cols], w.busy[k:k+cols]
		copy(cur, img[at:at+cols])
		for x, st := range still[at : at+cols] {
			b := st < s
			busy[x] = b
			if b {
				moving = true
			}
		}
		if !changed {
			for x, c := range cur {
				if absDiff(c, ref[x]) >= level {
					changed = true
					break
				}
			}
		}
	}
	w.moving, w.fresh = moving, false
	if w.again > 0 && !moving {
		w.again--
		w.lookAgain = w.again == 0
	}
	if !changed {
		w.waiting = 0
		return
	}
	w.waiting++
	// Spread the busy area over the changed pixels joined to it. A hand's
	// grey is close to the felt's here and there, so its changed pixels
	// come in pieces: a changed pixel a few pixels from the busy area
	// joins it too.
	w.queue = w.queue[:0]
	for i, b := range w.busy {
		if b {
			w.queue = append(w.queue, i)
		}
	}
	const reach = 3
	for {
		w.spread(level)
		joined := false
		for i, b := range w.busy {
			if b || absDiff(w.cur[i], w.ref[i]) < level {
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
			if !w.busy[j] && absDiff(w.cur[j], w.ref[j]) >= level {
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
// too (the first reading). The zone is read once more after it has held
// still again frames (0: not).
func (w *watch) read(all bool, again int) {
	for i, b := range w.busy {
		if all || !b {
			w.ref[i] = w.cur[i]
		}
	}
	w.waiting = 0
	w.again, w.lookAgain = again, false
}

// busyAt reports whether eighth-size pixel p lies in the busy area.
func (w *watch) busyAt(p image.Point) bool {
	if !p.In(w.rect) {
		return false
	}
	return w.busy[(p.Y-w.rect.Min.Y)*w.rect.Dx()+p.X-w.rect.Min.X]
}

// covers reports whether the busy area covers card o: its centre, or a
// corner pulled a quarter of the way in.
func (w *watch) covers(o Observation) bool {
	var cx, cy float64
	for _, q := range o.ImageQuad {
		cx, cy = cx+q.X/4, cy+q.Y/4
	}
	if w.busyAt(image.Pt(int(cx)/8, int(cy)/8)) {
		return true
	}
	for _, q := range o.ImageQuad {
		if w.busyAt(image.Pt(int(0.75*q.X+0.25*cx)/8, int(0.75*q.Y+0.25*cy)/8)) {
			return true
		}
	}
	return false
}

func absDiff(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}

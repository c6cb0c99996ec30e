package main

import "math"

// sampler picks the frames read for cards: one in step of the video's
// frames (vision.analysis_fps). It counts from the last frame it picked,
// so a frame a busy camera dropped moves the next pick to the next frame
// that comes, never later than due.
type sampler struct {
	step int
	next int
}

func newSampler(fps, analysisFPS float64) *sampler {
	step := 1
	if analysisFPS > 0 && fps > analysisFPS {
		step = max(1, int(math.Round(fps/analysisFPS)))
	}
	return &sampler{step: step}
}

// take reports whether frame index is read. Frame numbers that go back
// (a source that restarted its count) start the count afresh.
func (s *sampler) take(index int) bool {
	if index >= s.next || index < s.next-s.step {
		s.next = index + s.step
		return true
	}
	return false
}

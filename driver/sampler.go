package driver

import "math"

// Sampler picks the frames read for cards: one in Step of the video's
// frames (vision.analysis_fps). It counts from the last frame it picked,
// so a frame a busy camera dropped moves the next pick to the next frame
// that comes, never later than due. A Sampler is not safe for concurrent
// use.
type Sampler struct {
	step int
	next int
}

// NewSampler picks about analysisFPS frames a second out of fps; 0 picks
// every frame.
func NewSampler(fps, analysisFPS float64) *Sampler {
	step := 1
	if analysisFPS > 0 && fps > analysisFPS {
		step = max(1, int(math.Round(fps/analysisFPS)))
	}
	return &Sampler{step: step}
}

// Step is one frame in how many that is read.
func (s *Sampler) Step() int { return s.step }

// Take reports whether frame index is read. Frame numbers that go back
// (a source that restarted its count) start the count afresh.
func (s *Sampler) Take(index int) bool {
	if index >= s.next || index < s.next-s.step {
		s.next = index + s.step
		return true
	}
	return false
}

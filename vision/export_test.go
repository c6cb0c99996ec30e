package vision

import "gocv.io/x/gocv"

// GridOnly works out every grid tile under the detector's zones from frame,
// as a frame where everything changed does, and nothing more: the colour
// and grey pictures and the paper and skin tests, which every zone read
// needs whatever it finds. BenchmarkDetect times it.
func (d *Detector) GridOnly(frame gocv.Mat) {
	d.Forget()
	stride := (d.width + 7) / 8
	img := make([]uint8, stride*((d.height+7)/8)) // stamps only; Forget drops them
	d.gridTiles(frame, d.zones, img, stride, 1)
}

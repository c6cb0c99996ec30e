// Package calibration maps the overhead camera's image to the table plane,
// in millimetres, and back, and knows where each seat's and the dealer's
// zone lies on the table.
//
// An installer measures where the zones are on the felt and writes them in
// a table file (JSON, see Table), with what the camera is calibrated from:
//
//   - marks: printed reference marks (ArUco markers) measured on the felt.
//     At start-up the monitor finds them in a frame and solves the mapping
//     from every mark corner it sees.
//   - points, on a felt with no marks: four or more point pairs, each a
//     feature printed on the felt (a betting circle's centre, a box's
//     corner) where it lies in the camera's picture, in pixels, and where
//     it lies on the felt, in mm. Six or more, out to the picture's edges,
//     also measure the lens.
//
// Either way the mapping is a homography plus one term of radial lens
// distortion, and the result is the same Calibration: its RMS error,
// zones, resolution (PxPerMM) and the zones the camera does not wholly see
// (OutsidePicture).
//
//	t, err := calibration.Load("table.json")
//	c, err := calibration.Solve(frame, t) // frame: a gocv.Mat from the camera
//	p := c.ToTable(x, y)                  // image pixel → table mm
//	seat, dealer := c.Table.ZoneAt(p)
//
// Solve's errors say what to fix: which marks were not found, how far the
// marks seen disagree with the table file, or which point pair disagrees
// with the others and by how many mm.
package calibration

// Package calibration maps the overhead camera's image to the table plane,
// in millimetres, and back, and knows where each seat's and the dealer's
// zone lies on the table.
//
// An installer measures where the printed reference marks (ArUco markers)
// and the zones are on the felt and writes them in a table file (JSON, see
// Table). At start-up the monitor finds the marks in a frame and solves the
// mapping: a homography plus one term of radial lens distortion, fitted to
// every mark corner it sees.
//
//	t, err := calibration.Load("table.json")
//	c, err := calibration.Solve(frame, t) // frame: a gocv.Mat from the camera
//	p := c.ToTable(x, y)                  // image pixel → table mm
//	seat, dealer := c.Table.ZoneAt(p)
//
// Solve's errors say what to fix: which marks were not found, or how far
// the marks seen disagree with the table file.
package calibration

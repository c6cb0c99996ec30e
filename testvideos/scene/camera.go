package scene

import (
	"fmt"
	"math"
)

// CameraConfig places the overhead camera. DefaultCameraConfig frames the
// card area of the default layout at 1.55 px/mm on 1080p.
type CameraConfig struct {
	// Width and Height of the image in pixels, e.g. 1920×1080 or 3840×2160.
	Width, Height int
	// Target is the table point on the optical axis (the image centre,
	// before distortion).
	Target Point
	// HeightMM is the camera's height above the felt.
	HeightMM float64
	// TiltDeg is the angle between the optical axis and the vertical,
	// 0..35: a ceiling camera stays within 20, a phone held over the
	// table (stills) within about 30. TiltAzimuthDeg is the direction, on the table, from the
	// camera's foot towards Target, measured from +Y towards +X: 0 puts
	// the camera over the dealer's side looking a little towards the
	// players, 180 over the players looking back at the dealer.
	TiltDeg, TiltAzimuthDeg float64
	// YawDeg turns the image about the optical axis.
	YawDeg float64
	// ViewWidthMM is the width of table seen across the image centre; the
	// focal length follows from it and Width.
	ViewWidthMM float64
	// K1 and K2 are the radial distortion coefficients (OpenCV's model on
	// normalised coordinates). Negative K1 is barrel distortion, the usual
	// case for a wide lens.
	K1, K2 float64
}

// DefaultCameraConfig returns a 1080p camera 1.8 m above the felt, tilted
// 8° so that it looks a little from the dealer's side, as a camera on the
// ceiling behind the dealer does.
func DefaultCameraConfig() CameraConfig {
	return CameraConfig{
		Width: 1920, Height: 1080,
		Target:         Point{0, 320},
		HeightMM:       1800,
		TiltDeg:        8,
		TiltAzimuthDeg: 0,
		YawDeg:         0,
		ViewWidthMM:    1240,
		K1:             -0.06,
	}
}

// Validate reports the first field that is out of range.
func (c CameraConfig) Validate() error {
	switch {
	case c.Width < 64 || c.Height < 64 || c.Width > 8192 || c.Height > 8192:
		return fmt.Errorf("scene: camera size %dx%d, want 64..8192 each way", c.Width, c.Height)
	case c.HeightMM < 300 || c.HeightMM > 10000:
		return fmt.Errorf("scene: camera HeightMM = %g, want 300..10000", c.HeightMM)
	case c.TiltDeg < 0 || c.TiltDeg > 35:
		return fmt.Errorf("scene: camera TiltDeg = %g, want 0..35", c.TiltDeg)
	case c.ViewWidthMM < 100 || c.ViewWidthMM > 10000:
		return fmt.Errorf("scene: camera ViewWidthMM = %g, want 100..10000", c.ViewWidthMM)
	case math.Abs(c.K1) > 0.5 || math.Abs(c.K2) > 0.5:
		return fmt.Errorf("scene: camera distortion K1 = %g, K2 = %g, want |k| <= 0.5", c.K1, c.K2)
	}
	return nil
}

// Camera is a pinhole camera with radial distortion over the table plane.
// The table frame is X right, Y towards the players, Z into the table (so
// that X, Y, Z is right-handed with Y pointing down the image); the camera
// is at Z = −HeightMM.
type Camera struct {
	cfg    CameraConfig
	f      float64       // focal length in pixels
	cx, cy float64       // principal point
	r      [3][3]float64 // world → camera rotation (rows are camera axes)
	c      [3]float64    // camera centre in the table frame
	h      [3][3]float64 // table mm → undistorted pixels
	hinv   [3][3]float64 // its inverse, for unprojecting
}

// NewCamera builds a camera.
func NewCamera(cfg CameraConfig) (*Camera, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cam := &Camera{cfg: cfg, cx: float64(cfg.Width) / 2, cy: float64(cfg.Height) / 2}
	tilt := cfg.TiltDeg * math.Pi / 180
	az := cfg.TiltAzimuthDeg * math.Pi / 180
	// The optical axis, from the camera down to Target; it leans towards
	// the azimuth direction as the camera tilts.
	v := [3]float64{math.Sin(tilt) * math.Sin(az), math.Sin(tilt) * math.Cos(az), math.Cos(tilt)}
	// Rotate the straight-down camera's axes onto v (Rodrigues about
	// z × v), after turning them by the yaw.
	sy, cyaw := math.Sincos(cfg.YawDeg * math.Pi / 180)
	e1 := [3]float64{cyaw, sy, 0}
	e2 := [3]float64{-sy, cyaw, 0}
	k := [3]float64{-v[1], v[0], 0} // z × v
	kn := math.Hypot(k[0], k[1])
	if kn > 1e-12 {
		k[0], k[1] = k[0]/kn, k[1]/kn
		e1 = rodrigues(e1, k, tilt)
		e2 = rodrigues(e2, k, tilt)
	}
	cam.r = [3][3]float64{e1, e2, v}
	dist := cfg.HeightMM / math.Cos(tilt)
	cam.c = [3]float64{cfg.Target.X - dist*v[0], cfg.Target.Y - dist*v[1], -cfg.HeightMM}
	cam.f = float64(cfg.Width) / cfg.ViewWidthMM * dist
	// H = K [r1 r2 t], t = −R c, with r1, r2 the rotation's first two
	// columns (the images of the table's X and Y axes).
	var t [3]float64
	for i := 0; i < 3; i++ {
		t[i] = -(cam.r[i][0]*cam.c[0] + cam.r[i][1]*cam.c[1] + cam.r[i][2]*cam.c[2])
	}
	var m [3][3]float64
	for i := 0; i < 3; i++ {
		m[i] = [3]float64{cam.r[i][0], cam.r[i][1], t[i]}
	}
	kk := [3][3]float64{{cam.f, 0, cam.cx}, {0, cam.f, cam.cy}, {0, 0, 1}}
	cam.h = mul3(kk, m)
	cam.hinv = inv3(cam.h)
	return cam, nil
}

// Config returns the camera's configuration.
func (c *Camera) Config() CameraConfig { return c.cfg }

// Homography returns the 3×3 matrix mapping table mm (x, y, 1) to image
// pixels as a pinhole camera without distortion sees them. Project adds
// the lens distortion; the true image position of a table point is
// Project's, not this matrix's.
func (c *Camera) Homography() [3][3]float64 { return c.h }

// Project maps a table point to its image position in pixels, with the
// lens distortion, so that ground truth drawn from it lies exactly on the
// rendered image.
func (c *Camera) Project(p Point) (x, y float64) {
	xn, yn := c.normalised(p)
	return c.distort(xn, yn)
}

// normalised returns the undistorted normalised image coordinates of p.
func (c *Camera) normalised(p Point) (float64, float64) {
	u := c.h[0][0]*p.X + c.h[0][1]*p.Y + c.h[0][2]
	v := c.h[1][0]*p.X + c.h[1][1]*p.Y + c.h[1][2]
	w := c.h[2][0]*p.X + c.h[2][1]*p.Y + c.h[2][2]
	return (u/w - c.cx) / c.f, (v/w - c.cy) / c.f
}

func (c *Camera) distort(xn, yn float64) (float64, float64) {
	r2 := xn*xn + yn*yn
	k := 1 + c.cfg.K1*r2 + c.cfg.K2*r2*r2
	return c.f*xn*k + c.cx, c.f*yn*k + c.cy
}

// Unproject maps an image pixel back to the table plane, undoing the
// distortion by fixed-point iteration (a few steps converge to well under
// a hundredth of a pixel for |K1| <= 0.5 over the image).
func (c *Camera) Unproject(x, y float64) Point {
	xd, yd := (x-c.cx)/c.f, (y-c.cy)/c.f
	xn, yn := xd, yd
	for i := 0; i < 8; i++ {
		r2 := xn*xn + yn*yn
		k := 1 + c.cfg.K1*r2 + c.cfg.K2*r2*r2
		xn, yn = xd/k, yd/k
	}
	u, v := xn*c.f+c.cx, yn*c.f+c.cy
	h := &c.hinv
	w := h[2][0]*u + h[2][1]*v + h[2][2]
	return Point{(h[0][0]*u + h[0][1]*v + h[0][2]) / w, (h[1][0]*u + h[1][1]*v + h[1][2]) / w}
}

// PxPerMM returns the image scale at table point p: the geometric mean of
// the lengths, in pixels, of 1 mm along X and along Y.
func (c *Camera) PxPerMM(p Point) float64 {
	x0, y0 := c.Project(p)
	x1, y1 := c.Project(p.Add(Point{1, 0}))
	x2, y2 := c.Project(p.Add(Point{0, 1}))
	return math.Sqrt(math.Hypot(x1-x0, y1-y0) * math.Hypot(x2-x0, y2-y0))
}

func rodrigues(v, k [3]float64, a float64) [3]float64 {
	s, co := math.Sincos(a)
	kxv := [3]float64{k[1]*v[2] - k[2]*v[1], k[2]*v[0] - k[0]*v[2], k[0]*v[1] - k[1]*v[0]}
	kdv := k[0]*v[0] + k[1]*v[1] + k[2]*v[2]
	var out [3]float64
	for i := range out {
		out[i] = v[i]*co + kxv[i]*s + k[i]*kdv*(1-co)
	}
	return out
}

func mul3(a, b [3][3]float64) [3][3]float64 {
	var m [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				m[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return m
}

func inv3(m [3][3]float64) [3][3]float64 {
	a, b, c := m[0][0], m[0][1], m[0][2]
	d, e, f := m[1][0], m[1][1], m[1][2]
	g, h, i := m[2][0], m[2][1], m[2][2]
	det := a*(e*i-f*h) - b*(d*i-f*g) + c*(d*h-e*g)
	return [3][3]float64{
		{(e*i - f*h) / det, (c*h - b*i) / det, (b*f - c*e) / det},
		{(f*g - d*i) / det, (a*i - c*g) / det, (c*d - a*f) / det},
		{(d*h - e*g) / det, (b*g - a*h) / det, (a*e - b*d) / det},
	}
}

package scene

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gocv.io/x/gocv"
)

// smoothNoise returns a w×h single-channel float field of unit-variance
// noise with features about `cell` pixels across: Gaussian noise on a
// coarse grid, enlarged with bicubic interpolation. The caller owns the Mat.
func smoothNoise(w, h int, cell float64, rng *rand.Rand) gocv.Mat {
	gw := max(2, int(float64(w)/cell)+2)
	gh := max(2, int(float64(h)/cell)+2)
	grid := make([]float32, gw*gh)
	for i := range grid {
		grid[i] = float32(rng.NormFloat64())
	}
	small, _ := gocv.NewMatFromBytes(gh, gw, gocv.MatTypeCV32FC1, f32bytes(grid))
	defer small.Close()
	out := gocv.NewMat()
	gocv.Resize(small, &out, image.Pt(w, h), 0, 0, gocv.InterpolationCubic)
	return out
}

// feltCanvas fills dst (BGR, w×h) with the felt: its colour, a slow
// mottling (the cloth is never evenly dyed or brushed), fibre streaks along
// the cloth's weave, and per-pixel grain.
func feltCanvas(dst *gocv.Mat, w, h int, pxPerMM float64, cfg Config, rng *rand.Rand) {
	slow := smoothNoise(w, h, 120*pxPerMM, rng)
	defer slow.Close()
	mid := smoothNoise(w, h, 9*pxPerMM, rng)
	defer mid.Close()
	// Fibre streaks: noise stretched along X.
	streakSmall := smoothNoise(max(2, w/24), h, 1.5, rng)
	defer streakSmall.Close()
	streak := gocv.NewMat()
	defer streak.Close()
	gocv.Resize(streakSmall, &streak, image.Pt(w, h), 0, 0, gocv.InterpolationLinear)

	sb, _ := slow.DataPtrFloat32()
	mb, _ := mid.DataPtrFloat32()
	tb, _ := streak.DataPtrFloat32()
	*dst = resetMat(*dst, h, w, gocv.MatTypeCV8UC3)
	d, _ := dst.DataPtrUint8()
	base := [3]float64{float64(cfg.Felt.B), float64(cfg.Felt.G), float64(cfg.Felt.R)}
	tex := cfg.FeltTexture
	for i := 0; i < w*h; i++ {
		k := 1 + tex*(0.05*float64(sb[i])+0.035*float64(mb[i])+0.025*float64(tb[i]))
		grain := tex * 5 * rng.NormFloat64()
		for c := 0; c < 3; c++ {
			d[i*3+c] = clamp8(base[c]*k + grain)
		}
	}
}

// resetMat makes m a continuous rows×cols Mat of type t, reallocating only
// when needed, and returns it (the same Mat value when it already fits).
func resetMat(m gocv.Mat, rows, cols int, t gocv.MatType) gocv.Mat {
	if m.Ptr() != nil && m.Rows() == rows && m.Cols() == cols && m.Type() == t && m.IsContinuous() {
		return m
	}
	if m.Ptr() != nil {
		m.Close()
	}
	return gocv.NewMatWithSize(rows, cols, t)
}

func clamp8(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// renderSVG rasterises svg to a w×h BGRA Mat with rsvg-convert. The caller
// owns the result.
func renderSVG(svg string, w, h int) (gocv.Mat, error) {
	dir, err := os.MkdirTemp("", "bjmonitor-scene-")
	if err != nil {
		return gocv.Mat{}, err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "layout.svg")
	out := filepath.Join(dir, "layout.png")
	if err := os.WriteFile(in, []byte(svg), 0o644); err != nil {
		return gocv.Mat{}, err
	}
	cmd := exec.Command("rsvg-convert", "--width", fmt.Sprint(w), "--height", fmt.Sprint(h), "--output", out, in)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return gocv.Mat{}, fmt.Errorf("scene: rsvg-convert (package librsvg2-bin): %v: %s", err, strings.TrimSpace(string(msg)))
	}
	m := gocv.IMRead(out, gocv.IMReadUnchanged)
	if m.Empty() || m.Type() != gocv.MatTypeCV8UC4 || m.Cols() != w || m.Rows() != h {
		got := fmt.Sprintf("%dx%d type %v", m.Cols(), m.Rows(), m.Type())
		m.Close()
		return gocv.Mat{}, fmt.Errorf("scene: rsvg-convert made %s, want %dx%d BGRA", got, w, h)
	}
	return m, nil
}

// overBGRA draws a BGRA image over a BGR one of the same size by alpha,
// and sprinkles a little grain on what it drew, since printed and solid
// objects have texture too.
func overBGRA(dst *gocv.Mat, src gocv.Mat, rng *rand.Rand) {
	d, _ := dst.DataPtrUint8()
	s, _ := src.DataPtrUint8()
	n := dst.Rows() * dst.Cols()
	for i := 0; i < n; i++ {
		a := int(s[i*4+3])
		if a == 0 {
			continue
		}
		g := rng.NormFloat64() * 2.5 * float64(a) / 255
		for c := 0; c < 3; c++ {
			v := (int(s[i*4+c])*a + int(d[i*3+c])*(255-a) + 127) / 255
			d[i*3+c] = clamp8(float64(v) + g)
		}
	}
}

// lightGain computes the gain field (×128, BGR) for an image whose pixel
// (x, y) sees table point table(x, y): overhead lamps over the table
// (bright centre, darker rail), a gentle gradient across the table, a
// warm tint, and the lens's vignetting. It is smooth, so it is computed on
// a coarse grid and enlarged. The caller owns the Mat.
func lightGain(w, h int, table func(x, y float64) Point, cfg Config, rng *rand.Rand) gocv.Mat {
	const step = 8
	gw, gh := w/step+2, h/step+2
	g := make([]float32, gw*gh*3)
	// Two lamps above the table, jittered by the seed.
	lamps := []Point{
		{-300 + 120*rng.Float64(), 250 + 150*rng.Float64()},
		{300 - 120*rng.Float64(), 250 + 150*rng.Float64()},
	}
	gx, gy := rng.Float64()*2-1, rng.Float64()*2-1
	diag := math.Hypot(float64(w), float64(h)) / 2
	u := cfg.LightUnevenness
	for j := 0; j < gh; j++ {
		for i := 0; i < gw; i++ {
			x, y := float64(i*step), float64(j*step)
			p := table(x, y)
			lamp := 0.0
			for _, l := range lamps {
				dx, dy := (p.X-l.X)/700, (p.Y-l.Y)/700
				lamp += math.Exp(-(dx*dx + dy*dy))
			}
			lamp /= 2
			grad := 0.08 * (gx*p.X + gy*p.Y) / 1000
			r := math.Hypot(x-float64(w)/2, y-float64(h)/2) / diag
			vig := 1 - cfg.Vignette*r*r
			k := (1 - 0.5*u + u*lamp + u*grad) * vig * cfg.Exposure
			tint := [3]float64{0.95, 1.0, 1.04} // B, G, R: warm tungsten light
			for c := 0; c < 3; c++ {
				g[(j*gw+i)*3+c] = float32(128 * k * tint[c])
			}
		}
	}
	small, _ := gocv.NewMatFromBytes(gh, gw, gocv.MatTypeCV32FC3, f32bytes(g))
	defer small.Close()
	big := gocv.NewMat()
	defer big.Close()
	// Resize maps pixel centres, and grid point i sits at pixel i*step:
	// enlarge the (gw-1)*step wide grid, then crop.
	gocv.Resize(small, &big, image.Pt(gw*step, gh*step), 0, 0, gocv.InterpolationLinear)
	crop := big.Region(image.Rect(step/2, step/2, step/2+w, step/2+h))
	defer crop.Close()
	out := gocv.NewMat()
	crop.ConvertTo(&out, gocv.MatTypeCV8UC3)
	return out
}

// noiseTiles makes n tiles of sensor noise, each (w+pad)×(h+pad) BGR with
// 128 as zero: a luminance part shared by the channels plus a weaker
// chroma part, lightly blurred because demosaicing correlates neighbours.
// Frames take a tile and an offset from their index, so the noise changes
// every frame at the cost of one addition. The caller owns the Mats.
func noiseTiles(n, w, h, pad int, sigma float64, rng *rand.Rand) []gocv.Mat {
	tw, th := w+pad, h+pad
	const blurSigma = 0.6
	e := math.Exp(-1 / (2 * blurSigma * blurSigma))
	w0, w1 := 1/(1+2*e), e/(1+2*e)
	sq := w0*w0 + 2*w1*w1 // one dimension; the 2-D kernel's is sq²
	gainBack := 1 / sq
	out := make([]gocv.Mat, n)
	buf := make([]uint8, tw*th*3)
	for t := range out {
		for i := 0; i < tw*th; i++ {
			l := rng.NormFloat64() * sigma
			for c := 0; c < 3; c++ {
				buf[i*3+c] = clamp8(128 + l + 0.5*sigma*rng.NormFloat64())
			}
		}
		m, _ := gocv.NewMatFromBytes(th, tw, gocv.MatTypeCV8UC3, buf)
		// The blur lowers the deviation by the root of the kernel's summed
		// squared weights; scale back up so that sigma holds.
		gocv.GaussianBlur(m, &m, image.Pt(3, 3), blurSigma, blurSigma, gocv.BorderReflect101)
		gocv.AddWeighted(m, gainBack, m, 0, 128-gainBack*128, &m)
		out[t] = m
	}
	return out
}

func f32bytes(f []float32) []byte {
	b := make([]byte, len(f)*4)
	for i, v := range f {
		u := math.Float32bits(v)
		b[i*4], b[i*4+1], b[i*4+2], b[i*4+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return b
}

package classify

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"
)

// The corner crop. Every crop, for training and at inference, covers the
// same patch of the card: 0..CropWidthMM along the card's short edge and
// 0..CropHeightMM along its long edge, measured from the corner, sampled
// onto CropCols×CropRows pixels (2 px/mm). 20×36 mm is the index of the
// largest kept deck (ornamental and tango print jumbo indices, about
// 17×34 mm) plus the ±1.5 mm the corner finder may be off; the common
// decks' indices fill about 12×25 mm of it.
const (
	CropWidthMM  = 20.0
	CropHeightMM = 36.0
	CropCols     = 40
	CropRows     = 72
)

// Vec is a point or a displacement in pixels or millimetres.
type Vec struct{ X, Y float64 }

// Add returns v+w.
func (v Vec) Add(w Vec) Vec { return Vec{v.X + w.X, v.Y + w.Y} }

// Scale returns k·v.
func (v Vec) Scale(k float64) Vec { return Vec{k * v.X, k * v.Y} }

// Len returns the Euclidean length of v.
func (v Vec) Len() float64 { return math.Hypot(v.X, v.Y) }

// Frame places a card corner in a source image: it is the affine map from
// card-local millimetres (u along the short edge, v along the long edge,
// both measured from the corner into the card) to source pixels, in
// OpenCV's convention where the centre of pixel (col, row) is at (col, row).
//
//	pixel = Origin + u·U + v·V
//
// For an upright card at the top-left corner of the image, with s pixels
// per mm, the top-left index has Origin (-0.5, -0.5), U (s, 0), V (0, s);
// the bottom-right index (printed rotated by 180°) has Origin at the
// bottom-right corner and U (-s, 0), V (0, -s). Both are right-handed
// (U × V > 0 in image coordinates, whose y axis points down); at the
// top-right and bottom-left corners of a face a right-handed frame with
// U along the short edge points out of the card, which is how the model
// tells index corners from the other two (it answers "none" there).
type Frame struct {
	Origin Vec // the corner, in source pixels
	U      Vec // source-pixel step of 1 mm along the short (63 mm) edge
	V      Vec // source-pixel step of 1 mm along the long (88 mm) edge
}

// NewFrame builds a Frame from a corner, the directions of the card's two
// edges leaving it (any length, not zero) and the scale in pixels per mm.
func NewFrame(corner, alongShort, alongLong Vec, pxPerMM float64) Frame {
	u := alongShort.Scale(pxPerMM / alongShort.Len())
	v := alongLong.Scale(pxPerMM / alongLong.Len())
	return Frame{Origin: corner, U: u, V: v}
}

// Map returns the source pixel of card-local point mm.
func (f Frame) Map(mm Vec) Vec {
	return f.Origin.Add(f.U.Scale(mm.X)).Add(f.V.Scale(mm.Y))
}

// Limits on a Frame's scale: below 0.5 px/mm nothing of an index is left;
// above 40 px/mm the supersampling below would need huge temporaries.
const (
	minPxPerMM = 0.5
	maxPxPerMM = 40
)

// Validate reports whether f can be cut: finite, each axis between 0.5
// and 40 px/mm, and the axes not closer than 30° to parallel (a rectified
// card corner is near 90°; anything flatter is a wrong detection).
func (f Frame) Validate() error {
	for _, x := range []float64{f.Origin.X, f.Origin.Y, f.U.X, f.U.Y, f.V.X, f.V.Y} {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e6 {
			return fmt.Errorf("classify: frame %+v is not finite", f)
		}
	}
	lu, lv := f.U.Len(), f.V.Len()
	if lu < minPxPerMM || lu > maxPxPerMM || lv < minPxPerMM || lv > maxPxPerMM {
		return fmt.Errorf("classify: frame scale %.3g×%.3g px/mm out of range %g..%g", lu, lv, float64(minPxPerMM), float64(maxPxPerMM))
	}
	sin := math.Abs(f.U.X*f.V.Y-f.U.Y*f.V.X) / (lu * lv)
	if sin < 0.5 {
		return fmt.Errorf("classify: frame axes %.0f° from parallel, want ≥ 30°", math.Asin(sin)*180/math.Pi)
	}
	return nil
}

// Cropper cuts corner crops. It keeps its scratch Mats between calls, so
// one Cropper per goroutine; Close releases them. The zero value is not
// usable: call NewCropper.
type Cropper struct {
	affine gocv.Mat // 2×3 float64, crop pixel → source pixel
	big    gocv.Mat // supersampled crop, before the area resize
}

// NewCropper returns a Cropper. The caller must Close it.
func NewCropper() *Cropper {
	return &Cropper{affine: gocv.NewMatWithSize(2, 3, gocv.MatTypeCV64F), big: gocv.NewMat()}
}

// Close releases the scratch Mats. It is safe to call more than once.
func (c *Cropper) Close() error {
	if c.affine.Ptr() != nil {
		c.affine.Close()
		c.affine = gocv.Mat{}
	}
	if c.big.Ptr() != nil {
		c.big.Close()
		c.big = gocv.Mat{}
	}
	return nil
}

// Cut writes the crop of frame f from src (8-bit BGR, not empty) into dst:
// CropCols×CropRows pixels, BGR. Crop pixel (col, row) shows card-local
// point ((col+0.5)·CropWidthMM/CropCols, (row+0.5)·CropHeightMM/CropRows)
// mm, averaged over its 0.5×0.5 mm cell. Parts of the crop outside src
// repeat the nearest edge pixel.
//
// When the source has more pixels per mm than the crop, the region is
// first warped at k times the crop's size (k = ceil(source px per crop
// px), at most 8) and then shrunk with INTER_AREA, so that fine print
// in 4K footage does not alias the way a plain bilinear warp would.
func (c *Cropper) Cut(src gocv.Mat, f Frame, dst *gocv.Mat) error {
	if c == nil || c.affine.Ptr() == nil {
		return fmt.Errorf("classify: Cut on a closed or zero Cropper")
	}
	if src.Empty() || src.Type() != gocv.MatTypeCV8UC3 {
		return fmt.Errorf("classify: source must be a non-empty 8-bit BGR Mat, got type %v, %dx%d", src.Type(), src.Cols(), src.Rows())
	}
	if dst == nil || dst.Ptr() == nil {
		return fmt.Errorf("classify: nil destination Mat")
	}
	if err := f.Validate(); err != nil {
		return err
	}
	mmPerCol := CropWidthMM / CropCols
	mmPerRow := CropHeightMM / CropRows
	srcPerCrop := math.Max(f.U.Len()*mmPerCol, f.V.Len()*mmPerRow)
	k := int(math.Ceil(srcPerCrop - 0.25)) // a quarter pixel of blur is not worth a resize
	k = min(max(k, 1), 8)
	// With WarpInverseMap the matrix maps destination pixel (x, y), centre
	// convention, to the source: destination pixel x covers the card from
	// x·m to (x+1)·m mm, whose centre is (x+0.5)·m.
	su, sv := mmPerCol/float64(k), mmPerRow/float64(k)
	ux, uy := f.U.X*su, f.U.Y*su
	vx, vy := f.V.X*sv, f.V.Y*sv
	c.affine.SetDoubleAt(0, 0, ux)
	c.affine.SetDoubleAt(0, 1, vx)
	c.affine.SetDoubleAt(0, 2, f.Origin.X+0.5*(ux+vx))
	c.affine.SetDoubleAt(1, 0, uy)
	c.affine.SetDoubleAt(1, 1, vy)
	c.affine.SetDoubleAt(1, 2, f.Origin.Y+0.5*(uy+vy))
	size := image.Pt(CropCols, CropRows)
	flags := gocv.InterpolationLinear | gocv.WarpInverseMap
	if k == 1 {
		gocv.WarpAffineWithParams(src, dst, c.affine, size, flags, gocv.BorderReplicate, color.RGBA{})
		return nil
	}
	gocv.WarpAffineWithParams(src, &c.big, c.affine, size.Mul(k), flags, gocv.BorderReplicate, color.RGBA{})
	gocv.Resize(c.big, dst, size, 0, 0, gocv.InterpolationArea)
	return nil
}

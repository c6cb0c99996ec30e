package calibration

import (
	"encoding/json"
	"image"
	"math"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func imagePt(x, y float64) image.Point {
	return image.Pt(int(math.Round(x)), int(math.Round(y)))
}

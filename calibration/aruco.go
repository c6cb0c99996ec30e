package calibration

/*
#cgo !windows pkg-config: opencv4
#cgo CXXFLAGS: --std=c++11
#include <stdlib.h>
#include "aruco.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"gocv.io/x/gocv"
)

// OpenCV's predefined dictionary codes (cv::aruco::PREDEFINED_DICTIONARY_NAME).
var dictionaries = map[string]int{
	"DICT_4X4_50": 0,
	"DICT_5X5_50": 4,
	"DICT_6X6_50": 8,
}

// maxMarkers bounds how many markers one frame may report.
const maxMarkers = 64

// detectMarkers runs OpenCV's ArUco detector on a grey image.
func detectMarkers(gray gocv.Mat, dictionary int) ([]int, [][4]gocv.Point2f, error) {
	if gray.Empty() || gray.Channels() != 1 || gray.Type() != gocv.MatTypeCV8U {
		return nil, nil, fmt.Errorf("detectMarkers: want a non-empty 8-bit grey image")
	}
	ids := make([]C.int, maxMarkers)
	corners := make([]C.float, maxMarkers*8)
	errBuf := make([]C.char, 256)
	n := C.bj_detect_markers(unsafe.Pointer(gray.Ptr()), C.int(dictionary), &ids[0], &corners[0], maxMarkers, &errBuf[0], C.int(len(errBuf)))
	if n < 0 {
		return nil, nil, fmt.Errorf("OpenCV ArUco detector: %s", C.GoString(&errBuf[0]))
	}
	outIDs := make([]int, n)
	outQuads := make([][4]gocv.Point2f, n)
	for i := 0; i < int(n); i++ {
		outIDs[i] = int(ids[i])
		for k := 0; k < 4; k++ {
			outQuads[i][k] = gocv.Point2f{X: float32(corners[i*8+k*2]), Y: float32(corners[i*8+k*2+1])}
		}
	}
	return outIDs, outQuads, nil
}

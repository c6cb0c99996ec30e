package scene

// arucoDict4x4 holds the 50 markers of OpenCV's predefined dictionary
// DICT_4X4_50, one 16-bit word each: the 4×4 inner cells row by row from
// the top-left, most significant bit first, 1 for a white cell. The words
// were read out of OpenCV 4.6 (cv::aruco::getPredefinedDictionary and
// Dictionary::getBitsFromByteList), so that any ArUco detector finds these
// marks; gocv v0.31.0's contrib/aruco cannot be used here because the
// contrib package does not build against Debian's OpenCV (it needs the
// non-free xfeatures2d module).
var arucoDict4x4 = [50]uint16{
	0xb532, 0x0f9a, 0x332d, 0x9946, 0x549e, 0x79cd, 0x9e2e, 0xc4f2, 0xfeda, 0xcf56,
	0xf991, 0x11a7, 0x0eb7, 0x2a0f, 0x24b1, 0x263e, 0x4665, 0x6600, 0x6c5e, 0x76af,
	0x868b, 0xb02b, 0xccd5, 0xdd82, 0xfe47, 0x9471, 0xace4, 0xa554, 0x2123, 0x346f,
	0x4415, 0x57b2, 0x9ecf, 0xf0cb, 0x08ae, 0x0929, 0x1875, 0x04ff, 0x0df6, 0x1c5a,
	0x1718, 0x2a28, 0x328c, 0x38b2, 0x24e8, 0x2eeb, 0x2d3f, 0x4b64, 0x502e, 0x5013,
}

// ArucoBits returns the 6×6 cell grid of marker id of DICT_4X4_50,
// including its black border: true for white. It panics on an id out of
// 0..49.
func ArucoBits(id int) [6][6]bool {
	w := arucoDict4x4[id]
	var g [6][6]bool
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			g[r+1][c+1] = w&(1<<(15-(r*4+c))) != 0
		}
	}
	return g
}

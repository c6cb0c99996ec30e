#include <cstring>
#include <vector>
#include <opencv2/aruco.hpp>
#include "aruco.h"

// gocv v0.31.0's contrib package binds ArUco, but it cannot build against
// Debian's OpenCV (it also binds xfeatures2d, which Debian leaves out), so
// the one call the calibration needs is bound here. Exceptions are caught:
// an OpenCV error must never abort the monitor.
int bj_detect_markers(void *gray, int dictionary, int *ids, float *corners, int max, char *err, int errlen) {
	try {
		cv::Mat *m = static_cast<cv::Mat *>(gray);
		std::vector<int> found;
		std::vector<std::vector<cv::Point2f>> quads;
		cv::Ptr<cv::aruco::Dictionary> dict = cv::aruco::getPredefinedDictionary(dictionary);
		cv::Ptr<cv::aruco::DetectorParameters> params = cv::aruco::DetectorParameters::create();
		params->cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX;
		cv::aruco::detectMarkers(*m, dict, quads, found, params);
		int n = 0;
		for (size_t i = 0; i < found.size() && n < max; i++) {
			if (quads[i].size() != 4) continue;
			ids[n] = found[i];
			for (int k = 0; k < 4; k++) {
				corners[n * 8 + k * 2] = quads[i][k].x;
				corners[n * 8 + k * 2 + 1] = quads[i][k].y;
			}
			n++;
		}
		return n;
	} catch (const std::exception &e) {
		std::strncpy(err, e.what(), errlen - 1);
		err[errlen - 1] = 0;
		return -1;
	}
}

#ifndef BJMONITOR_ARUCO_H
#define BJMONITOR_ARUCO_H
#ifdef __cplusplus
extern "C" {
#endif

// bj_detect_markers finds ArUco markers of the predefined dictionary in a
// grey cv::Mat. It writes up to max ids, and four (x, y) corners for each,
// and returns how many it wrote, or -1 with err filled on an OpenCV error.
int bj_detect_markers(void *gray, int dictionary, int *ids, float *corners, int max, char *err, int errlen);

#ifdef __cplusplus
}
#endif
#endif

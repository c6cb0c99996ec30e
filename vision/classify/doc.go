// Package classify reads the index in a card's corner: it cuts a small
// crop aligned with the card's edges at a corner (Cropper), and runs the
// card index model of models/cardindex on it (Classifier), which answers
// with one of the 52 cards, "none" (no index at this corner) or "back"
// (a face-down card), and a confidence.
//
// A card's index (rank letter or number over a small suit pip) is printed
// at its top-left corner and, turned by 180°, at its bottom-right one. In
// a fanned hand only these corners are certain to be visible, so the
// vision stage finds card corners, and this package tells which card each
// belongs to.
//
// # Crop geometry
//
// A Frame places a corner in the source image: the corner's pixel and the
// pixel steps of 1 mm along the card's short and long edges, leaving the
// corner into the card (the map from card-local mm to pixels; see Frame).
// The crop covers 0..CropWidthMM (20) mm along the short edge and
// 0..CropHeightMM (36) mm along the long edge, sampled at 2 px/mm onto
// CropCols×CropRows (40×72) pixels, BGR. Training data is cut with the
// same Cropper (models/cardindex/gendata), so the model sees at inference
// exactly what it was trained on.
//
//	cr := classify.NewCropper()
//	defer cr.Close()
//	clf, err := classify.Open("models/cardindex/cardindex.onnx")
//	if err != nil { ... }
//	defer clf.Close() // the caller owns the Classifier and its dnn.Net
//	crop := gocv.NewMat()
//	defer crop.Close()
//	f := classify.NewFrame(corner, alongShortEdge, alongLongEdge, pxPerMM)
//	if err := cr.Cut(frame, f, &crop); err != nil { ... }
//	res, err := clf.ClassifyOne(crop) // or Classify(crops) for a batch
//	// res.Card ("7S"), res.Back, res.Confidence
//
// The monitor runs two models as a Cascade: a fast one reads every crop,
// and a careful one reads again those the fast one reads below
// DefaultRecheckBelow; for those the answer is the class with the highest
// mean of the two models' probabilities.
//
//	c, err := classify.OpenCascade("models/cardindex/cardindex-fast.onnx",
//		"models/cardindex/cardindex.onnx", classify.DefaultRecheckBelow)
//	res, err := c.Classify(crops) // as Classifier.Classify
//
// Cropper, Classifier and Cascade hold scratch Mats and networks: none is
// safe for concurrent use, so each goroutine makes its own.
package classify

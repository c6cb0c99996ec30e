// Package scene renders synthetic overhead footage of a blackjack table:
// the printed felt layout, cards at table-plane poses, the dealer's arm,
// and a camera with perspective, lens distortion, uneven light and sensor
// noise. The game script (who gets which card, when) drives it; the
// monitor is then tested against exact ground truth.
//
// # Coordinates
//
// Everything on the table is in millimetres on the table plane: X to the
// right as the camera sees it, Y from the dealer's straight edge (Y = 0)
// towards the players. Seat 1 is first base, the dealer's left (+X).
// Layout gives, per seat, the betting circle, the side-bet spots (21+3,
// Push 22 / Pot of Gold, the Blazing 7's sensor), where each card of each
// (split) hand goes, where a doubled card lies sideways, and the seat's
// zone; and for the dealer, where the up card and the hole card go, the
// zone and the chip tray. Reference marks are ArUco markers of OpenCV's
// DICT_4X4_50 printed at known positions (Layout.Marks).
//
// # Rendering
//
// New renders the static table once on a canvas in the table plane, and
// the lookup from image pixels to that canvas once. SetCards redraws only
// the part of the canvas whose cards changed and re-warps only that part
// of the image, so a frame costs a copy, the arm, and one addition of a
// pre-made noise tile (BenchmarkRender: about 70 frames/s at 1080p and 30
// at 4K on 2 cores). Frames depend only on the seed, the state and the
// frame number.
//
//	art, _ := cardart.New(cardart.Options{})
//	defer art.Close()
//	s, err := scene.New(scene.DefaultConfig(), art, rand.New(rand.NewPCG(1, 2)))
//	if err != nil { ... }
//	defer s.Close()
//	seat := s.Layout().Seats[2]
//	placed := []scene.PlacedCard{
//		{Card: cards.MustParse("7S"), Pose: seat.CardPose(0, 1, 0)},
//		{Card: cards.MustParse("7C"), Pose: seat.CardPose(0, 1, 1), Z: 1},
//		{Pose: s.Layout().Dealer.CardPose(1), FaceDown: true}, // hole card
//	}
//	if err := s.SetCards(placed); err != nil { ... }
//	quad := s.ImageQuad(placed[0]) // ground truth, in distorted image pixels
//	v, _ := video.Create("clip.mp4", 25, 1920, 1080, video.DefaultCRF)
//	defer v.Close()
//	frame := gocv.NewMat() // one buffer, reused for every frame
//	defer frame.Close()
//	for i := 0; i < 250; i++ {
//		s.Render(&frame, i)
//		v.Write(frame)
//	}
//	s.WriteCalibration("clip.calibration.json")
//
// Ownership: a Scene owns its Mats (Close releases them) but not the
// cardart.Art, which the caller closes after the Scene. Render writes into
// a Mat the caller owns.
//
// # Calibration file
//
// WriteCalibration writes JSON (see Calibration): format version 1, units
// "mm", the image size, the marks' dictionary ("DICT_4X4_50"), each mark's
// id, centre, size and corners (clockwise from top-left as the camera sees
// them, ArUco's order), each seat's zone polygon with its seat number, the
// dealer's zone polygon, and under "truth" the rendering camera: the
// table-mm → undistorted-pixel homography (row-major) and the pinhole and
// radial distortion parameters (fx, cx, cy, k1, k2) that give the exact
// image position of any table point. A real installation has no "truth";
// the monitor must estimate the homography from the marks.
//
// External tools: rsvg-convert (librsvg2-bin) rasterises the printed
// layout, and the DejaVu fonts set its text.
package scene

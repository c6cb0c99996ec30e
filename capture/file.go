package capture

import (
	"context"
	"fmt"
	"io"

	"gocv.io/x/gocv"
)

// File reads a recorded video for a replay: every frame in order, none
// dropped, as fast as its reader takes them. It decodes on a goroutine of
// its own, into a pool of frames, so that decoding and reading cards
// overlap: most frames cost the reader little, a few (cards dealt) much,
// and the pool lets the decoder run ahead through those. A frame the
// reader will not look at is decoded but not converted into a picture.
//
// OpenFile, then Start, then Next until io.EOF; the caller must call
// Close.
type File struct {
	path   string
	vc     *gocv.VideoCapture
	fps    float64
	total  int
	pool   int
	free   chan gocv.Mat // the pool's pictures not in use
	full   chan fileFrame
	cancel context.CancelFunc
	done   chan struct{} // closed when the decoder has ended
	n      int           // frames decoded; read once done is closed
}

// fileFrame is a decoded frame travelling from the decoder to Next: its
// number, and its picture if it was converted.
type fileFrame struct {
	mat       gocv.Mat
	index     int
	converted bool
}

// OpenFile opens the video at path and reads its frame rate and frame
// count; it does not decode yet.
func OpenFile(path string) (*File, error) {
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the video %s: %v", path, err)
	}
	if !vc.IsOpened() {
		vc.Close()
		return nil, fmt.Errorf("cannot open the video %s", path)
	}
	return &File{
		path:  path,
		vc:    vc,
		fps:   vc.Get(gocv.VideoCaptureFPS),
		total: int(vc.Get(gocv.VideoCaptureFrameCount)),
		pool:  framePool(int(vc.Get(gocv.VideoCaptureFrameWidth)), int(vc.Get(gocv.VideoCaptureFrameHeight))),
	}, nil
}

// FPS is the frame rate the file reports.
func (f *File) FPS() float64 { return f.fps }

// Announced is the number of frames the file says it holds; 0 when it
// says none.
func (f *File) Announced() int { return f.total }

// Decoded is the number of frames decoded before the file ended. It is
// known once Next has returned io.EOF.
func (f *File) Decoded() int {
	<-f.done
	return f.n
}

// framePool is how many decoded frames of w×h may wait for the reader:
// some 100 MB of them, from 4 (4K) to 32.
func framePool(w, h int) int {
	const budget = 100 << 20
	if w <= 0 || h <= 0 {
		return 4
	}
	return min(32, max(4, budget/(w*h*3)))
}

// Start starts decoding. convert, called on the decoder's goroutine with
// each frame's number in order, says whether the frame is converted into
// a picture; the others are only decoded (an H.264 stream must decode
// every frame to reach the next). Decoding stops at the file's end, or
// when ctx ends or Close is called.
func (f *File) Start(ctx context.Context, convert func(index int) bool) {
	f.free = make(chan gocv.Mat, f.pool)
	f.full = make(chan fileFrame, f.pool)
	for range f.pool {
		f.free <- gocv.NewMat()
	}
	ctx, f.cancel = context.WithCancel(ctx)
	f.done = make(chan struct{})
	go f.decode(ctx, convert)
}

// decode reads the video into frames on full until it ends or ctx is
// cancelled: a frame that convert takes is converted into a Mat from free,
// the others are only grabbed. It closes full and then done.
func (f *File) decode(ctx context.Context, convert func(int) bool) {
	defer close(f.done)
	defer close(f.full)
	for {
		fr := fileFrame{index: f.n}
		if convert(f.n) {
			select {
			case <-ctx.Done():
				return
			case fr.mat = <-f.free:
			}
			if !f.vc.Read(&fr.mat) || fr.mat.Empty() {
				f.free <- fr.mat
				return
			}
			fr.converted = true
		} else {
			f.vc.Grab(1)
			if int(f.vc.Get(gocv.VideoCapturePosFrames)) <= f.n {
				return
			}
		}
		select {
		case f.full <- fr:
			f.n++
		case <-ctx.Done():
			if fr.converted {
				f.free <- fr.mat
			}
			return
		}
	}
}

// Next waits for the next frame and describes it; its Seq is its number
// plus 1. A converted frame's picture is swapped into dst, whose old
// Mat goes into the pool: dst stays the caller's to close, and holds the
// picture until the next call. A frame only decoded says Grabbed and
// leaves dst as it was. At the file's end Next returns io.EOF.
func (f *File) Next(ctx context.Context, dst *gocv.Mat) (Info, error) {
	select {
	case fr, ok := <-f.full:
		if !ok {
			return Info{}, io.EOF
		}
		if fr.converted {
			*dst, fr.mat = fr.mat, *dst
			f.free <- fr.mat
		}
		return Info{Seq: uint64(fr.index) + 1, Grabbed: !fr.converted}, nil
	case <-ctx.Done():
		return Info{}, ctx.Err()
	}
}

// Close stops the decoder, waits for it, and frees the pool and the
// video. However the replay ends, the decoder is waited for before its
// Mats are closed and the video with them: closing a VideoCapture in the
// middle of a Read aborts FFmpeg. Safe to call before Start.
func (f *File) Close() error {
	if f.cancel != nil {
		f.cancel()
		for fr := range f.full {
			if fr.converted {
				f.free <- fr.mat
			}
		}
		<-f.done
		close(f.free)
		for mat := range f.free {
			mat.Close()
		}
	}
	return f.vc.Close()
}

package video

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"os/exec"
	"strconv"
	"syscall"

	"gocv.io/x/gocv"
)

// Writer writes frames to an .mp4 file. The caller must Close it, which
// finishes the file.
type Writer struct {
	// Codec is the FourCC written: "avc1" (H.264, as surveillance cameras
	// record) or "mp4v" (MPEG-4 Part 2) when nothing here encodes H.264.
	Codec string

	width, height int
	// Either an ffmpeg process fed raw frames on its standard input...
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr bytes.Buffer
	// ...or OpenCV's writer.
	w *gocv.VideoWriter
}

// DefaultCRF is the H.264 quality the ffmpeg encoder is asked for (lower
// is better; 23 is x264's default).
const DefaultCRF = 23

// Create opens an .mp4 for writing width×height BGR frames at quality
// crf. It pipes raw frames to the ffmpeg command with libx264 when ffmpeg
// is installed, and otherwise falls back to OpenCV's writer, H.264 first,
// then MPEG-4 Part 2, logging the fallback. gocv does not report a failed
// open, so IsOpened is checked here.
func Create(path string, fps float64, width, height, crf int) (*Writer, error) {
	return create(path, fps, width, height, crf, false)
}

// CreateBackground is Create for a video written beside work that must
// not wait: the ffmpeg encoder runs on one thread at the lowest CPU
// priority, so it takes only the time the rest leaves (a live monitor's
// evidence clips).
func CreateBackground(path string, fps float64, width, height, crf int) (*Writer, error) {
	return create(path, fps, width, height, crf, true)
}

func create(path string, fps float64, width, height, crf int, background bool) (*Writer, error) {
	if crf < 0 || crf > 51 {
		return nil, fmt.Errorf("video: H.264 quality %d: want 0 to 51", crf)
	}
	if fps <= 0 || fps > 240 || width < 16 || height < 16 || width%2 != 0 || height%2 != 0 {
		return nil, fmt.Errorf("video: video %dx%d at %g fps: out of range (sizes must be even)", width, height, fps)
	}
	if bin, err := exec.LookPath("ffmpeg"); err == nil {
		v := &Writer{Codec: "avc1", width: width, height: height}
		args := []string{"-loglevel", "error", "-y",
			"-f", "rawvideo", "-pix_fmt", "bgr24", "-s", fmt.Sprintf("%dx%d", width, height),
			"-r", strconv.FormatFloat(fps, 'f', -1, 64), "-i", "-",
			"-c:v", "libx264", "-preset", "veryfast", "-crf", strconv.Itoa(crf)}
		if background {
			args = append(args, "-threads", "1")
		}
		args = append(args, "-pix_fmt", "yuv420p", "-movflags", "+faststart", path)
		v.cmd = exec.Command(bin, args...)
		v.cmd.Stderr = &v.stderr
		in, err := v.cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		v.in = in
		if err := v.cmd.Start(); err != nil {
			return nil, fmt.Errorf("video: starting ffmpeg: %w", err)
		}
		if background {
			// Best effort: at worst the clip competes for the CPU.
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, v.cmd.Process.Pid, 19)
		}
		return v, nil
	}
	for _, codec := range []string{"avc1", "mp4v"} {
		w, err := gocv.VideoWriterFile(path, codec, fps, width, height, true)
		if err != nil {
			continue
		}
		if !w.IsOpened() {
			w.Close()
			continue
		}
		if codec != "avc1" {
			log.Printf("video: H.264 (avc1) is not available in this OpenCV build; %s is MPEG-4 Part 2 (mp4v)", path)
		}
		return &Writer{w: w, Codec: codec, width: width, height: height}, nil
	}
	return nil, fmt.Errorf("video: cannot open %s for writing: no ffmpeg, and OpenCV writes neither avc1 nor mp4v", path)
}

// Write appends one frame; it must be width×height BGR.
func (v *Writer) Write(frame gocv.Mat) error {
	if frame.Cols() != v.width || frame.Rows() != v.height || frame.Type() != gocv.MatTypeCV8UC3 {
		return fmt.Errorf("video: video frame %dx%d type %v, want %dx%d BGR", frame.Cols(), frame.Rows(), frame.Type(), v.width, v.height)
	}
	if v.w != nil {
		return v.w.Write(frame)
	}
	if !frame.IsContinuous() {
		return errors.New("video: video frame must be a whole Mat, not a region")
	}
	b, err := frame.DataPtrUint8()
	if err != nil {
		return err
	}
	if _, err := v.in.Write(b); err != nil {
		return fmt.Errorf("video: ffmpeg stopped taking frames: %w (%s)", err, bytes.TrimSpace(v.stderr.Bytes()))
	}
	return nil
}

// Close finishes the file.
func (v *Writer) Close() error {
	if v.w != nil {
		return v.w.Close()
	}
	v.in.Close()
	if err := v.cmd.Wait(); err != nil {
		return fmt.Errorf("video: ffmpeg: %w (%s)", err, bytes.TrimSpace(v.stderr.Bytes()))
	}
	return nil
}

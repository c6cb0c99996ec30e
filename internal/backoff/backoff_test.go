package backoff

import (
	"context"
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	s := Schedule{time.Second, 5 * time.Second, time.Minute}
	for _, tt := range []struct {
		n    int
		want time.Duration
	}{{0, time.Second}, {1, 5 * time.Second}, {2, time.Minute}, {3, time.Minute}, {1000, time.Minute}, {-1, time.Second}} {
		if got := s.Delay(tt.n); got != tt.want {
			t.Errorf("Delay(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

func TestSleep(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Error("Sleep with a live context = false, want true")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if Sleep(ctx, time.Hour) {
		t.Error("Sleep with an ended context = true, want false")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Sleep with an ended context took %v", d)
	}
}

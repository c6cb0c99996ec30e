package main

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"bjmonitor/pipeline"
	"bjmonitor/vision"
)

// TestMetricsPipeline: the counters of the pipeline's work advance by
// what each frame added, however often they are brought up to date.
func TestMetricsPipeline(t *testing.T) {
	m := newMetrics(gauges{
		outboxDepth: func() float64 { return 0 }, connected: func() float64 { return 0 },
		reconnects: func() float64 { return 0 }, capturing: func() float64 { return 0 },
	})
	steps := []pipeline.Stats{
		{},
		{Vision: vision.Stats{Frames: 1, Zones: 8, Crops: 20}},
		{Vision: vision.Stats{Frames: 2, Zones: 8, Crops: 20}},
		{Vision: vision.Stats{Frames: 9, Zones: 11, Crops: 26}},
		{Vision: vision.Stats{Frames: 9, Zones: 11, Crops: 26}},
	}
	for _, s := range steps {
		m.pipeline(s)
	}
	for _, tt := range []struct {
		name      string
		got, want float64
	}{
		{"zones_read_total", testutil.ToFloat64(m.zones), 11},
		{"crops_read_total", testutil.ToFloat64(m.crops), 26},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"bjmonitor/broker"
	"bjmonitor/publish"
)

// publishConfig is the publisher's configuration for broker, under a topic
// prefix, keeping its outbox in outbox.
func publishConfig(c Config, broker, prefix, clientID, outbox string) publish.Config {
	m := c.MQTT
	if clientID == "" {
		clientID = "bjmonitor-" + c.Table.ID
	}
	return publish.Config{
		Broker: broker, ClientID: clientID, Username: m.Username, Password: m.Password,
		CAFile: m.CAFile, CertFile: m.CertFile, KeyFile: m.KeyFile,
		TopicPrefix: prefix, Table: c.Table.ID, OutboxDir: outbox,
	}
}

// embeddedConfig is the embedded broker's configuration: its address, and
// its users held to the table's topics.
func embeddedConfig(c Config) broker.Config {
	return broker.Config{Addr: c.MQTT.EmbeddedAddr, Users: c.embeddedUsers(), TopicPrefix: c.MQTT.TopicPrefix, Table: c.Table.ID}
}

// replayPublisher publishes a replay's results under the replay prefix,
// with an outbox of its own, so that replays run side by side share
// nothing, and never page an officer.
type replayPublisher struct {
	p   *publish.Publisher
	dir string
	log *slog.Logger
}

// openPublisher connects a replay of video to mqtt.broker. Its client id
// and outbox derive from the video's path, so a replay run again resends
// what an interrupted run left behind, and different files never mix.
func (r *replay) openPublisher(ctx context.Context, video string) (*replayPublisher, error) {
	if r.cfg.MQTT.Broker == "" {
		return nil, &ConfigError{"mqtt.broker", `""`, "replay --publish needs a broker (set mqtt.broker or --broker)"}
	}
	abs, err := filepath.Abs(video)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(r.cfg.Table.ID + "\x00" + abs))
	id := hex.EncodeToString(sum[:6])
	dir := filepath.Join(r.cfg.MQTT.Outbox, "replay-"+id)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("replay outbox: %w", err)
	}
	pc := publishConfig(r.cfg, r.cfg.MQTT.Broker, r.cfg.MQTT.ReplayPrefix, "bjmonitor-replay-"+id, dir)
	pc.Log = r.log
	p, err := publish.New(pc)
	if err != nil {
		return nil, err
	}
	if n := p.OutboxDepth(); n > 0 {
		r.log.Warn("replay: resending results an earlier run of this file left in its outbox", "records", n, "outbox", dir)
	}
	return &replayPublisher{p: p, dir: dir, log: r.log}, nil
}

// publisher is the publisher to write to, or nil when not publishing.
func (rp *replayPublisher) publisher() publisher {
	if rp == nil {
		return nil
	}
	return rp.p
}

// finish waits up to wait for the broker to take every result, then closes
// the connection. A drained outbox is removed; one still holding results
// stays, and the next run of the same file sends them.
func (rp *replayPublisher) finish(ctx context.Context, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for rp.p.OutboxDepth() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	left := rp.p.OutboxDepth()
	if err := rp.p.Close(); err != nil {
		rp.log.Warn("replay: closing the broker connection", "err", err)
	}
	if left > 0 {
		return fmt.Errorf("the broker did not take %d results within %v; they wait in %s and go out when this replay is run again", left, wait, rp.dir)
	}
	return os.RemoveAll(rp.dir)
}

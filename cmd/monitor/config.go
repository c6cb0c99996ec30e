package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"bjmonitor/alerts"
	"bjmonitor/broker"
	"bjmonitor/calibration"
	"bjmonitor/capture"
	"bjmonitor/evaluator"
	"bjmonitor/evidence"
	"bjmonitor/game"
	"bjmonitor/pipeline"
	"bjmonitor/vision"
	"bjmonitor/vision/classify"
)

// Config is everything a monitor is configured with. Every key has a
// default (DefaultConfig) and is documented in config.example.yaml.
type Config struct {
	Table    TableConfig    `mapstructure:"table"`
	SideBets SideBetsConfig `mapstructure:"side_bets"`
	Vision   VisionConfig   `mapstructure:"vision"`
	Live     LiveConfig     `mapstructure:"live"`
	MQTT     MQTTConfig     `mapstructure:"mqtt"`
	Evidence EvidenceConfig `mapstructure:"evidence"`
	Metrics  MetricsConfig  `mapstructure:"metrics"`
	Log      LogConfig      `mapstructure:"log"`
	Console  ConsoleConfig  `mapstructure:"console"`
}

// LiveConfig is where the live monitor takes its frames from.
type LiveConfig struct {
	// Source is a camera (device index "0" or path "/dev/video0"), an
	// rtsp:// URL, or a video file.
	Source string `mapstructure:"source"`
	// FPS is the camera's frame rate; 0 takes what the source reports.
	FPS float64 `mapstructure:"fps"`
	// Realtime reads a file source at its frame rate, as a camera
	// delivers frames; false reads it as fast as the pipeline goes, losing
	// none (tests, soak runs). Cameras and streams are never paced.
	Realtime bool `mapstructure:"realtime"`
	// StatsInterval is how often fps, drops and latency are published.
	StatsInterval time.Duration `mapstructure:"stats_interval"`
}

// MQTTConfig is the broker the results go to and the controller's events
// come from.
type MQTTConfig struct {
	// Broker is tcp://host:1883 or ssl://host:8883. Empty: the monitor
	// runs an embedded broker on EmbeddedAddr (live only).
	Broker       string `mapstructure:"broker"`
	EmbeddedAddr string `mapstructure:"embedded_addr"`
	// EmbeddedUsers are the embedded broker's logins, each held to its
	// role's topics; without them it listens on loopback only.
	EmbeddedUsers []EmbeddedUser `mapstructure:"embedded_users"`
	// ClientID is fixed, so the broker keeps the session across
	// reconnects; empty: bjmonitor-<table.id>.
	ClientID string `mapstructure:"client_id"`
	Username string `mapstructure:"username"`
	Password string `mapstructure:"password"`
	CAFile   string `mapstructure:"ca_file"`
	CertFile string `mapstructure:"cert_file"`
	KeyFile  string `mapstructure:"key_file"`
	// TopicPrefix is where live results go; ReplayPrefix where replays
	// publish, so that they never page an officer.
	TopicPrefix  string `mapstructure:"topic_prefix"`
	ReplayPrefix string `mapstructure:"replay_prefix"`
	// Outbox is the folder where results wait, on disk, for the broker.
	Outbox string `mapstructure:"outbox"`
}

// EmbeddedUser is one login of the embedded broker (broker.User).
type EmbeddedUser struct {
	Name string `mapstructure:"name"`
	// PasswordHash is the bcrypt hash of the password (htpasswd -B).
	PasswordHash string `mapstructure:"password_hash"`
	// Role is controller (publishes the controller's events only),
	// console (reads only) or monitor (publishes results, reads the
	// controller: another monitor's box, say).
	Role string `mapstructure:"role"`
}

// EvidenceConfig is where alert snapshots and clips go and how long they
// stay.
type EvidenceConfig struct {
	// Dir is the folder; empty writes no evidence.
	Dir      string        `mapstructure:"dir"`
	MaxAge   time.Duration `mapstructure:"max_age"`
	MaxBytes int64         `mapstructure:"max_bytes"`
}

// MetricsConfig is the Prometheus endpoint.
type MetricsConfig struct {
	// Addr serves /metrics; empty serves nothing.
	Addr string `mapstructure:"addr"`
}

// LogConfig is how the monitor logs.
type LogConfig struct {
	Level  string `mapstructure:"level"`  // debug, info, warn or error
	Format string `mapstructure:"format"` // text or json
}

// VisionConfig is how cards are read.
type VisionConfig struct {
	// Model is the card index model (ONNX, with its .json metadata beside
	// it). A relative path is taken from the working folder, or when not
	// there from the installed models' folder (see findData).
	Model string `mapstructure:"model"`
	// FastModel, when set, is a faster card index model that reads every
	// crop first; Model reads again only the crops it is unsure of (below
	// RecheckBelow), and the two models' answers are averaged there (see
	// classify.Cascade). Empty: Model reads every crop.
	FastModel    string  `mapstructure:"fast_model"`
	RecheckBelow float64 `mapstructure:"recheck_below"`
	// MinConfidence: an alert on cards read with less is for review.
	MinConfidence float64 `mapstructure:"min_confidence"`
	// AnalysisFPS is how many frames a second are read for cards; the
	// video's other frames are decoded (and kept for evidence clips) but
	// not read. 0 reads every frame.
	AnalysisFPS float64 `mapstructure:"analysis_fps"`
	// Deck is the table's own deck as monitor enroll learned it (a deck
	// file); where it clearly matches a corner it decides the card
	// (classify.Enrolled). Empty: the model alone reads. A relative path
	// is taken from the configuration file's folder.
	Deck string `mapstructure:"deck"`
	// FeaturesModel is what the deck's corners are compared by: the
	// careful model's hidden layers (classify.Embedder), exported beside
	// it. Read only with a deck; a relative path is found as Model's.
	FeaturesModel string `mapstructure:"features_model"`
	// CountPips: a card that lies whole is read by its pips as well, and
	// where they count another rank than its index reads, the count
	// stands, for review (vision.Options.CountPips).
	CountPips bool `mapstructure:"count_pips"`
	// SuitsModel is the pip suit model (models/pipsuit): with CountPips,
	// the pips counted, and an ace's single pip, are read for their suit
	// too, and where they name
	// the other suit of the colour the index reads, the card is taken as
	// they say, for review (vision.Options.Suits). Empty reads no suit. A
	// relative path is found as Model's.
	SuitsModel string `mapstructure:"suits_model"`
}

// TableConfig is the table's game and dealing rules.
type TableConfig struct {
	ID        string `mapstructure:"id"`
	Variant   string `mapstructure:"variant"`
	Decks     int    `mapstructure:"decks"`
	HitSoft17 bool   `mapstructure:"hit_soft_17"`
	HoleCard  bool   `mapstructure:"hole_card"`
	// MaxBet is the table maximum; a 21+3 wager may be at most 10% of it.
	MaxBet float64 `mapstructure:"max_bet"`
	// Calibration is the table file: where the reference marks and the
	// zones are on the felt (see package calibration). A relative path is
	// taken from the configuration file's folder.
	Calibration string `mapstructure:"calibration"`
}

// SideBetsConfig holds each side bet's pay table.
type SideBetsConfig struct {
	TwentyOnePlusThree ThreeCardConfig `mapstructure:"twenty_one_plus_three"`
	Blazing7s          Blazing7sConfig `mapstructure:"blazing7s"`
	Push22             Push22Config    `mapstructure:"push22"`
	PotOfGold          PotOfGoldConfig `mapstructure:"pot_of_gold"`
}

// ThreeCardConfig picks the 21+3 pay table.
type ThreeCardConfig struct {
	// Paytable is "classic", "xtreme" or "custom"; the pays below are read
	// only for "custom".
	Paytable           string  `mapstructure:"paytable"`
	Flush              float64 `mapstructure:"flush"`
	Straight           float64 `mapstructure:"straight"`
	ThreeOfAKind       float64 `mapstructure:"three_of_a_kind"`
	StraightFlush      float64 `mapstructure:"straight_flush"`
	SuitedThreeOfAKind float64 `mapstructure:"suited_three_of_a_kind"`
}

// Blazing7sConfig is the Blazing 7's pay table and progressive meter.
type Blazing7sConfig struct {
	OneSeven    float64 `mapstructure:"one_seven"`
	TwoSevens   float64 `mapstructure:"two_sevens"`
	ThreeSevens float64 `mapstructure:"three_sevens"`
	SameColour  float64 `mapstructure:"same_colour"`
	SameSuit    float64 `mapstructure:"same_suit"`
	// Odds is "to" (n to 1, the regulator's text) or "for" (n for 1).
	Odds  string      `mapstructure:"odds"`
	Meter MeterConfig `mapstructure:"meter"`
}

// MeterConfig is the progressive meter.
type MeterConfig struct {
	Reset        float64 `mapstructure:"reset"`
	Contribution float64 `mapstructure:"contribution"`
	// Start is the meter when the monitor starts; below the reset (0, the
	// default) it starts at the reset.
	Start float64 `mapstructure:"start"`
}

// Push22Config is the Push 22 pay table.
type Push22Config struct {
	Pays float64 `mapstructure:"pays"`
}

// PotOfGoldConfig is the Pot of Gold pay table: pays[i] for i+1 lammers.
type PotOfGoldConfig struct {
	Pays []float64 `mapstructure:"pays"`
}

// DefaultConfig is Free Bet Blackjack's usual table: 6 decks, the dealer
// hits soft 17, with a hole card, and the pay tables of DESIGN.md.
func DefaultConfig() Config {
	r := game.DefaultRules()
	b7 := evaluator.DefaultBlazing7s
	return Config{
		Table: TableConfig{ID: "table-1", Variant: string(r.Variant), Decks: r.Decks, HitSoft17: r.HitSoft17, HoleCard: r.HoleCard, MaxBet: 1000},
		Vision: VisionConfig{Model: "models/cardindex/cardindex.onnx", FastModel: "models/cardindex/cardindex-fast.onnx", FeaturesModel: "models/cardindex/cardindex-features.onnx",
			RecheckBelow: classify.DefaultRecheckBelow, MinConfidence: vision.Confident, AnalysisFPS: 12.5,
			CountPips: vision.DefaultOptions().CountPips, SuitsModel: "models/pipsuit/pipsuit.onnx"},
		SideBets: SideBetsConfig{
			TwentyOnePlusThree: ThreeCardConfig{Paytable: evaluator.Classic21Plus3.Name},
			Blazing7s: Blazing7sConfig{
				OneSeven: b7.One, TwoSevens: b7.Two, ThreeSevens: b7.Three,
				SameColour: b7.SameColour, SameSuit: b7.SameSuit, Odds: "to",
				Meter: MeterConfig{Reset: 1000, Contribution: 0.15},
			},
			Push22:    Push22Config{Pays: evaluator.DefaultPush22.Dealer22},
			PotOfGold: PotOfGoldConfig{Pays: append([]float64(nil), evaluator.DefaultPotOfGold.Pays...)},
		},
		Live: LiveConfig{Realtime: true, StatsInterval: 10 * time.Second},
		MQTT: MQTTConfig{
			EmbeddedAddr: "127.0.0.1:1883", EmbeddedUsers: []EmbeddedUser{}, TopicPrefix: "bjmonitor", ReplayPrefix: "bjmonitor-replay",
			Outbox: "state/outbox",
		},
		Evidence: EvidenceConfig{Dir: "state/evidence", MaxAge: 30 * 24 * time.Hour, MaxBytes: 2 << 30},
		Metrics:  MetricsConfig{Addr: "127.0.0.1:9108"},
		Log:      LogConfig{Level: "info", Format: "text"},
		Console:  ConsoleConfig{Listen: "127.0.0.1:8080", Database: "console.db", Tables: []string{}, SessionTTL: 8 * time.Hour, EvidenceDays: 90},
	}
}

// ConfigError names a configuration field and the value that is wrong.
type ConfigError struct {
	Field  string
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("config: %s = %v: %s", e.Field, e.Value, e.Reason)
}

// ConfigField names the field that is wrong.
func (e *ConfigError) ConfigField() string { return e.Field }

// Rules returns the table rules.
func (c Config) Rules() game.Rules {
	return game.Rules{Variant: game.Variant(c.Table.Variant), Decks: c.Table.Decks, HitSoft17: c.Table.HitSoft17, HoleCard: c.Table.HoleCard}
}

// PayTables returns the configured pay tables. Call Validate first.
func (c Config) PayTables() evaluator.PayTables {
	s := c.SideBets
	three, ok := evaluator.Builtin21Plus3(s.TwentyOnePlusThree.Paytable)
	if !ok {
		t := s.TwentyOnePlusThree
		three = evaluator.ThreeCardTable{Name: "custom", Flush: t.Flush, Straight: t.Straight, ThreeOfAKind: t.ThreeOfAKind, StraightFlush: t.StraightFlush, SuitedThreeOfAKind: t.SuitedThreeOfAKind}
	}
	b := s.Blazing7s
	name := "configured"
	if b.Odds == "for" {
		name = "configured, for 1"
	}
	return evaluator.PayTables{
		TwentyOnePlusThree: three,
		Blazing7s:          evaluator.Blazing7sTable{Name: name, One: b.OneSeven, Two: b.TwoSevens, Three: b.ThreeSevens, SameColour: b.SameColour, SameSuit: b.SameSuit, ForOne: b.Odds == "for"},
		Push22:             evaluator.Push22Table{Name: "configured", Dealer22: s.Push22.Pays},
		PotOfGold:          evaluator.PotOfGoldTable{Name: "configured", Pays: s.PotOfGold.Pays},
	}
}

// Validate reports the first field whose value cannot be right.
func (c Config) Validate() error {
	t := c.Table
	switch game.Variant(t.Variant) {
	case game.Classic, game.FreeBet:
	default:
		return &ConfigError{"table.variant", t.Variant, `want "classic" or "freebet"`}
	}
	if t.Decks < 1 || t.Decks > 8 {
		return &ConfigError{"table.decks", t.Decks, "want 1 to 8"}
	}
	if !(t.MaxBet >= 10 && t.MaxBet <= 1e7) {
		return &ConfigError{"table.max_bet", t.MaxBet, "want the table maximum, at least $10 (21+3 takes from $1 to 10% of it)"}
	}
	if t.ID == "" || strings.ContainsAny(t.ID, "/#+ ") {
		return &ConfigError{"table.id", t.ID, "want a name without spaces, /, # or +: it goes in MQTT topics"}
	}
	if c.Vision.Model == "" {
		return &ConfigError{"vision.model", `""`, "set it to the card index model (models/cardindex/cardindex.onnx)"}
	}
	if c.Vision.FastModel != "" && !(c.Vision.RecheckBelow > 0 && c.Vision.RecheckBelow <= 1) {
		return &ConfigError{"vision.recheck_below", c.Vision.RecheckBelow, "want the fast model's confidence, above 0 and at most 1, below which the careful model reads a crop again"}
	}
	if !(c.Vision.MinConfidence > 0 && c.Vision.MinConfidence < 1) {
		return &ConfigError{"vision.min_confidence", c.Vision.MinConfidence, "want a probability between 0 and 1"}
	}
	if f := c.Vision.AnalysisFPS; f != 0 && !(f >= 5 && f <= pipeline.MaxFPS) {
		return &ConfigError{"vision.analysis_fps", f, fmt.Sprintf("want 5 to %v frames a second, or 0 to read every frame: a card must be seen a few times while it lies still", pipeline.MaxFPS)}
	}
	s := c.SideBets
	switch s.TwentyOnePlusThree.Paytable {
	case "classic", "xtreme", "custom":
	default:
		return &ConfigError{"side_bets.twenty_one_plus_three.paytable", s.TwentyOnePlusThree.Paytable, `want "classic", "xtreme" or "custom"`}
	}
	if s.Blazing7s.Odds != "to" && s.Blazing7s.Odds != "for" {
		return &ConfigError{"side_bets.blazing7s.odds", s.Blazing7s.Odds, `want "to" (n to 1) or "for" (n for 1)`}
	}
	m := s.Blazing7s.Meter
	if !(m.Reset >= 1000 && m.Reset <= 1e8) {
		return &ConfigError{"side_bets.blazing7s.meter.reset", m.Reset, "want at least 1000 (the regulator's minimum reset)"}
	}
	if !(m.Start >= 0 && m.Start <= 1e8) {
		return &ConfigError{"side_bets.blazing7s.meter.start", m.Start, "want the meter's amount, or 0 to start at the reset"}
	}
	if !(m.Contribution >= 0 && m.Contribution < 1) {
		return &ConfigError{"side_bets.blazing7s.meter.contribution", m.Contribution, "want a share of the $1 wager, from 0 up to 1"}
	}
	if err := c.validateLive(); err != nil {
		return err
	}
	if err := c.validateConsole(); err != nil {
		return err
	}
	if err := c.PayTables().Validate(); err != nil {
		var pe *evaluator.PayTableError
		if errors.As(err, &pe) {
			return &ConfigError{payTableField(pe), pe.Value, pe.Reason}
		}
		return err
	}
	return nil
}

func (c Config) validateLive() error {
	if !(c.Live.FPS == 0 || pipeline.ValidFPS(c.Live.FPS)) {
		return &ConfigError{"live.fps", c.Live.FPS, fmt.Sprintf("want the camera's frames a second (%v to %v), or 0 to take the source's", pipeline.MinFPS, pipeline.MaxFPS)}
	}
	if c.Live.StatsInterval < time.Second || c.Live.StatsInterval > time.Hour {
		return &ConfigError{"live.stats_interval", c.Live.StatsInterval, "want 1s to 1h"}
	}
	if c.Live.Source != "" { // live says what to set when it is empty
		cc := capture.DefaultConfig()
		cc.Source = c.Live.Source
		if err := cc.Validate(); err != nil {
			return userField(err)
		}
	}
	m := c.MQTT
	if m.Broker != "" {
		u, err := url.Parse(m.Broker)
		if err != nil || u.Host == "" || !slices.Contains([]string{"tcp", "ssl", "tls", "mqtt", "mqtts"}, u.Scheme) {
			return &ConfigError{"mqtt.broker", m.Broker, "want tcp://host:1883 or ssl://host:8883, or empty for the embedded broker"}
		}
	}
	if err := c.validateEmbedded(); err != nil {
		return err
	}
	for field, p := range map[string]string{"mqtt.topic_prefix": m.TopicPrefix, "mqtt.replay_prefix": m.ReplayPrefix} {
		if p == "" || strings.ContainsAny(p, "#+ ") || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
			return &ConfigError{field, p, "want a topic prefix without spaces, # or +, not starting or ending with /"}
		}
	}
	if m.TopicPrefix == m.ReplayPrefix {
		return &ConfigError{"mqtt.replay_prefix", m.ReplayPrefix, "must differ from mqtt.topic_prefix, so that replays never page an officer"}
	}
	if (m.CertFile == "") != (m.KeyFile == "") {
		return &ConfigError{"mqtt.cert_file", m.CertFile, "a client certificate needs its key (mqtt.key_file), and the other way round"}
	}
	if m.Outbox == "" {
		return &ConfigError{"mqtt.outbox", `""`, "set it to a folder on disk where results wait for the broker"}
	}
	if c.Evidence.MaxAge < time.Hour {
		return &ConfigError{"evidence.max_age", c.Evidence.MaxAge, "want at least 1h"}
	}
	if c.Evidence.MaxBytes < 1<<20 {
		return &ConfigError{"evidence.max_bytes", c.Evidence.MaxBytes, "want at least 1 MiB (1048576)"}
	}
	if c.Metrics.Addr != "" {
		if _, _, err := net.SplitHostPort(c.Metrics.Addr); err != nil {
			return &ConfigError{"metrics.addr", c.Metrics.Addr, "want host:port, such as 127.0.0.1:9108, or empty for none"}
		}
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(c.Log.Level)); err != nil {
		return &ConfigError{"log.level", c.Log.Level, "want debug, info, warn or error"}
	}
	if c.Log.Format != "text" && c.Log.Format != "json" {
		return &ConfigError{"log.format", c.Log.Format, `want "text" or "json"`}
	}
	return nil
}

// validateEmbedded checks the embedded broker's address and users.
func (c Config) validateEmbedded() error {
	m := c.MQTT
	host, _, err := net.SplitHostPort(m.EmbeddedAddr)
	if err != nil {
		return &ConfigError{"mqtt.embedded_addr", m.EmbeddedAddr, "want host:port, such as 127.0.0.1:1883"}
	}
	for i, u := range c.embeddedUsers() {
		if err := u.Check(); err != nil {
			var ue *broker.UserError
			if errors.As(err, &ue) {
				return &ConfigError{fmt.Sprintf("mqtt.embedded_users[%d].%s", i, ue.Field), ue.Value, ue.Reason}
			}
			return err
		}
	}
	ip := net.ParseIP(host)
	if m.Broker == "" && len(m.EmbeddedUsers) == 0 && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return &ConfigError{"mqtt.embedded_addr", m.EmbeddedAddr, "the embedded broker listens beyond loopback only with mqtt.embedded_users set (controller, console and monitor roles): otherwise anyone on the network could read the alerts and publish the controller's events"}
	}
	return nil
}

// embeddedUsers are the embedded broker's users as package broker takes
// them.
func (c Config) embeddedUsers() []broker.User {
	var out []broker.User
	for _, u := range c.MQTT.EmbeddedUsers {
		out = append(out, broker.User{Name: u.Name, PasswordHash: u.PasswordHash, Role: broker.Role(u.Role)})
	}
	return out
}

// Logger returns the configured logger, writing to w. Call Validate first.
func (c Config) Logger(w io.Writer) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(c.Log.Level))
	opts := &slog.HandlerOptions{Level: lv}
	if c.Log.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// userKeys names the fields of the libraries' Config that the user sets, by
// the key written in the YAML.
var userKeys = map[string]string{
	"capture.Source": "live.source", "capture.Realtime": "live.realtime",
	"evidence.Dir": "evidence.dir", "evidence.MaxAge": "evidence.max_age", "evidence.MaxBytes": "evidence.max_bytes",
}

// userField turns a library's configuration error, which names a field of
// the library's Config (capture's Source), into a ConfigError that names
// the key the user writes (live.source). Any other error, or a field the
// user does not set, is returned as it is.
func userField(err error) error {
	var field, reason string
	var value any
	var ce *capture.ConfigError
	var ee *evidence.ConfigError
	switch {
	case errors.As(err, &ce):
		field, value, reason = "capture."+ce.Field, ce.Value, ce.Reason
	case errors.As(err, &ee):
		field, value, reason = "evidence."+ee.Field, ee.Value, ee.Reason
	default:
		return err
	}
	if key, ok := userKeys[field]; ok {
		return &ConfigError{key, value, reason}
	}
	return err
}

// payTableField maps a pay-table entry to its configuration key.
func payTableField(pe *evaluator.PayTableError) string {
	bet, _, _ := strings.Cut(pe.Table, " ")
	section := map[string]string{
		"21+3": "twenty_one_plus_three", "blazing7s": "blazing7s",
		"push22": "push22", "potofgold": "pot_of_gold",
	}[bet]
	return "side_bets." + section + "." + pe.Field
}

// loadConfig reads the configuration: defaults, then the YAML file at path
// (if any), then MONITOR_* environment variables, then the flags in bind
// (configuration key → flag name) that were set on the command line.
func loadConfig(path string, fs *pflag.FlagSet, bind map[string]string) (Config, error) {
	v := viper.New()
	defaults := map[string]any{}
	if err := mapstructure.Decode(DefaultConfig(), &defaults); err != nil {
		return Config{}, err
	}
	setDefaults(v, "", defaults)
	v.SetEnvPrefix("MONITOR")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return Config{}, &ConfigError{"--config", path, "cannot read the file: " + err.Error()}
		}
		v.SetConfigFile(path)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return Config{}, &ConfigError{"--config", path, "not valid YAML: " + err.Error()}
		}
	}
	for key, name := range bind {
		if f := fs.Lookup(name); f != nil && f.Changed {
			if err := v.BindPFlag(key, f); err != nil {
				return Config{}, err
			}
		}
	}
	var c Config
	if err := v.UnmarshalExact(&c); err != nil {
		return Config{}, &ConfigError{"config", path, err.Error()}
	}
	// Files that belong with the configuration are found beside it.
	for _, f := range []*string{&c.Table.Calibration, &c.Vision.Deck, &c.MQTT.CAFile, &c.MQTT.CertFile, &c.MQTT.KeyFile, &c.Console.TLSCert, &c.Console.TLSKey} {
		if *f != "" && !filepath.IsAbs(*f) && path != "" {
			*f = filepath.Join(filepath.Dir(path), *f)
		}
	}
	exe := executable()
	for _, f := range []*string{&c.Vision.Model, &c.Vision.FastModel, &c.Vision.FeaturesModel, &c.Vision.SuitsModel} {
		*f = findData(*f, exe)
	}
	return c, c.Validate()
}

// setDefaults registers every leaf of a nested map as a default, so that
// each key also answers to its MONITOR_* environment variable.
func setDefaults(v *viper.Viper, prefix string, m map[string]any) {
	for k, val := range m {
		key := prefix + k
		if reflect.ValueOf(val).Kind() == reflect.Struct {
			sub := map[string]any{}
			if err := mapstructure.Decode(val, &sub); err == nil {
				setDefaults(v, key+".", sub)
				continue
			}
		}
		if sub, ok := val.(map[string]any); ok {
			setDefaults(v, key+".", sub)
			continue
		}
		v.SetDefault(key, val)
	}
}

// pipelineConfig is the pipeline's configuration for a table file and a
// frame rate.
func pipelineConfig(c Config, table *calibration.Table, fps float64) (pipeline.Config, error) {
	b7 := c.SideBets.Blazing7s.Meter
	meter, err := evaluator.NewMeter(b7.Reset, b7.Contribution, b7.Start)
	if err != nil {
		return pipeline.Config{}, err
	}
	opts := vision.DefaultOptions()
	opts.CountPips = c.Vision.CountPips
	return pipeline.Config{
		Table: table, Model: c.Vision.Model, FastModel: c.Vision.FastModel, RecheckBelow: c.Vision.RecheckBelow, Deck: c.Vision.Deck, FeaturesModel: c.Vision.FeaturesModel, SuitsModel: c.Vision.SuitsModel,
		Vision: opts, FPS: fps, Rules: c.Rules(), Meter: meter,
		Reconcile: alerts.Config{
			Table: c.Table.ID, Rules: c.Rules(), Tables: c.PayTables(),
			MinConfidence: c.Vision.MinConfidence,
			Limits: map[evaluator.Bet]alerts.Limit{
				evaluator.TwentyOnePlusThree: {Min: 1, Max: 0.1 * c.Table.MaxBet},
				evaluator.Blazing7s:          {Min: 1, Max: 1},
			},
		},
	}, nil
}

// loadVideoConfig loads the configuration of a command that reads a
// recorded video (replay, inspect): it needs the table file, and every
// file configured must be there before the work starts.
func loadVideoConfig(path string, fs *pflag.FlagSet, bind map[string]string) (Config, error) {
	cfg, err := loadConfig(path, fs, bind)
	if err != nil {
		return Config{}, err
	}
	if cfg.Table.Calibration == "" {
		return Config{}, &ConfigError{"table.calibration", `""`, "set it to the table file that says where the marks and zones are"}
	}
	return cfg, cfg.checkFiles()
}

// checkFiles reports a configured file that is not there or not usable,
// before any work starts.
func (c Config) checkFiles() error {
	if err := c.checkModels(); err != nil {
		return err
	}
	if c.Vision.Deck != "" {
		// A relative path was taken from the configuration file's folder.
		if _, err := classify.LoadDeck(c.Vision.Deck); err != nil {
			return &ConfigError{"vision.deck", c.Vision.Deck, fmt.Sprintf("cannot use the enrolled deck (monitor enroll --out writes it): %v", err)}
		}
	}
	return nil
}

// checkModels reports a configured card model that is not there.
func (c Config) checkModels() error {
	files := []struct{ field, path, what string }{
		{"vision.model", c.Vision.Model, "the card model"},
		{"vision.fast_model", c.Vision.FastModel, `the fast card model (set it to "" to read every crop with vision.model)`},
	}
	if c.Vision.Deck != "" {
		files = append(files, struct{ field, path, what string }{"vision.features_model", c.Vision.FeaturesModel, "the features model the enrolled deck (vision.deck) is compared by"})
	}
	if c.Vision.CountPips {
		files = append(files, struct{ field, path, what string }{"vision.suits_model", c.Vision.SuitsModel, `the pip suit model (set it to "" to read no pip's suit)`})
	}
	for _, f := range files {
		if f.path == "" {
			continue // Validate has refused an empty vision.model
		}
		if _, err := os.Stat(f.path); err != nil {
			wd, _ := os.Getwd()
			return &ConfigError{f.field, f.path, fmt.Sprintf("cannot read %s; a relative path is taken from the folder the monitor runs in, %s, then from the installed models' folder beside the binary's (../share/bjmonitor): %v", f.what, wd, err)}
		}
	}
	return nil
}

package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestExampleConfigIsTheDefault(t *testing.T) {
	got, err := loadConfig(filepath.Join("..", "..", "config.example.yaml"), nil, nil)
	if err != nil {
		t.Fatalf("config.example.yaml: %v", err)
	}
	if want := DefaultConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("config.example.yaml = %+v\nwant the defaults %+v", got, want)
	}
}

func TestDefaultConfigValid(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

func writeConfig(tb testing.TB, text string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

func TestConfigLayers(t *testing.T) {
	path := writeConfig(t, "table:\n  decks: 8\n  hit_soft_17: false\nside_bets:\n  twenty_one_plus_three:\n    paytable: xtreme\n")
	c, err := loadConfig(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Table.Decks != 8 || c.Table.HitSoft17 || c.PayTables().TwentyOnePlusThree.Name != "xtreme" {
		t.Errorf("file values not applied: %+v", c)
	}
	if c.Table.Variant != "freebet" {
		t.Errorf("unset key lost its default: variant %q", c.Table.Variant)
	}

	t.Setenv("MONITOR_TABLE_DECKS", "2")
	t.Setenv("MONITOR_SIDE_BETS_BLAZING7S_METER_RESET", "2500")
	c, err = loadConfig(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Table.Decks != 2 || c.SideBets.Blazing7s.Meter.Reset != 2500 {
		t.Errorf("environment did not win over the file: decks %d, reset %v", c.Table.Decks, c.SideBets.Blazing7s.Meter.Reset)
	}

	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Int("decks", 0, "")
	if err := fs.Parse([]string{"--decks", "4"}); err != nil {
		t.Fatal(err)
	}
	c, err = loadConfig(path, fs, map[string]string{"table.decks": "decks"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Table.Decks != 4 {
		t.Errorf("flag did not win over the environment: decks %d", c.Table.Decks)
	}
}

func TestConfigPotOfGoldFromEnvironment(t *testing.T) {
	t.Setenv("MONITOR_SIDE_BETS_POT_OF_GOLD_PAYS", "2,10,25")
	c, err := loadConfig("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.SideBets.PotOfGold.Pays; !reflect.DeepEqual(got, []float64{2, 10, 25}) {
		t.Errorf("pays = %v", got)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		field string
		value string
	}{
		{"decks out of range", "table:\n  decks: 12\n", "table.decks", "12"},
		{"decks not a number", "table:\n  decks: six\n", "config", "decks"},
		{"unknown variant", "table:\n  variant: spanish21\n", "table.variant", "spanish21"},
		{"unknown 21+3 table", "side_bets:\n  twenty_one_plus_three:\n    paytable: deluxe\n", "side_bets.twenty_one_plus_three.paytable", "deluxe"},
		{"negative custom flush", "side_bets:\n  twenty_one_plus_three:\n    paytable: custom\n    flush: -5\n", "side_bets.twenty_one_plus_three.flush", "-5"},
		{"award over the meter", "side_bets:\n  blazing7s:\n    same_suit: 2\n", "side_bets.blazing7s.same_suit", "2"},
		{"odds neither to nor for", "side_bets:\n  blazing7s:\n    odds: from\n", "side_bets.blazing7s.odds", "from"},
		{"reset under $1,000", "side_bets:\n  blazing7s:\n    meter:\n      reset: 500\n", "side_bets.blazing7s.meter.reset", "500"},
		{"empty pot of gold", "side_bets:\n  pot_of_gold:\n    pays: []\n", "side_bets.pot_of_gold.pays", "[]"},
		{"negative push 22", "side_bets:\n  push22:\n    pays: -11\n", "side_bets.push22.pays", "-11"},
		{"recheck above 1", "vision:\n  recheck_below: 1.5\n", "vision.recheck_below", "1.5"},
		{"misspelt key", "table:\n  deks: 6\n", "config", "deks"},
		{"not YAML", "table: [decks: 6\n", "--config", "YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadConfig(writeConfig(t, tt.yaml), nil, nil)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("loadConfig = %v, want a ConfigError", err)
			}
			if ce.Field != tt.field || !strings.Contains(err.Error(), tt.value) {
				t.Errorf("error %q names field %q, want %q and value %q", err, ce.Field, tt.field, tt.value)
			}
		})
	}
	_, err := loadConfig(filepath.Join(t.TempDir(), "missing.yaml"), nil, nil)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "--config" {
		t.Errorf("missing file: %v, want a ConfigError on --config", err)
	}
}

func FuzzLoadConfig(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed))
	f.Add("table:\n  decks: 8\n")
	f.Add("side_bets:\n  pot_of_gold:\n    pays: [1, 2, x]\n")
	f.Add(": : :\n\t-")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := loadConfig(p, nil, nil)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("loadConfig error %v is no ConfigError", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("loadConfig returned a config that does not validate: %v", err)
		}
	})
}

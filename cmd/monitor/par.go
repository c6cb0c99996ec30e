package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"bjmonitor/evaluator"
	"bjmonitor/game"
	"bjmonitor/par"
)

// parUsage is the synopsis of monitor par; --help lists the flags under it.
const parUsage = "monitor par [--decks N] [--config FILE] [--json] [--rounds N] [--seed N]"

// runPar prints the PAR sheet: with a config, of its pay tables; without
// one, of every built-in pay table.
func (m *Main) runPar(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("par", pflag.ContinueOnError)
	configPath := fs.String("config", "", "configuration file (YAML)")
	fs.Int("decks", 0, "decks in the shoe (default: table.decks, 6)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	rounds := fs.Int("rounds", 2_000_000, "rounds to simulate for Pot of Gold")
	seed := fs.Uint64("seed", 1, "seed of the Pot of Gold simulation")
	if err := m.parseFlags(fs, parUsage, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(m.Stderr, "monitor par: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if *rounds < 1 {
		return &ConfigError{"--rounds", *rounds, "want at least 1"}
	}
	cfg, err := loadConfig(*configPath, fs, map[string]string{"table.decks": "decks"})
	if err != nil {
		return err
	}
	rules := cfg.Rules()

	var sheet par.Sheet
	sheet.Decks = rules.Decks
	b7reset := cfg.SideBets.Blazing7s.Meter.Reset
	add := func(b par.Bet) { sheet.Bets = append(sheet.Bets, b) }
	var pog evaluator.PotOfGoldTable
	if *configPath == "" {
		// Every built-in table, and Push 22 under both soft-17 rules.
		add(par.TwentyOnePlusThree(rules.Decks, evaluator.Classic21Plus3))
		add(par.TwentyOnePlusThree(rules.Decks, evaluator.Xtreme21Plus3))
		add(par.Blazing7s(rules.Decks, evaluator.DefaultBlazing7s, rules.HoleCard, b7reset))
		add(par.Push22(rules.Decks, evaluator.DefaultPush22, true))
		add(par.Push22(rules.Decks, evaluator.DefaultPush22, false))
		pog = evaluator.DefaultPotOfGold
	} else {
		t := cfg.PayTables()
		add(par.TwentyOnePlusThree(rules.Decks, t.TwentyOnePlusThree))
		add(par.Blazing7s(rules.Decks, t.Blazing7s, rules.HoleCard, b7reset))
		if rules.Variant == game.FreeBet {
			add(par.Push22(rules.Decks, t.Push22, rules.HitSoft17))
			pog = t.PotOfGold
		}
	}
	if pog.Pays != nil {
		sim := par.Simulation{Rules: rules, Rounds: *rounds, Seed: *seed}
		var bar *progress
		if m.Terminal {
			bar = newProgress(m.Stderr, "Pot of Gold simulation", "rounds")
			sim.Progress = bar.Update
		}
		b, err := par.PotOfGold(ctx, sim, pog)
		bar.Done()
		if err != nil {
			return fmt.Errorf("pot of gold simulation: %w", err)
		}
		add(b)
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sheet)
	}
	return writeSheet(m.Stdout, sheet)
}

// writeSheet prints the sheet as tables a person reads.
func writeSheet(w io.Writer, s par.Sheet) error {
	var b strings.Builder
	fmt.Fprintf(&b, "PAR sheet, %d decks\n", s.Decks)
	for _, bet := range s.Bets {
		fmt.Fprintf(&b, "\n%s, %s pay table", bet.Bet, bet.Paytable)
		if bet.Rule != "" {
			fmt.Fprintf(&b, ", %s", bet.Rule)
		}
		fmt.Fprintf(&b, " (%s", bet.Method)
		if bet.Method == "simulation" {
			fmt.Fprintf(&b, " of %d rounds, seed %d", bet.Rounds, bet.Seed)
		}
		if bet.Meter > 0 {
			fmt.Fprintf(&b, ", meter at $%.2f", bet.Meter)
		}
		b.WriteString(")\n")
		fmt.Fprintf(&b, "  %-26s %12s %10s %10s\n", "outcome", "probability", "pays", "return")
		for _, o := range bet.Outcomes {
			fmt.Fprintf(&b, "  %-26s %12.8f %10.2f %10.6f\n", o.Name, o.Probability, o.Pays, o.Probability*o.Pays)
		}
		fmt.Fprintf(&b, "  house edge %.4f%%", bet.HouseEdge*100)
		if bet.StdError > 0 {
			fmt.Fprintf(&b, " ± %.4f%% (one standard error)", bet.StdError*100)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

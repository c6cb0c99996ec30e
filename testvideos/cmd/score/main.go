// Command score compares the results of replays with the ground truth of
// synthetic clips: rounds rebuilt exactly, injected dealer errors caught,
// false alerts. It prints each clip's figures and the totals, and exits 1
// when the totals fall below the bars of DESIGN.md: 99% of rounds rebuilt
// exactly, every injected error caught, at most one false alert per 1,000
// rounds. scripts/accuracy runs it over fresh clips of the decks the model
// never saw.
//
//	go run ./testvideos/cmd/score A.truth.json A.results.jsonl [B.truth.json B.results.jsonl ...]
package main

import (
	"flag"
	"fmt"
	"os"

	"bjmonitor/testvideos/clip"
)

func main() {
	minExact := flag.Float64("min-exact", 0.99, "share of rounds that must be rebuilt exactly")
	falsePer := flag.Float64("max-false-per-1000", 1, "false alerts allowed per 1,000 rounds")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || len(args)%2 != 0 {
		fmt.Fprintln(os.Stderr, "usage: score [--min-exact 0.99] CLIP.truth.json results.jsonl [...]")
		os.Exit(2)
	}
	var total clip.Score
	for i := 0; i < len(args); i += 2 {
		s, name, err := score(args[i], args[i+1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "score:", err)
			os.Exit(1)
		}
		for _, m := range s.Mismatched {
			fmt.Println("not exact:", m)
		}
		for _, m := range s.Missed {
			fmt.Println("missed:", m)
		}
		for _, m := range s.False {
			fmt.Println("false alert:", m)
		}
		fmt.Printf("%s: %v\n", name, s)
		total.Add(s)
	}
	fmt.Printf("total: %v\n", total)
	exact := float64(total.Exact) / float64(max(total.Rounds, 1))
	allowed := *falsePer * float64(total.Rounds) / 1000
	if exact < *minExact || total.Caught < total.Injected || float64(total.FalseAlerts) > allowed {
		fmt.Printf("below the bar: %.1f%% of rounds exact (want %.1f%%), %d of %d errors caught (want all), %d false alerts (at most %.2f for %d rounds)\n",
			100*exact, 100**minExact, total.Caught, total.Injected, total.FalseAlerts, allowed, total.Rounds)
		os.Exit(1)
	}
}

func score(truthPath, resultsPath string) (clip.Score, string, error) {
	truth, err := clip.ReadTruth(truthPath)
	if err != nil {
		return clip.Score{}, "", err
	}
	f, err := os.Open(resultsPath)
	if err != nil {
		return clip.Score{}, "", err
	}
	defer f.Close()
	s, err := clip.ScoreResults(truth, f)
	return s, truth.Clip, err
}

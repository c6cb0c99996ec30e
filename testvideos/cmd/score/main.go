// Command score compares the results of a replay with the ground truth of
// a synthetic clip: rounds rebuilt exactly, injected dealer errors caught,
// false alerts. scripts/accuracy runs it over fresh clips of the decks the
// model never saw.
//
//	go run ./testvideos/cmd/score CLIP.truth.json results.jsonl
package main

import (
	"fmt"
	"os"

	"bjmonitor/testvideos/clip"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: score CLIP.truth.json results.jsonl")
		os.Exit(2)
	}
	truth, err := clip.ReadTruth(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "score:", err)
		os.Exit(1)
	}
	f, err := os.Open(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "score:", err)
		os.Exit(1)
	}
	defer f.Close()
	s, err := clip.ScoreResults(truth, f)
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
	fmt.Printf("%s: %v\n", truth.Clip, s)
}

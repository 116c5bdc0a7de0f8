// Command split writes the 80/20 training and held-out split of a CSV
// file that `kpls-lab scale` uses for protein (scale.WriteSplit, seed
// scale.SplitSeed), so that the peers in lab/peer/boost.py are scored on
// the rows kpls is:
//
//	go run ./lab/peer/split --from ../shared/data/protein.csv --train protein-train.csv --test protein-test.csv
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kpls-go/kpls/lab/scale"
)

func main() {
	from := flag.String("from", "", "the CSV `file` to split, header first")
	train := flag.String("train", "", "where the training rows go")
	test := flag.String("test", "", "where the held-out rows go")
	flag.Parse()
	if *from == "" || *train == "" || *test == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := scale.WriteSplit(*from, *train, *test, scale.HeldoutTrain, scale.SplitSeed); err != nil {
		fmt.Fprintln(os.Stderr, "split:", err)
		os.Exit(1)
	}
}

package panel

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// splitSizes returns the test and training sizes for n rows.
func splitSizes(n int, testFrac float64, maxTrain int) (nTest, nTrain int) {
	nTest = int(math.Round(testFrac * float64(n)))
	nTrain = min(maxTrain, n-nTest)
	return nTest, nTrain
}

// makeSplit draws one split of n rows: a permutation's first nTest rows
// are the test set, the next nTrain the training set; both are returned
// sorted.
func makeSplit(n int, testFrac float64, maxTrain int, rng *rand.Rand) (train, test []int) {
	nTest, nTrain := splitSizes(n, testFrac, maxTrain)
	p := rng.Perm(n)
	test = slices.Clone(p[:nTest])
	train = slices.Clone(p[nTest : nTest+nTrain])
	slices.Sort(test)
	slices.Sort(train)
	return train, test
}

// seedOf is the seed for purpose ("data" or "split") of the named data set
// or source: the FNV-1a hash of purpose, name and base.
func seedOf(purpose, name string, base uint64) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", purpose, name, base)
	return h.Sum64()
}

// splitRNG is the generator of split k of the named data set.
func splitRNG(name string, base uint64, k int) *rand.Rand {
	return rand.New(rand.NewPCG(seedOf("split", name, base), uint64(k)))
}

// defaultSplits is the number of splits of a data set of n rows without
// --splits: small data sets get more, because their held-out error varies
// more from split to split.
func defaultSplits(n int) int {
	if n < smallRows {
		return 5
	}
	return 3
}

// writeSplits writes DIR/NAME.splits/split-K.{train,test} for
// K = 0..splits−1 and returns the sizes.
func writeSplits(dir, name string, n, splits int, o options) (nTrain, nTest int, err error) {
	sd := filepath.Join(dir, name+".splits")
	if err := os.MkdirAll(sd, 0o755); err != nil {
		return 0, 0, err
	}
	for k := range splits {
		train, test := makeSplit(n, o.testFrac, o.maxTrain, splitRNG(name, o.seed, k))
		for _, f := range []struct {
			ext string
			idx []int
		}{{"train", train}, {"test", test}} {
			if err := writeIndices(filepath.Join(sd, fmt.Sprintf("split-%d.%s", k, f.ext)), f.idx); err != nil {
				return 0, 0, err
			}
		}
		nTrain, nTest = len(train), len(test)
	}
	return nTrain, nTest, nil
}

func writeIndices(path string, idx []int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, i := range idx {
		w.WriteString(strconv.Itoa(i))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Package panel writes the evaluation panel: data sets and train/test
// splits on which kpls's model selection (`kpls-lab eval`) is compared
// with scikit-learn's KernelRidge + GridSearchCV and Gaussian-process
// regression (lab/peer/krr.py), all on identical rows. It runs as
//
//	go run ./lab/cmd/kpls-lab panel gen --out DIR [--shared ../shared/data]
//	    [--splits 3] [--test-fraction 0.25] [--max-train 6000] [--seed 1]
//	    [--sets kin8nm,sinc]
//
// lab/panel/run.sh generates the panel, runs the peer and `kpls-lab eval`
// on it and prints the summary table (lab/panel/summarize.py); the peer's
// results on the default panel are in lab/panel/results. --sets writes
// only the named data sets (the others' files are not touched).
//
// # Data sets
//
// Every file is CSV with a header line and the target, named y, as the
// last column:
//
//	kin8nm.csv       8192×8   byte-for-byte copy of SHARED/kin8nm.csv
//	protein4000.csv  4000×9   random rows of SHARED/protein.csv, RMSD moved last as y
//	protein8000.csv  8000×9   likewise; protein4000's rows are a subset of these
//	friedman1.csv    2000×10  sim.Friedman1, noise sd 1
//	friedman2.csv    2000×4   sim.Friedman2, noise sd 125
//	friedman3.csv    2000×4   sim.Friedman3, noise sd 0.1
//	sinc.csv         2000×1   sim.Sinc (the paper's, as in kpls demo), noise sd 0.1
//
// The protein sub-samples keep the rows in file order and their values
// as written in protein.csv (fields are moved, not re-formatted); the
// simulated values are written with the shortest representation that
// reads back to the same float64.
//
// # Splits
//
// For each data set NAME, DIR/NAME.splits/split-K.train and split-K.test
// (K = 0, …, S−1) list 0-based data-row indices (the header is not a
// row), one per line, ascending. Each split draws a random permutation of
// the n rows: its first round(f·n) rows are the test set (f is
// --test-fraction) and the next min(--max-train, n − round(f·n)) the
// training set, so the training set is a random subset of the non-test
// rows and the two never overlap.
//
// # Seeds
//
// All randomness is math/rand/v2 PCG. The generator of a data set is
// seeded from the FNV-1a hash of its source name and --seed, the one of
// split K from the hash of the data set's name and --seed with stream K,
// so adding, removing or re-ordering data sets changes nothing else, and
// raising --splits only appends splits. (The two protein sub-samples share
// the source "protein", which is what makes them nested.)
//
// DIR/panel.json records the options, the seeds and each data set's n, d,
// n_train and n_test.
package panel

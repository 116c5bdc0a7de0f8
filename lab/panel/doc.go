// Package panel writes the evaluation panel: data sets and train/test
// splits on which kpls's model selection (`kpls-lab eval`) is compared
// with scikit-learn's KernelRidge + GridSearchCV and Gaussian-process
// regression (lab/peer/krr.py), all on identical rows. It runs as
//
//	go run ./lab/cmd/kpls-lab panel gen --out DIR [--shared ../shared/data]
//	    [--splits 0] [--test-fraction 0.25] [--max-train 6000] [--seed 1]
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
// and the small real data sets (issue #24), exported once from Debian's R
// data packages into lab/panel/data and compiled in, so gen needs no R:
//
//	boston.csv       506×13   MASS::Boston, median home value (social)
//	concrete.csv     1030×8   modeldata::concrete, compressive strength (materials)
//	biomass.csv      536×5    modeldata::biomass, heating value from C, H, O, N, S (chemical)
//	ozone.csv        330×9    earth::ozone1, daily maximum ozone in Los Angeles (atmospheric)
//	cox2.csv         462×255  caret::cox2, log10 IC50 from molecular descriptors (chemical)
//	cps1985.csv      534×16   AER::CPS1985, log wage, factors as 0/1 indicators (social)
//	carprices.csv    804×17   modeldata::car_prices, resale price (economic)
//	meats.csv        215×100  modeldata::meats, fat from NIR spectra (spectra)
//
// lab/panel/data/README.md says what was dropped or encoded, the packages'
// versions and licences, and the Rscript command (data/export.R) that wrote
// them; gen writes them byte for byte (cox2 is stored gzipped).
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
// rows and the two never overlap. S is --splits, or by default 5 for a
// data set under 2000 rows (all the real ones) and 3 for the others: the
// held-out error of a small set varies more from split to split, and
// lab/panel/summarize.py reports each set's median and worst split.
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
// n_train, n_test, number of splits and whether it is small (under 2000
// rows). The real data sets use no generator; their data_seed is recorded
// all the same.
package panel

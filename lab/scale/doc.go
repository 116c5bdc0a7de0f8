// Package scale runs the scale checks of the kpls command at realistic
// sizes, each in a child process of its own so that its wall time and peak
// resident memory are its alone, and writes the results table:
//
//	go run ./lab/cmd/kpls-lab scale --shared ../shared --out lab/scale/results
//
// Run it from the module root on a quiet machine: the runs take most of
// an hour and the timing check compares two of them. It builds
// ./cmd/kpls once into a temporary directory and runs
//
//	kin8nm  kpls select --data SHARED/data/kin8nm.csv --target y --widths 2,4.5,9 --components 30 --lanczos 30 --json --progress=off
//	protein the same with --data SHARED/data/protein.csv --target RMSD (n = 45,730)
//	100k    kpls fit --data F.csv --target y --components 20 --json --progress=off
//
// where F.csv is sim.Friedman1 with --n rows (default 100,000), 10
// features and noise sd 1, seed 1, written with the header x1..x10,y to
// the temporary directory, and the default selects of issue #23:
//
//	kin8nm-default  kpls select --data SHARED/data/kin8nm.csv --target y --json --progress=off
//	protein-default kpls select --data TRAIN --target RMSD --model M --json --progress=off
//	                kpls predict --model M --data TEST --json
//
// where TRAIN and TEST split protein's rows 80/20 by a permutation seeded
// with 1 (math/rand/v2's PCG), each row as written. --skip-protein leaves
// out both protein runs and --skip-100k the 100k run; --only NAMES runs
// those named (comma-separated) alone.
//
// Each run's standard output (the JSON document) and standard error go to
// OUT/NAME.json and OUT/NAME.stderr. Its wall time is measured around the
// child, its peak RSS is the child's ru_maxrss (KiB on Linux). From the
// JSON come n, the kernel matrix storage (kind, bytes, memory limit) and,
// for select, the best (kernel, width, m).
//
// OUT/results.md, also printed, records the date, the commit (marked
// "modified" when the work tree differs from it), GOMAXPROCS and `kpls
// version`, the table of runs and the checks:
//
//   - protein peak RSS ≤ 8 GiB;
//   - 100k peak RSS ≤ 8 GiB;
//   - protein time / kin8nm time ≤ (45730/8192)^2.1 = 37.01: the selection
//     may grow no faster than n^2.1 (the ns are the runs' own);
//   - protein-default: held-out RMSE ≤ 3.55 Å, the select's wall time
//     ≤ 10 minutes and its peak RSS ≤ 8 GiB (the predict run's time is
//     reported beside it).
//
// A check whose runs were left out is listed as not run. The exit status
// is 1 if a child fails (after printing the tail of its standard error) or
// a check fails, 2 for a usage error.
package scale

// Package screen measures the screened search (kpls.SelectOptions.ScreenRows)
// against the full one on seeded train/test splits of one data set: for
// every split, the default select with every grid point searched on all
// rows and the default select, screened on a sample, alternating in one
// process, with each one's wall time, passes, held-out RMSE and the
// members of its mean.
//
//	go run ./lab/cmd/kpls-lab screen --data ../shared/data/kin8nm.csv --splits 5
//
// Split s (1..--splits) trains on the first --train fraction of a
// permutation of the rows seeded with (s, 99) (math/rand/v2's PCG) and
// tests on the rest. The last lines give the medians over the splits of
// the time ratio and of the RMSE ratio (default / baseline), and the
// worst RMSE ratio. --vs isotropic makes the baseline the screened select
// with every feature weighed alike (SelectOptions.Isotropic), which
// measures the weights the default learns on the screen's sample:
//
//	go run ./lab/cmd/kpls-lab screen --data ../shared/data/kin8nm.csv --splits 5 --vs isotropic
//
// The results of issue #46 are in docs/scale.md, "Screening the grid on
// a sample" and "Feature weights learned on the screen's sample, shipped".
package screen

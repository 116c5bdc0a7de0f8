//go:build !race

package kpls

// raceEnabled reports whether the race detector is on: the slowest oracle
// comparisons (cubic exact DoF at n = 1000) run only without it, where
// they take seconds instead of minutes; `go test ./...` runs them.
const raceEnabled = false

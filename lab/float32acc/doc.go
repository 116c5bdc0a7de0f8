// Package float32acc measures what float32 storage of the kernel matrix
// does to a fit, against the dense float64 fit of the same data: the
// largest differences over m in RSS (relative to the total sum of
// squares), DoF and held-out predictions (relative), whether the float32
// fit stopped early, and what automatic storage does with the same
// memory (a limit that excludes dense): keep float32, or refit on hybrid
// storage where the float32 fit stopped early.
//
//	go run ./lab/cmd/kpls-lab float32acc                  # kin8nm, widths 0.5 … 16
//	go run ./lab/cmd/kpls-lab float32acc --components 30 --lanczos 30
//
// The numbers are in docs/scale.md.
package float32acc

// Package paper reruns the experiments behind the figures of Krämer,
// Sugiyama and Braun, "Lanczos Approximations for the Speedup of Kernel
// Partial Least Squares Regression" (AISTATS 2009): it draws the data
// (internal/sim, internal/demodata), fits and selects with package kpls, and hands
// the results to package plots, which only draws. `kpls-lab plot` runs
// Figures; the images in the repository's docs/ directory come from it:
//
//	go run ./lab/cmd/kpls-lab plot --out docs
//	KPLS_WRITE_DOCS=1 go test ./lab/paper -run TestWriteDocs
//
// The seeds are fixed (SeedFigure1, SeedFigure3, SeedKin8nm): equal seeds,
// equal images.
package paper

// Package demodata holds the real data of `kpls demo` and the experiments:
// the kin8nm benchmark (8192 rows, 8 features), embedded in the binary
// (gzip-compressed, kin8nm.csv.gz), and a reader for the protein set
// (45,730 rows, 9 features), which is too large to embed and is read from a
// path (the shared data directory's protein.csv) by the benchmarks. The
// simulated data sets (the paper's sinc among them) are in internal/sim.
// Both sit under internal/, below the library, so that the command's demo
// draws its data without importing an experiment (internal/layers_test.go).
//
// kin8nm comes from the DELVE "kin" family (8 joint angles of a simulated
// robot arm → distance of the end effector; non-linear, medium noise), the
// data set of the paper's runtime comparison, as distributed with the UCI
// regression benchmarks.
//
// protein is the UCI "Physicochemical Properties of Protein Tertiary
// Structure" set: nine physicochemical features F1..F9 → RMSD, the target,
// which is the file's first column. Protein returns the features
// standardised (mean 0, standard deviation 1 with divisor n−1), the scale
// on which the benchmarks build their kernel matrices.
package demodata

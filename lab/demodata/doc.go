// Package demodata holds the real data of `kpls demo` and the experiments:
// the kin8nm benchmark (8192 rows, 8 features), embedded in the binary.
// The simulated data sets (the paper's sinc among them) are in lab/sim.
//
// kin8nm comes from the DELVE "kin" family (8 joint angles of a simulated
// robot arm → distance of the end effector; non-linear, medium noise), the
// data set of the paper's runtime comparison, as distributed with the UCI
// regression benchmarks.
package demodata

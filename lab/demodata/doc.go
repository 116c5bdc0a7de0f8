// Package demodata holds the built-in data of `kpls demo`: the kin8nm
// benchmark (8192 rows, 8 features), embedded in the binary, and the
// paper's sinc simulation, generated deterministically from a seed.
//
// kin8nm comes from the DELVE "kin" family (8 joint angles of a simulated
// robot arm → distance of the end effector; non-linear, medium noise), the
// data set of the paper's runtime comparison, as distributed with the UCI
// regression benchmarks. The sinc simulation is x ~ U(−π, π),
// y = sin(x)/x + N(0, 0.1²).
package demodata

// Package internal holds no code of its own: its directories are the
// ground floor that package kpls and package blas stand on, kernels and
// helpers without knowledge of the library above them (simd: vectorised
// kernels; gram: kernel-matrix construction).
//
// The floors of the module, imports pointing only down:
//
//	cmd/kpls, examples/, bench/     commands, examples and benchmarks
//	lab/                            experiments: test beds, the paper's figures, simulated and demo data
//	plots/                          drawing only: takes data, computes none
//	kpls/, blas/                    the library and its BLAS seam
//	internal/                       kernels the library stands on
//
// layers_test.go checks the rules that keep it so: nothing under an
// internal/ directory imports kpls or anything above it, plots imports no
// experiment, the library imports none of lab, plots or the commands, and
// lab imports no command.
package internal

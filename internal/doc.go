// Package internal holds no code of its own: its directories are the
// ground floor that package kpls and package blas stand on, kernels and
// helpers without knowledge of the library above them (simd: vectorised
// kernels; gram: kernel-matrix construction; dataset: the CSV reader of
// the commands; demodata and sim: the real and simulated data of
// `kpls demo` and the experiments). What the two commands share drives the
// library, so it is not here but in cmd/cli, a floor of its own above it.
//
// The floors of the module, imports pointing only down:
//
//	lab/cmd/kpls-lab,
//	examples/, bench/               the research command, examples and benchmarks
//	lab/                            experiments: test beds, the paper's figures, the panel and scale studies
//	cmd/kpls                        the command: the library and what the commands share, no experiment
//	cmd/cli/                        the commands' conventions, shared flags, progress display
//	plots/                          drawing only: takes data, computes none
//	kpls/, blas/                    the library and its BLAS seam
//	internal/                       kernels the library stands on, the CSV reader, demo and simulated data
//
// layers_test.go checks the rules that keep it so: nothing under an
// internal/ directory imports kpls or anything above it, cmd/cli imports
// no experiment or command, plots imports no experiment, the library
// imports none of cmd/, lab or plots, the command imports no experiment
// and of cmd/ only cmd/cli, and lab imports nothing under cmd/ but
// cmd/cli.
package internal

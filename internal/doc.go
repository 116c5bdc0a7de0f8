// Package internal holds no code of its own: its directories are the
// ground floor that package kpls and package blas stand on, kernels and
// helpers without knowledge of the library above them (simd: vectorised
// kernels; gram: kernel-matrix construction; dataset: the CSV reader of
// the commands; demodata and sim: the real and simulated data of
// `kpls demo` and the experiments), and, in internal/cli, what the two
// commands share. That code drives the library, so it is a floor of its
// own above it; it lives under internal/ only because Go lets cmd/kpls and
// lab/cmd/kpls-lab both import it from there and nothing outside the
// module.
//
// The floors of the module, imports pointing only down:
//
//	lab/cmd/kpls-lab,
//	examples/, bench/               the research command, examples and benchmarks
//	lab/                            experiments: test beds, the paper's figures, the panel and scale studies
//	cmd/kpls                        the command: the library and what the commands share, no experiment
//	internal/cli/                   the commands' conventions, shared flags, progress display
//	plots/                          drawing only: takes data, computes none
//	kpls/, blas/                    the library and its BLAS seam
//	internal/                       kernels the library stands on, the CSV reader, demo and simulated data
//
// layers_test.go checks the rules that keep it so: nothing under an
// internal/ directory but internal/cli imports kpls or anything above it,
// internal/cli imports no experiment or command, plots imports no
// experiment, the library imports none of internal/cli, lab, plots or the
// commands, the command imports no experiment, and lab imports no command.
package internal

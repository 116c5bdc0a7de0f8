// Package mpi is the few calls of the MPI C API that spreading a kernel
// operator over processes needs (init, rank and size, a deterministic
// all-reduce, a broadcast, abort and finalize), through cgo. It is built
// only with the mpi build tag, against Open MPI (pkg-config ompi-c;
// scripts/mpi-build.sh installs Debian's when it is missing); without the
// tag the package is empty and nothing needs cgo.
//
// Every rank runs the whole command. Rank 0 reads the inputs and
// broadcasts them, every rank runs the same fit, and only the kernel
// operator's products (kernelop.NewDistributed) are shared: each rank
// computes its share of the kernel matrix's tiles and the ranks sum their
// partial products with AllreduceSum, whose result is the same bits on
// every rank, so the ranks' fits never diverge.
package mpi

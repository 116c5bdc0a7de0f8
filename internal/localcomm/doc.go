// Package localcomm runs the ranks of a distributed kernel operator as
// goroutines of one process: the communicator the tests of
// kernelop.NewDistributed and of fits over several ranks use, where MPI
// (internal/mpi) is not built or not wanted.
package localcomm

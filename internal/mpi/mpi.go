//go:build mpi

package mpi

/*
#cgo pkg-config: ompi-c
#include <stdlib.h>
#include <mpi.h>

static MPI_Comm world(void) { return MPI_COMM_WORLD; }
static MPI_Datatype f64(void) { return MPI_DOUBLE; }
static MPI_Datatype i64(void) { return MPI_INT64_T; }
static MPI_Datatype byte_(void) { return MPI_BYTE; }
static MPI_Op sum(void) { return MPI_SUM; }
static int errorsReturn(void) { return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); }
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// World is MPI_COMM_WORLD after Init. It implements kernelop.Comm. Its
// methods must be called in the same order on every rank; they hold a lock
// so that two goroutines of one rank never interleave their calls.
type World struct {
	mu          sync.Mutex
	rank, size  int
	counts      []C.int // AllreduceSum's split of a buffer, by rank
	displs      []C.int
	scratch     []float64
	BytesSent   int64 // what AllreduceSum and Bcast sent from this rank, for the benchmarks
	Collectives int64
}

// Init initialises MPI (serialised threads: Go may call from any OS thread,
// never two at once) and returns the world communicator. Errors are
// returned, not fatal: MPI_ERRORS_RETURN.
func Init() (*World, error) {
	var provided C.int
	if rc := C.MPI_Init_thread(nil, nil, C.MPI_THREAD_SERIALIZED, &provided); rc != C.MPI_SUCCESS {
		return nil, fmt.Errorf("mpi: MPI_Init_thread failed (code %d)", int(rc))
	}
	if provided < C.MPI_THREAD_SERIALIZED {
		return nil, fmt.Errorf("mpi: the MPI library gives thread level %d, below MPI_THREAD_SERIALIZED", int(provided))
	}
	if err := check("MPI_Comm_set_errhandler", C.errorsReturn()); err != nil {
		return nil, err
	}
	var rank, size C.int
	if err := check("MPI_Comm_rank", C.MPI_Comm_rank(C.world(), &rank)); err != nil {
		return nil, err
	}
	if err := check("MPI_Comm_size", C.MPI_Comm_size(C.world(), &size)); err != nil {
		return nil, err
	}
	return &World{rank: int(rank), size: int(size)}, nil
}

func (w *World) Rank() int { return w.rank }
func (w *World) Size() int { return w.size }

// AllreduceSum sums buf over the ranks, in place, as a reduce-scatter
// (rank p sums segment p of every rank's buf, in one place, so in one
// order) followed by an all-gather of the segments: the bits are the same
// on every rank whatever algorithm the library picks, and each rank sends
// and receives about 2·8·len(buf) bytes, as a ring all-reduce does.
func (w *World) AllreduceSum(buf []float64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(buf)
	if n == 0 || w.size == 1 {
		return nil
	}
	w.split(n)
	seg := w.scratch[:w.counts[w.rank]]
	if len(seg) == 0 {
		seg = w.scratch[:1] // a valid pointer for an empty segment
	}
	if err := check("MPI_Reduce_scatter", C.MPI_Reduce_scatter(unsafe.Pointer(&buf[0]), unsafe.Pointer(&seg[0]),
		&w.counts[0], C.f64(), C.sum(), C.world())); err != nil {
		return err
	}
	if err := check("MPI_Allgatherv", C.MPI_Allgatherv(unsafe.Pointer(&seg[0]), w.counts[w.rank], C.f64(),
		unsafe.Pointer(&buf[0]), &w.counts[0], &w.displs[0], C.f64(), C.world())); err != nil {
		return err
	}
	w.Collectives += 2
	w.BytesSent += 8 * int64(n-int(w.counts[w.rank])+int(w.counts[w.rank])*(w.size-1))
	return nil
}

// split sets counts and displs to n values split as evenly as may be.
func (w *World) split(n int) {
	if len(w.counts) != w.size {
		w.counts, w.displs = make([]C.int, w.size), make([]C.int, w.size)
	}
	off := 0
	for p := range w.size {
		c := n/w.size + btoi(p < n%w.size)
		w.counts[p], w.displs[p] = C.int(c), C.int(off)
		off += c
	}
	if cap(w.scratch) < n/w.size+1 {
		w.scratch = make([]float64, n/w.size+1)
	}
	w.scratch = w.scratch[:cap(w.scratch)]
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Bcast sends root's bytes to every rank and returns them (on root, b
// itself). A length of −1 from root carries its failure to the others:
// BcastError.
func (w *World) Bcast(b []byte, root int) ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := C.int64_t(len(b))
	if err := check("MPI_Bcast", C.MPI_Bcast(unsafe.Pointer(&n), 1, C.i64(), C.int(root), C.world())); err != nil {
		return nil, err
	}
	if w.rank != root {
		if n < 0 {
			return nil, errRootFailed
		}
		b = make([]byte, int(n))
	}
	for off := 0; off < len(b); { // MPI counts are C ints
		c := min(len(b)-off, 1<<30)
		if err := check("MPI_Bcast", C.MPI_Bcast(unsafe.Pointer(&b[off]), C.int(c), C.byte_(), C.int(root), C.world())); err != nil {
			return nil, err
		}
		off += c
	}
	if w.rank == root {
		w.BytesSent += int64(len(b)) * int64(w.size-1)
	}
	w.Collectives++
	return b, nil
}

// BcastError tells the other ranks that root could not produce what a
// Bcast would have sent; their Bcast returns an error then.
func (w *World) BcastError(root int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := C.int64_t(-1)
	C.MPI_Bcast(unsafe.Pointer(&n), 1, C.i64(), C.int(root), C.world())
}

// Abort ends every rank of the run with code.
func (w *World) Abort(code int) { C.MPI_Abort(C.world(), C.int(code)) }

// Finalize ends MPI on this rank; every rank calls it before it exits.
func (w *World) Finalize() error { return check("MPI_Finalize", C.MPI_Finalize()) }

func check(call string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	var buf [C.MPI_MAX_ERROR_STRING]C.char
	var l C.int
	C.MPI_Error_string(rc, &buf[0], &l)
	return fmt.Errorf("mpi: %s: %s", call, C.GoStringN(&buf[0], l))
}

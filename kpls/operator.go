package kpls

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// Storage names how a fit holds the centred kernel matrix K_c. Everything
// after building it (the fit, the DoF probes, the confidence bands) needs
// only products of K_c with thin blocks of vectors, so it need not be held
// in float64.
type Storage string

const (
	// StorageAuto (the zero value) picks StorageFeatures for the linear
	// kernel; for the others it picks by Resources.MemoryLimit: dense if 8n²
	// bytes fit, else float32 if 2n² bytes fit and the fit allows it (see
	// Resources.Storage), else hybrid, else matrix-free.
	StorageAuto Storage = ""
	// StorageDense holds K_c as n×n float64 (8n² bytes), with products
	// through the BLAS backend: the fastest per product.
	StorageDense Storage = "dense"
	// StorageFloat32 holds K_c's upper triangle in float32 (2n² bytes),
	// centred in float64 before rounding; products accumulate in float64.
	StorageFloat32 Storage = "float32"
	// StorageHybrid caches as much of K_c as MemoryLimit allows and
	// recomputes the rest in every product.
	StorageHybrid Storage = "hybrid"
	// StorageMatrixFree holds nothing n×n: every product recomputes K_c
	// from the inputs (n²/2 kernel evaluations per product).
	StorageMatrixFree Storage = "matrix-free"
	// StorageFeatures is for the linear kernel only: K = XXᵀ, so K_c =
	// X_cX_cᵀ for the column-centred inputs X_c, and holding those (8nd
	// bytes) gives every product in 4nd multiply-adds instead of n².
	// The same matrix as dense, rounded differently.
	StorageFeatures Storage = "features"
)

// ParseStorage parses a storage name; "auto" and "" mean StorageAuto.
func parseStorage(s string) (Storage, error) {
	switch v := Storage(strings.ToLower(s)); v {
	case "auto", StorageAuto:
		return StorageAuto, nil
	case StorageDense, StorageFloat32, StorageHybrid, StorageMatrixFree, StorageFeatures:
		return v, nil
	}
	return "", fmt.Errorf("%w: %q (want auto, dense, float32, hybrid, matrix-free or features)", ErrStorage, s)
}

// Memory returns the bytes the kernel matrix may take: MemoryLimit, or
// when it is zero a quarter of physical memory (2 GiB where it cannot be
// read), room for it next to the fit's n × components arrays, the inputs
// and everything else on the machine.
func (r Resources) Memory() int64 {
	if r.MemoryLimit > 0 {
		return r.MemoryLimit
	}
	return kernelop.DefaultLimit()
}

// Bytes returns the memory s needs for the kernel matrix of n rows;
// hybrid, matrix-free and features return 0 (hybrid uses what the limit
// gives it; features holds the n×d centred inputs, 8nd bytes).
func (s Storage) Bytes(n int) int64 {
	switch s {
	case StorageDense:
		return kernelop.DenseBytes(n)
	case StorageFloat32:
		return kernelop.Float32Bytes(n)
	}
	return 0
}

// storageFor returns the storage a fit of n rows uses and the memory limit
// behind the choice. Auto picks features for the linear kernel, whatever
// n: it is the same matrix in 8nd bytes with products in O(nd). Auto
// picks float32 only for fits without DoF or with
// the Lanczos DoF: the exact DoF differentiate the fit to the last digit,
// and the approximate DoF's probes need the converged Ritz pairs deflated,
// which float32's rounding keeps from being confirmed on fast-decaying
// spectra (their standard error grew 30-fold there; docs/scale.md).
func (o *config) storageFor(n int) (Storage, int64, error) {
	limit := o.MemoryLimit
	if limit == 0 {
		limit = kernelop.DefaultLimit()
	}
	s := o.Storage
	linear := mustBehave(o.Kernel).inputs() == inputLinear
	switch s {
	case StorageAuto:
		if linear {
			return StorageFeatures, limit, nil
		}
		return Storage(kernelop.Choose(n, limit, o.DoF == DoFNone || o.DoF == DoFLanczos)), limit, nil
	case StorageFeatures:
		if !linear {
			return "", 0, fmt.Errorf("%w: features storage is for the linear kernel only", ErrStorage)
		}
		return s, limit, nil
	case StorageDense, StorageFloat32:
		if need := s.Bytes(n); need > limit {
			return "", 0, fmt.Errorf("%w: n = %d needs %.1f GB for the %s kernel matrix, over the memory limit of %.1f GB (raise MemoryLimit, or use storage hybrid or matrix-free)",
				ErrTooLarge, n, float64(need)/1e9, s, float64(limit)/1e9)
		}
	}
	return s, limit, nil
}

// kernelBuffer is memory for one kernel matrix at a time, reused by
// Select from grid point to grid point and fold to fold so that nothing
// n×n is allocated per width. One buffer serves dense, float32 and hybrid
// storage: whichever the next operator needs. Its owner is the fitter
// whose operator lives in it: a fitter claims the buffer before it
// builds, and the previous users' operators are dropped then, so no
// operator outlives its memory. Fitters of other responses on the same
// kernel matrix share the operator (fitter.adopt) and are users too.
type kernelBuffer struct {
	b     []float64
	users []*fitter
}

// claim makes f the buffer's only user; the previous users lose their
// operator, whose memory the next build overwrites.
func (kb *kernelBuffer) claim(f *fitter) {
	for _, u := range kb.users {
		if u != f {
			u.op = nil
		}
	}
	kb.users = append(kb.users[:0], f)
}

// share adds f to the users of the operator in the buffer.
func (kb *kernelBuffer) share(f *fitter) { kb.users = append(kb.users, f) }

// holds reports whether f's operator lives in the buffer now.
func (kb *kernelBuffer) holds(f *fitter) bool {
	for _, u := range kb.users {
		if u == f {
			return true
		}
	}
	return false
}

func (kb *kernelBuffer) float64s(size int) []float64 {
	if len(kb.b) < size {
		if len(kb.b) >= 1<<27 {
			// Let a gigabyte-scale old buffer go, back to the OS, before
			// the new one is allocated: otherwise both stay resident.
			kb.b = nil
			debug.FreeOSMemory()
		}
		kb.b = make([]float64, size)
	}
	return kb.b[:size]
}

func (kb *kernelBuffer) float32s(size int) []float32 {
	b := kb.float64s((size + 1) / 2)
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), 2*len(b))[:size]
}

// kernelBuild is what building the centred kernel matrix needs.
type kernelBuild struct {
	kernel   Kernel
	x        []float64 // n×d standardised inputs, kept by storage that recomputes entries
	n, d     int
	storage  Storage
	limit    int64
	backend  blas.Float64
	buf      *kernelBuffer
	means    *kernelop.Stats // the column means of an earlier build over the same rows, or nil
	progress func(done, total int)
	comm     Comm // the ranks to spread the products over (config.Comm), or nil
}

// buildOperator builds K_c of the standardised inputs in the storage
// given, using the buffer's memory for dense, float32 and hybrid. Known
// column means (a rebuild: cross-validation's grown folds, the hybrid
// refit) save the first of the two construction passes of the tiled
// kinds.
func buildOperator(ctx context.Context, kb kernelBuild) (kernelop.Operator, error) {
	n, progress := kb.n, kb.progress
	kern := mustBehave(kb.kernel)
	rows := func() kernelop.Rows {
		r := kern.rows(kb.x, n, kb.d)
		if kb.means != nil {
			return kernelop.WithMeans(r, kb.means.ColMean, kb.means.Grand)
		}
		return r
	}
	var op kernelop.Operator
	var err error
	comm := kb.comm
	switch {
	case comm != nil && kb.storage != StorageFeatures:
		// Over several processes each rank holds its share of the
		// triangle's tiles within the limit (hybrid), or none of them.
		budget := kb.limit
		if kb.storage == StorageMatrixFree {
			budget = 0
		}
		op, err = kernelop.NewDistributed(ctx, rows(), budget, nil, comm, progress)
	case kb.storage == StorageDense:
		progress(0, 1)
		ld := kernelop.DenseStride(n)
		k := kb.buf.float64s(n * ld)
		if err := kern.matrix(ctx, k, ld, kb.x, n, kb.d); err != nil {
			return nil, err
		}
		st := kernelop.Stats{ColMean: make([]float64, n)}
		st.Grand, st.Trace, st.Frob2 = gram.CenterStats(k, ld, n, st.ColMean)
		op = kernelop.NewDense(k, ld, n, st, kb.backend)
		progress(1, 1)
	case kb.storage == StorageFloat32:
		op, err = kernelop.NewFloat32(ctx, rows(), kb.buf.float32s(n*(n+1)/2), progress)
	case kb.storage == StorageFeatures:
		op, err = kernelop.NewFeatures(ctx, kb.x, n, kb.d)
	case kb.storage == StorageHybrid:
		op, err = kernelop.NewHybrid(ctx, rows(), kb.limit, kb.buf.float64s(int(min(kb.limit/8, int64(n)*int64(n)))), progress)
	default:
		op, err = kernelop.NewMatrixFree(ctx, rows(), progress)
	}
	if err != nil {
		return nil, err
	}
	st := op.Stats()
	if !(st.Trace > 1e-12*float64(n)*math.Max(1, math.Abs(st.Grand))) {
		return nil, fmt.Errorf("%w (trace %.3g): every feature is constant, or the width is far too large", ErrDegenerate, st.Trace)
	}
	return op, nil
}

// crossRows computes blocks of any kernel through its cross-kernel
// routine, the one predictions use.
type crossRows struct {
	k    Kernel
	x    []float64
	n, d int
}

func (c crossRows) N() int { return c.n }

func (c crossRows) Rows(dst []float64, r0, r1 int) { c.Block(dst, r0, r1, 0, c.n) }

func (c crossRows) Block(dst []float64, r0, r1, c0, c1 int) {
	h, w := r1-r0, c1-c0
	if h == 0 || w == 0 {
		return
	}
	crossKernel(dst[:h*w], c.k, c.x[r0*c.d:r1*c.d], h, gram.NewPoints(c.x[c0*c.d:c1*c.d], w, c.d))
}

// operator returns the centred training kernel matrix as an operator: the
// fit's own, kept by Fit, or built once on the first request (a loaded
// model, or one Select returned) in the storage its options choose; a
// view made by At uses its base's.
func (m *Model) operator(ctx context.Context) (kernelop.Operator, error) {
	if m.base != nil {
		return m.base.operator(ctx)
	}
	m.opOnce.Do(func() {
		if m.op != nil {
			return
		}
		s, limit, err := m.opts.storageFor(m.n)
		if err != nil {
			m.opErr = err
			return
		}
		// A cancelled context must not poison the model for later calls.
		m.op, m.opErr = buildOperator(context.WithoutCancel(ctx), kernelBuild{
			kernel: m.opts.Kernel, x: m.x, n: m.n, d: m.d, storage: s, limit: limit,
			backend: m.opts.Backend, buf: new(kernelBuffer), progress: func(int, int) {}, comm: m.opts.Comm,
		})
		if m.opErr == nil && m.wt != nil {
			m.op, m.opErr = newWeightedOp(context.WithoutCancel(ctx), m.op, m.wt, kernelDiag(m.opts.Kernel, m.x, m.n, m.d))
		}
	})
	return m.op, m.opErr
}

// UnmarshalText sets s from a storage's name in any case ("auto" or ""
// is StorageAuto).
func (s *Storage) UnmarshalText(b []byte) error {
	v, err := parseStorage(string(b))
	if err == nil {
		*s = v
	}
	return err
}

package kpls

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"unsafe"

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
	// kernel; for the others it picks by Options.MemoryLimit: dense if 8n²
	// bytes fit, else float32 if 2n² bytes fit and the fit allows it (see
	// Options.Storage), else hybrid, else matrix-free.
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
func ParseStorage(s string) (Storage, error) {
	switch v := Storage(strings.ToLower(s)); v {
	case "auto", StorageAuto:
		return StorageAuto, nil
	case StorageDense, StorageFloat32, StorageHybrid, StorageMatrixFree, StorageFeatures:
		return v, nil
	}
	return "", fmt.Errorf("%w: %q (want auto, dense, float32, hybrid, matrix-free or features)", ErrStorage, s)
}

// DefaultMemoryLimit is the memory limit for the kernel matrix when
// Options.MemoryLimit is zero: a quarter of physical memory (2 GiB where it
// cannot be read), room for it next to the fit's n × components arrays,
// the inputs and everything else on the machine.
func DefaultMemoryLimit() int64 { return kernelop.DefaultLimit() }

// KernelBytes returns the memory a storage needs for the kernel matrix of
// n rows; hybrid, matrix-free and features return 0 (hybrid uses what the
// limit gives it; features holds the n×d centred inputs, 8nd bytes).
func KernelBytes(s Storage, n int) int64 {
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
func (o *Options) storageFor(n int) (Storage, int64, error) {
	limit := o.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit()
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
		if need := KernelBytes(s, n); need > limit {
			return "", 0, fmt.Errorf("%w: n = %d needs %.1f GB for the %s kernel matrix, over the memory limit of %.1f GB (raise MemoryLimit, or use storage hybrid or matrix-free)",
				ErrTooLarge, n, float64(need)/1e9, s, float64(limit)/1e9)
		}
	}
	return s, limit, nil
}

// kernelBuffer is memory for one kernel matrix at a time, reused by
// Select from grid point to grid point and fold to fold so that nothing
// n×n is allocated per width. One buffer serves dense, float32 and hybrid
// storage: whichever the next operator needs.
type kernelBuffer struct {
	b []float64
}

func (kb *kernelBuffer) float64s(size int) []float64 {
	if kb == nil {
		return make([]float64, size)
	}
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
	if kb == nil {
		return make([]float32, size)
	}
	b := kb.float64s((size + 1) / 2)
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), 2*len(b))[:size]
}

// buildOperator builds K_c of the standardised inputs xs (which the
// operator keeps, for storage that recomputes entries) in the storage the
// options choose, using buf's memory when not nil, and records its
// statistics in the model.
func (m *Model) buildOperator(ctx context.Context, xs []float64, buf *kernelBuffer) (kernelop.Operator, error) {
	return m.buildOn(ctx, xs, buf, false)
}

// rebuildOperator builds the model's kernel matrix again over its own
// training rows, after a first build recorded the column means: those are
// reused, which saves the first of the two construction passes (cross-
// validation rebuilds each fold's matrix whenever it grows the fits, and
// a float32 fit cut short is rebuilt on hybrid storage).
func (m *Model) rebuildOperator(ctx context.Context, buf *kernelBuffer) (kernelop.Operator, error) {
	return m.buildOn(ctx, m.x, buf, len(m.colMean) == m.n)
}

func (m *Model) buildOn(ctx context.Context, xs []float64, buf *kernelBuffer, knownMeans bool) (kernelop.Operator, error) {
	o := &m.opts
	n := m.n
	s, limit, err := o.storageFor(n)
	if err != nil {
		return nil, err
	}
	width := o.kernelWidth()
	progress := func(done, total int) { o.report("kernel", width, done, total) }
	rows := func() kernelop.Rows {
		if knownMeans {
			return kernelop.WithMeans(m.kernelRows(xs), m.colMean, m.grand)
		}
		return m.kernelRows(xs)
	}
	var op kernelop.Operator
	switch s {
	case StorageDense:
		progress(0, 1)
		k := buf.float64s(n * n)
		if err := kernelMatrix(ctx, k, o.Kernel, xs, n, m.d); err != nil {
			return nil, err
		}
		st := kernelop.Stats{ColMean: make([]float64, n)}
		st.Grand, st.Trace, st.Frob2 = gram.CenterStats(k, n, st.ColMean)
		op = kernelop.NewDense(k, n, st, o.Backend)
		progress(1, 1)
	case StorageFloat32:
		op, err = kernelop.NewFloat32(ctx, rows(), buf.float32s(n*(n+1)/2), progress)
	case StorageFeatures:
		op, err = kernelop.NewFeatures(ctx, xs, n, m.d)
	case StorageHybrid:
		op, err = kernelop.NewHybrid(ctx, rows(), limit, buf.float64s(int(min(limit/8, int64(n)*int64(n)))), progress)
	default:
		op, err = kernelop.NewMatrixFree(ctx, rows(), progress)
	}
	if err != nil {
		return nil, err
	}
	st := op.Stats()
	m.storage = s
	m.colMean, m.grand, m.trK, m.trK2 = st.ColMean, st.Grand, st.Trace, st.Frob2
	if !(m.trK > 1e-12*float64(n)*math.Max(1, math.Abs(m.grand))) {
		return nil, fmt.Errorf("%w (trace %.3g): every feature is constant, or the width is far too large", ErrDegenerate, m.trK)
	}
	return op, nil
}

// kernelRows returns the kernel's rows and blocks over the training rows
// xs, for storage that computes K tile by tile.
func (m *Model) kernelRows(xs []float64) kernelop.Blocks {
	return mustBehave(m.opts.Kernel).rows(xs, m.n, m.d)
}

// crossRows computes blocks of any kernel through its cross-kernel
// routine, the one predictions use.
type crossRows struct {
	k            Kernel
	x            []float64
	n, d         int
	unitDiagonal bool // k(x, x) = 1, set exactly as the dense matrix has it
}

func (c crossRows) N() int { return c.n }

func (c crossRows) Rows(dst []float64, r0, r1 int) { c.Block(dst, r0, r1, 0, c.n) }

func (c crossRows) Block(dst []float64, r0, r1, c0, c1 int) {
	h, w := r1-r0, c1-c0
	if h == 0 || w == 0 {
		return
	}
	crossKernel(dst[:h*w], c.k, c.x[r0*c.d:r1*c.d], h, c.x[c0*c.d:c1*c.d], w, c.d)
	if c.unitDiagonal {
		for i := max(r0, c0); i < min(r1, c1); i++ {
			dst[(i-r0)*w+i-c0] = 1
		}
	}
}

// operator returns the centred training kernel matrix as an operator: the
// fit's own, kept by Fit, or built once on the first request (a loaded
// model, or one Select returned) in the storage its options choose.
func (m *Model) operator(ctx context.Context) (kernelop.Operator, error) {
	m.opOnce.Do(func() {
		if m.op != nil {
			return
		}
		// A copy of the model's fields that buildOperator records, so
		// that concurrent readers of the model see no writes: the
		// statistics are the same numbers the fit recorded.
		b := &Model{opts: m.opts, n: m.n, d: m.d}
		b.opts.Progress = nil
		// A cancelled context must not poison the model for later calls.
		m.op, m.opErr = b.buildOperator(context.WithoutCancel(ctx), m.x, nil)
	})
	return m.op, m.opErr
}

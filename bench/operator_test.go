package bench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kpls-go/kpls/blas"
	"github.com/kpls-go/kpls/internal/demodata"
	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
	"github.com/kpls-go/kpls/internal/simd"
)

// operatorCase is one feasible kind × n of BenchmarkOperator. Only the
// combinations that fit next to other processes in 24 GiB are generated:
// dense (8n² bytes) only at 8192; float32 (2n(n+1) bytes, 4.2 GB at
// 45,730) and hybrid (budget = float32's bytes, so the two hold the same
// memory) up to 45,730; matrix-free at every n.
var operatorCases = []struct {
	kind kernelop.Kind
	ns   []int
}{
	{kernelop.KindDense, []int{8192}},
	{kernelop.KindFloat32, []int{8192, 45730}},
	{kernelop.KindMatrixFree, []int{8192, 45730, 100000}},
	{kernelop.KindHybrid, []int{8192, 45730}},
}

// operatorInputs returns the n×d inputs: the protein set's nine
// standardised features at n = 45,730 (synthetic if ../../shared/data is
// absent), Gaussian points with d = 10 otherwise.
func operatorInputs(b *testing.B, n int) (x []float64, d int) {
	if n == 45730 {
		if x, _, d, _, err := demodata.Protein(filepath.Join("..", "..", "shared", "data", "protein.csv")); err == nil {
			return x, d
		} else {
			b.Logf("protein.csv: %v; synthetic d = 9 instead", err)
		}
		return points(n, 9), 9
	}
	return points(n, 10), 10
}

// buildOperator builds kind over RBF rows of width d/2.
func buildOperator(b *testing.B, kind kernelop.Kind, x []float64, n, d int) kernelop.Operator {
	ctx := context.Background()
	width := float64(d) / 2
	rows := gram.NewRBFRows(x, n, d, width)
	var op kernelop.Operator
	var err error
	switch kind {
	case kernelop.KindDense:
		ld := kernelop.DenseStride(n) // as kpls builds it
		k := make([]float64, n*ld)
		if err := gram.RBF(ctx, k, ld, x, n, d, width); err != nil {
			b.Fatal(err)
		}
		mean := make([]float64, n)
		g, tr, f2 := gram.CenterStats(k, ld, n, mean)
		op = kernelop.NewDense(k, ld, n, kernelop.Stats{ColMean: mean, Grand: g, Trace: tr, Frob2: f2}, blas.Default())
	case kernelop.KindFloat32:
		op, err = kernelop.NewFloat32(ctx, rows, nil, nil)
	case kernelop.KindMatrixFree:
		op, err = kernelop.NewMatrixFree(ctx, rows, nil)
	case kernelop.KindHybrid:
		op, err = kernelop.NewHybrid(ctx, rows, kernelop.Float32Bytes(n), nil, nil)
	}
	if err != nil {
		b.Fatal(err)
	}
	return op
}

// BenchmarkOperator is one Mul pass (k = 1 vector) of each kind of
// operator over the centred RBF kernel matrix (width d/2); construction is
// not timed. Metrics: GB/s of the stored matrix read per pass for dense
// (one triangle, Dsymv) and float32 (the packed triangle), with
// frac_of_bw against the parallel read bandwidth; for matrix-free and
// hybrid Gexp/s, the kernel evaluations actually computed per pass over
// the time, with frac_of_limit against the exp throughput of GOMAXPROCS
// goroutines on data in L1 (operatorLimits), and pass/n²exp and
// pass/half_n²exp: the pass time over the time the limit needs for n² and
// for n²/2 exps (the work without and with symmetry).
func BenchmarkOperator(b *testing.B) {
	lim := operatorLimits(b)
	for _, c := range operatorCases {
		for _, n := range c.ns {
			b.Run(fmt.Sprintf("kind=%s/n=%d", c.kind, n), func(b *testing.B) {
				x, d := operatorInputs(b, n)
				op := buildOperator(b, c.kind, x, n, d)
				defer func() { op = nil; runtime.GC(); debug.FreeOSMemory() }()
				v, dst := randVec(n), make([]float64, n)
				ctx := context.Background()
				b.ResetTimer()
				cpu0 := cpuSeconds()
				for b.Loop() {
					if err := op.Mul(ctx, dst, v, 1); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				cpu := (cpuSeconds() - cpu0) / float64(b.N)
				switch c.kind {
				case kernelop.KindDense, kernelop.KindFloat32:
					bytes := 8 * float64(n) * float64(n+1) / 2
					if c.kind == kernelop.KindFloat32 {
						bytes /= 2
					}
					b.ReportMetric(bytes/sec/1e9, "GB/s")
					b.ReportMetric(bytes/sec/lim.bandwidth, "frac_of_bw")
				default:
					evals := float64(op.(interface{ Evaluations() int64 }).Evaluations())
					n2 := float64(n) * float64(n)
					b.ReportMetric(evals/sec/1e9, "Gexp/s")
					b.ReportMetric(evals/sec/lim.exp, "frac_of_limit")
					b.ReportMetric(sec/(n2/lim.exp), "pass/n²exp")
					b.ReportMetric(sec/(n2/2/lim.exp), "pass/half_n²exp")
					// Per CPU second, against the exp rate per CPU second:
					// the same ratio less the share of the cores other
					// processes took (this machine is shared).
					b.ReportMetric(evals/cpu/lim.expPerCPU, "cpu_frac_of_limit")
				}
				b.ReportMetric(float64(op.Bytes())/1e9, "GB_held")
			})
		}
	}
}

// limits are the two ceilings the operators are measured against.
type limits struct {
	exp       float64 // exps per second, GOMAXPROCS goroutines, data in L1
	bandwidth float64 // bytes per second read, GOMAXPROCS goroutines
	expPerCPU float64 // exps per CPU second (process time) in the same run
}

// cpuSeconds is the process's user and system time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

var (
	limitsOnce sync.Once
	limitsVal  limits
)

// operatorLimits measures, once per process, the exp throughput
// (simd.ScaledExp over a 4096-element buffer per goroutine, as
// BenchmarkExp, on every core) and the parallel read bandwidth (simd.Sum
// over 512 MiB split among the goroutines, as BenchmarkReadBandwidth),
// each the median of 7 repetitions, and logs them.
func operatorLimits(b *testing.B) limits {
	limitsOnce.Do(func() {
		p := runtime.GOMAXPROCS(0)
		var perCPU []float64
		expRate := func() float64 {
			const m, reps = 4096, 2000
			var wg sync.WaitGroup
			t0, c0 := time.Now(), cpuSeconds()
			for range p {
				wg.Go(func() {
					x := make([]float64, m)
					for i := range x {
						x[i] = -float64(i%97) * 0.1
					}
					dst := make([]float64, m)
					for range reps {
						simd.ScaledExp(dst, x, 0.5)
					}
				})
			}
			wg.Wait()
			exps := float64(p * m * reps)
			perCPU = append(perCPU, exps/(cpuSeconds()-c0))
			return exps / time.Since(t0).Seconds()
		}
		a := make([]float64, 64<<20)
		for i := range a {
			a[i] = 1
		}
		bwRate := func() float64 {
			var wg sync.WaitGroup
			t0 := time.Now()
			for q := range p {
				lo, hi := q*len(a)/p, (q+1)*len(a)/p
				wg.Go(func() { sink += simd.Sum(a[lo:hi]) })
			}
			wg.Wait()
			return float64(8*len(a)) / time.Since(t0).Seconds()
		}
		med := func(f func() float64) float64 {
			var r []float64
			for range 7 {
				r = append(r, f())
			}
			slices.Sort(r)
			return r[len(r)/2]
		}
		limitsVal = limits{exp: med(expRate), bandwidth: med(bwRate)}
		slices.Sort(perCPU)
		limitsVal.expPerCPU = perCPU[len(perCPU)/2]
	})
	b.Logf("limits: %.3g exp/s (%.3g per CPU second), %.3g GB/s read (GOMAXPROCS %d)", limitsVal.exp, limitsVal.expPerCPU, limitsVal.bandwidth/1e9, runtime.GOMAXPROCS(0))
	return limitsVal
}

// BenchmarkOperatorLimits reports the two ceilings of BenchmarkOperator as
// metrics, so that they appear in the same table.
func BenchmarkOperatorLimits(b *testing.B) {
	lim := operatorLimits(b)
	for b.Loop() {
	}
	b.ReportMetric(lim.exp/1e9, "Gexp/s")
	b.ReportMetric(lim.bandwidth/1e9, "GB/s")
}

// BenchmarkOperatorBlock multiplies blocks of k vectors, as the
// approximate DoF does (the probes and y: k = 9 at n ≥ 8000; the fit's
// scores: k up to 2M+1), and reports the entries applied per second (k·n²
// multiply-adds on each side of the symmetric product count as k·n²).
func BenchmarkOperatorBlock(b *testing.B) {
	for _, kind := range []kernelop.Kind{kernelop.KindDense, kernelop.KindFloat32, kernelop.KindHybrid} {
		n := 8192
		x, d := operatorInputs(b, n)
		op := buildOperator(b, kind, x, n, d)
		for _, k := range []int{1, 9, 61} {
			b.Run(fmt.Sprintf("kind=%s/n=%d/k=%d", kind, n, k), func(b *testing.B) {
				v, dst := make([]float64, k*n), make([]float64, k*n)
				for q := range k {
					copy(v[q*n:], randVec(n))
				}
				ctx := context.Background()
				for b.Loop() {
					if err := op.Mul(ctx, dst, v, k); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(k)*float64(n)*float64(n)/(b.Elapsed().Seconds()/float64(b.N))/1e9, "Gentries/s")
			})
		}
	}
}

// BenchmarkOperatorVectors is one Mul of k vectors, the block product of
// cross-validation's lock-step (k = 5 folds × q targets), per kind at
// n = 8192 and, for float32, at n = 20,000 (the stored triangle, 1.6 GB,
// far beyond the caches). Metrics: ms/op for the pass; GB/s of the
// stored matrix (one triangle for dense and float32) per pass and its
// frac_of_bw against the parallel read bandwidth, the floor of a pass that
// reads the matrix once; GFMA/s, counting the k·n² multiply–adds of the
// symmetric product (two per stored entry and vector).
//
//	go test -run '^$' -bench OperatorVectors -count 6 ./bench/ | tee new.txt
func BenchmarkOperatorVectors(b *testing.B) {
	lim := operatorLimits(b)
	for _, c := range []struct {
		kind kernelop.Kind
		n    int
	}{
		{kernelop.KindDense, 8192},
		{kernelop.KindFloat32, 8192},
		{kernelop.KindFloat32, 20000},
		{kernelop.KindHybrid, 8192},
		{kernelop.KindMatrixFree, 8192},
	} {
		n := c.n
		x, d := operatorInputs(b, n)
		op := buildOperator(b, c.kind, x, n, d)
		for _, k := range []int{1, 2, 5, 10, 20} {
			b.Run(fmt.Sprintf("kind=%s/n=%d/k=%d", c.kind, n, k), func(b *testing.B) {
				v, dst := make([]float64, k*n), make([]float64, k*n)
				for q := range k {
					copy(v[q*n:], randVec(n))
					v[q*n] += float64(q) // distinct vectors
				}
				ctx := context.Background()
				for b.Loop() {
					if err := op.Mul(ctx, dst, v, k); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(sec*1e3, "ms/op")
				if c.kind == kernelop.KindDense || c.kind == kernelop.KindFloat32 {
					bytes := 8 * float64(n) * float64(n+1) / 2
					if c.kind == kernelop.KindFloat32 {
						bytes /= 2
					}
					b.ReportMetric(bytes/sec/1e9, "GB/s")
					b.ReportMetric(bytes/sec/lim.bandwidth, "frac_of_bw")
				}
				b.ReportMetric(float64(k)*float64(n)*float64(n)/sec/1e9, "GFMA/s")
			})
		}
		op = nil
		runtime.GC()
		debug.FreeOSMemory()
	}
}

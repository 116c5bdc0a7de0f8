//go:build mpi

// Command mpipass measures a pass over the kernel matrix spread over MPI
// ranks: the time of one product of the matrix-free distributed operator
// with k vectors (RBF kernel, width d/2, Gaussian inputs the ranks generate
// alike) and the bytes each rank sends for it. Rank 0 prints one JSON line
// per n. Build and run it as
//
//	go build -tags mpi -o /tmp/mpipass ./bench/mpipass
//	mpirun -np 2 -x GOMAXPROCS=1 /tmp/mpipass -n 8192,45730,100000
//
// with -np 1 for the one-process figure (a communicator of one rank
// exchanges nothing). docs/scale.md has the measured points and the
// projection to 10⁶ rows.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
	"github.com/kpls-go/kpls/internal/mpi"
)

type result struct {
	N            int     `json:"n"`
	D            int     `json:"d"`
	K            int     `json:"k"`
	Ranks        int     `json:"ranks"`
	Goroutines   int     `json:"gomaxprocs_per_rank"`
	BuildSeconds float64 `json:"build_s"`
	PassSeconds  float64 `json:"pass_s"` // median over the passes
	Passes       int     `json:"passes"`
	BytesPerPass float64 `json:"bytes_sent_per_pass_per_rank"`
	EntriesPerS  float64 `json:"kernel_entries_per_s"` // n²/2 over the pass time
}

func main() {
	ns := flag.String("n", "8192", "comma-separated numbers of rows")
	d := flag.Int("d", 9, "features (protein has 9)")
	k := flag.Int("k", 1, "vectors per product")
	passes := flag.Int("passes", 3, "timed passes per n (after one untimed)")
	flag.Parse()
	w, err := mpi.Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := run(w, *ns, *d, *k, *passes); err != nil {
		fmt.Fprintf(os.Stderr, "mpipass: rank %d: %v\n", w.Rank(), err)
		w.Abort(1)
	}
	w.Finalize()
}

func run(w *mpi.World, ns string, d, k, passes int) error {
	ctx := context.Background()
	for _, s := range strings.Split(ns, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		x := make([]float64, n*d)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		barrier(w)
		t0 := time.Now()
		op, err := kernelop.NewDistributed(ctx, gram.NewRBFRows(x, n, d, float64(d)/2), 0, nil, w, nil)
		if err != nil {
			return err
		}
		build := time.Since(t0).Seconds()
		v, dst := make([]float64, k*n), make([]float64, k*n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		if err := op.Mul(ctx, dst, v, k); err != nil { // untimed
			return err
		}
		times := make([]float64, passes)
		sent := w.BytesSent
		for p := range passes {
			barrier(w)
			t := time.Now()
			if err := op.Mul(ctx, dst, v, k); err != nil {
				return err
			}
			times[p] = time.Since(t).Seconds()
		}
		r := result{N: n, D: d, K: k, Ranks: w.Size(), Goroutines: runtime.GOMAXPROCS(0), BuildSeconds: build,
			PassSeconds: median(times), Passes: passes,
			BytesPerPass: float64(w.BytesSent-sent) / float64(passes)}
		r.EntriesPerS = float64(n) * float64(n) / 2 / r.PassSeconds
		if w.Rank() == 0 {
			b, _ := json.Marshal(r)
			fmt.Println(string(b))
		}
	}
	return nil
}

// barrier lines the ranks up before a timed pass.
func barrier(w *mpi.World) {
	one := []float64{1}
	w.AllreduceSum(one)
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

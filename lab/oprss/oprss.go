package oprss

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"time"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/demodata"
	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
)

// Run is `kpls-lab oprss`: it prints one line of measurements.
func Run(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("oprss", "[flags]",
		"Builds one kernel operator (RBF, width d/2) over the protein features or n synthetic points and\n"+
			"prints its construction time, one product's time and the process's peak resident memory.")
	kind := fs.String("kind", "float32", "float32, matrix-free or hybrid")
	data := fs.String("data", "", "protein.csv (RMSD first, 9 features); empty: synthetic")
	n := fs.Int("n", 45730, "points when synthetic")
	budget := fs.Int64("budget", 0, "hybrid cache bytes")
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	x, d := synthetic(*n, 9)
	if *data != "" {
		var err error
		if x, _, d, _, err = demodata.Protein(*data); err != nil {
			return err
		}
	}
	np := len(x) / d
	rows := gram.NewRBFRows(x, np, d, float64(d)/2)
	t0 := time.Now()
	var op kernelop.Operator
	var err error
	switch kernelop.Kind(*kind) {
	case kernelop.KindFloat32:
		op, err = kernelop.NewFloat32(ctx, rows, nil, nil)
	case kernelop.KindMatrixFree:
		op, err = kernelop.NewMatrixFree(ctx, rows, nil)
	case kernelop.KindHybrid:
		op, err = kernelop.NewHybrid(ctx, rows, *budget, nil, nil)
	default:
		return cli.Usagef("--kind: %q, want float32, matrix-free or hybrid", *kind)
	}
	if err != nil {
		return err
	}
	build := time.Since(t0)
	v, dst := make([]float64, np), make([]float64, np)
	for i := range v {
		v[i] = 1 / float64(i+1)
	}
	t0 = time.Now()
	if err := op.Mul(ctx, dst, v, 1); err != nil {
		return err
	}
	mul := time.Since(t0)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "kind=%s n=%d d=%d held=%.3f GB build=%.2fs mul=%.3fs peak_rss=%.3f GiB\n",
		op.Kind(), np, d, float64(op.Bytes())/1e9, build.Seconds(), mul.Seconds(), float64(ru.Maxrss)/(1<<20))
	return nil
}

func synthetic(n, d int) ([]float64, int) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x, d
}

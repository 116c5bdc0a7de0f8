// Command oprss builds one kernel operator over the protein set (or n
// synthetic points) and prints its construction time, one product's time
// and the process's peak resident memory: the check that the float32
// operator at n = 45,730 (4.2 GB of storage) runs within 8 GiB.
//
//	go run ./bench/oprss -kind float32 -data ../shared/data/protein.csv
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"syscall"
	"time"

	"github.com/kpls-go/kpls/internal/gram"
	"github.com/kpls-go/kpls/internal/kernelop"
	"github.com/kpls-go/kpls/lab/demodata"
)

func main() {
	kind := flag.String("kind", "float32", "float32, matrix-free or hybrid")
	data := flag.String("data", "", "protein.csv (RMSD first, 9 features); empty: synthetic")
	n := flag.Int("n", 45730, "points when synthetic")
	budget := flag.Int64("budget", 0, "hybrid cache bytes")
	flag.Parse()
	x, d := synthetic(*n, 9)
	if *data != "" {
		var err error
		if x, _, d, _, err = demodata.Protein(*data); err != nil {
			log.Fatal(err)
		}
	}
	np := len(x) / d
	rows := gram.NewRBFRows(x, np, d, float64(d)/2)
	ctx := context.Background()
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
		log.Fatalf("kind %q", *kind)
	}
	if err != nil {
		log.Fatal(err)
	}
	build := time.Since(t0)
	v, dst := make([]float64, np), make([]float64, np)
	for i := range v {
		v[i] = 1 / float64(i+1)
	}
	t0 = time.Now()
	if err := op.Mul(ctx, dst, v, 1); err != nil {
		log.Fatal(err)
	}
	mul := time.Since(t0)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("kind=%s n=%d d=%d held=%.3f GB build=%.2fs mul=%.3fs peak_rss=%.3f GiB\n",
		op.Kind(), np, d, float64(op.Bytes())/1e9, build.Seconds(), mul.Seconds(), float64(ru.Maxrss)/(1<<20))
}

func synthetic(n, d int) ([]float64, int) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x, d
}

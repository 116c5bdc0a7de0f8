package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/dataset"
	"github.com/kpls-go/kpls/kpls"
)

func main() {
	t, err := dataset.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	xs, y, feats, err := t.Split("y")
	if err != nil {
		panic(err)
	}
	x := mat.NewDense(len(y), len(feats), xs)
	f, _ := os.Create("/tmp/small.prof")
	pprof.StartCPUProfile(f)
	t0 := time.Now()
	for range 10 {
		_, err = kpls.Select(context.Background(), x, y, kpls.SelectOptions{AverageWithin: 0.05})
	}
	pprof.StopCPUProfile()
	fmt.Println(time.Since(t0)/10, err)
}

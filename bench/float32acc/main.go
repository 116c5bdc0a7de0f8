// Command float32acc measures what float32 storage of the kernel matrix
// does to a fit, against the dense float64 fit of the same data: the
// largest differences over m in RSS (relative to the total sum of
// squares), DoF and held-out predictions (relative), whether the float32
// fit stopped early, and what automatic storage does with the same
// memory (a limit that excludes dense): keep float32, or refit on hybrid
// storage where the float32 fit stopped early.
//
//	go run ./bench/float32acc                  # kin8nm, widths 0.5 … 16
//	go run ./bench/float32acc -components 30 -lanczos 30
//
// The numbers are in docs/scale.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/demodata"
)

func main() {
	widths := flag.String("widths", "0.5,2,4.5,9,16", "comma-separated RBF widths")
	comp := flag.Int("components", 30, "components")
	lanczos := flag.Int("lanczos", 30, "Lanczos steps")
	held := flag.Int("held", 1000, "rows held out for the prediction comparison")
	flag.Parse()
	if err := run(*widths, *comp, *lanczos, *held); err != nil {
		fmt.Fprintln(os.Stderr, "float32acc:", err)
		os.Exit(1)
	}
}

func run(widths string, comp, lanczos, held int) error {
	x, n, d, y, _ := demodata.Kin8nm()
	nt := n - held
	xtr, xte := mat.NewDense(nt, d, x[:nt*d]), mat.NewDense(held, d, x[nt*d:])
	ytr := y[:nt]
	fmt.Printf("kin8nm, %d training rows, %d held out; %d components, %d Lanczos steps\n\n", nt, held, comp, lanczos)
	fmt.Println("| width | DoF | float32: stop | m compared | RSS | DoF | prediction | auto: storage | DoF |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	ctx := context.Background()
	for _, ws := range strings.Split(widths, ",") {
		w, err := strconv.ParseFloat(strings.TrimSpace(ws), 64)
		if err != nil {
			return fmt.Errorf("width %q: %w", ws, err)
		}
		for _, dof := range []kpls.DoFMethod{kpls.DoFApprox, kpls.DoFLanczos} {
			o := kpls.Options{Kernel: kpls.RBF{Width: w}, Components: comp, Lanczos: lanczos, DoF: dof, Storage: kpls.StorageDense}
			ref, err := kpls.Fit(ctx, xtr, ytr, o)
			if err != nil {
				return err
			}
			o.Storage = kpls.StorageFloat32
			m, err := kpls.Fit(ctx, xtr, ytr, o)
			if err != nil {
				return err
			}
			stop := "none"
			if s := m.Stop(); s.Reason != kpls.StopNone {
				stop = fmt.Sprintf("%s at %d", s.Reason, s.Component)
			}
			mc := min(m.Components(), ref.Components())
			rss, df := diffs(m, ref, mc)
			o.Storage, o.MemoryLimit = kpls.StorageAuto, kpls.KernelBytes(kpls.StorageDense, nt)-1
			auto, err := kpls.Fit(ctx, xtr, ytr, o)
			if err != nil {
				return err
			}
			_, adf := diffs(auto, ref, min(auto.Components(), ref.Components()))
			p, err := m.PredictEvery(ctx, xte)
			if err != nil {
				return err
			}
			rp, err := ref.PredictEvery(ctx, xte)
			if err != nil {
				return err
			}
			pr := 0.0
			for i := 1; i <= mc; i++ {
				var num, den float64
				for r := range held {
					a, b := p.At(r, i)-m.Intercept(), rp.At(r, i)-ref.Intercept()
					num += (a - b) * (a - b)
					den += b * b
				}
				pr = math.Max(pr, math.Sqrt(num/den))
			}
			fmt.Printf("| %g | %s | %s | 0..%d | %.1e | %.1e | %.1e | %s | %.1e |\n", w, dof, stop, mc, rss, df, pr, auto.Storage(), adf)
		}
	}
	return nil
}

// diffs returns the largest |ΔRSS|/TSS and |ΔDoF|/DoF over m = 0..mc.
func diffs(m, ref *kpls.Model, mc int) (rss, dof float64) {
	st, rst := m.Stats(), ref.Stats()
	for i := 0; i <= mc; i++ {
		rss = math.Max(rss, math.Abs(st[i].RSS-rst[i].RSS)/rst[0].RSS)
		if !math.IsNaN(rst[i].DoF) {
			dof = math.Max(dof, math.Abs(st[i].DoF-rst[i].DoF)/rst[i].DoF)
		}
	}
	return rss, dof
}

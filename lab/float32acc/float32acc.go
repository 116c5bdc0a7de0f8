package float32acc

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/demodata"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/allm"
)

// Run is `kpls-lab float32acc`: it prints the table of docs/scale.md.
func Run(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("float32acc", "[flags]",
		"Fits kin8nm with float32 and with dense float64 storage of the kernel matrix, and with automatic\n"+
			"storage under a limit that excludes dense, for each width and the approx and lanczos DoF, and\n"+
			"prints the largest differences (lab/float32acc/doc.go).")
	widths := fs.String("widths", "0.5,2,4.5,9,16", "comma-separated RBF `widths`")
	comp := fs.Int("components", 30, "components")
	lanczos := fs.Int("lanczos", 30, "Lanczos steps")
	held := fs.Int("held", 1000, "rows held out for the prediction comparison")
	if err := fs.Parse(e, args); err != nil {
		return err
	}
	return run(ctx, e.Stdout, *widths, *comp, *lanczos, *held)
}

func run(ctx context.Context, out io.Writer, widths string, comp, lanczos, held int) error {
	x, n, d, y, _ := demodata.Kin8nm()
	nt := n - held
	xtr, xte := mat.NewDense(nt, d, x[:nt*d]), mat.NewDense(held, d, x[nt*d:])
	ytr := y[:nt]
	fmt.Fprintf(out, "kin8nm, %d training rows, %d held out; %d components, %d Lanczos steps\n\n", nt, held, comp, lanczos)
	fmt.Fprintln(out, "| width | DoF | float32: stop | m compared | RSS | DoF | prediction | auto: storage | DoF |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|")
	for _, ws := range strings.Split(widths, ",") {
		w, err := strconv.ParseFloat(strings.TrimSpace(ws), 64)
		if err != nil {
			return fmt.Errorf("width %q: %w", ws, err)
		}
		for _, dof := range []kpls.DoFMethod{kpls.DoFApprox, kpls.DoFLanczos} {
			o := kpls.Options{Kernel: kpls.RBF{Width: w}, Components: comp, Lanczos: lanczos, DoF: dof}
			data := kpls.Data{X: xtr, Y: mat.NewVecDense(len(ytr), ytr)}
			ref, err := kpls.Fit(ctx, data, o, &kpls.Resources{Storage: kpls.StorageDense})
			if err != nil {
				return err
			}
			m, err := kpls.Fit(ctx, data, o, &kpls.Resources{Storage: kpls.StorageFloat32})
			if err != nil {
				return err
			}
			stop := "none"
			if s := m.Summary().Stop; s.Reason != kpls.StopNone {
				stop = fmt.Sprintf("%s at %d", s.Reason, s.Component)
			}
			mc := min(len(m.Stats()), len(ref.Stats())) - 1
			rss, df := diffs(m, ref, mc)
			auto, err := kpls.Fit(ctx, data, o, &kpls.Resources{MemoryLimit: kpls.StorageDense.Bytes(nt) - 1})
			if err != nil {
				return err
			}
			_, adf := diffs(auto, ref, min(len(auto.Stats()), len(ref.Stats()))-1)
			p, err := allm.Predict(ctx, m, xte)
			if err != nil {
				return err
			}
			rp, err := allm.Predict(ctx, ref, xte)
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
			fmt.Fprintf(out, "| %g | %s | %s | 0..%d | %.1e | %.1e | %.1e | %s | %.1e |\n", w, dof, stop, mc, rss, df, pr, auto.Summary().Storage, adf)
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

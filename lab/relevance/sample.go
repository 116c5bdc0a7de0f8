package relevance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/internal/dataset"
	"github.com/kpls-go/kpls/kpls"
)

// runSample is `relevance sample`: GOP scales learned on a sample of the
// training rows (as a screened select's first round sees them), then
// the default select on all training rows with the features standardised
// and scaled, scored on the test rows; rounds > 1 relearns the scales on
// the scaled sample.
func runSample(ctx context.Context, e *cli.Env, trainPath, testPath, target string, rows, rounds int, seed uint64) error {
	xtr, ytr, err := readXY(trainPath, target)
	if err != nil {
		return err
	}
	xte, yte, err := readXY(testPath, target)
	if err != nil {
		return err
	}
	n, d := xtr.Dims()
	if rows == 0 {
		rows = max(2048, n/8)
	}
	if rows >= n {
		return cli.Usagef("--rows: %d, want fewer than the %d training rows", rows, n)
	}
	st := newStandardiser(xtr)
	ztr, zte := st.apply(xtr, nil), st.apply(xte, nil)
	pick := rand.New(rand.NewPCG(seed, 2)).Perm(n)[:rows]
	zs, ys := mat.NewDense(rows, d, nil), make([]float64, rows)
	for i, r := range pick {
		zs.SetRow(i, ztr.RawRowView(r))
		ys[i] = ytr[r]
	}
	scales := make([]float64, d)
	for j := range scales {
		scales[j] = 1
	}
	t0 := time.Now()
	iso, v, err := selectVariant(ctx, "iso", ztr, ytr, zte, yte, true)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "iso      select %6.1f s  %4d passes  best %s m=%d  RMSECV %.4f  held-out RMSE %.4f\n",
		time.Since(t0).Seconds(), iso.Passes, kernelOf(v), v.M, v.CV, v.RMSE)
	for round := 1; round <= rounds; round++ {
		sel, err := kpls.Select(ctx, kpls.Data{X: scaled(zs, scales), Y: mat.NewVecDense(rows, ys)}, kpls.SelectOptions{RawFeatures: true}, nil)
		if err != nil {
			return err
		}
		g, err := gopOf(ctx, sel, scaled(zs, scales), ys)
		if err != nil {
			return err
		}
		g = normalised(g, 1)
		for j := range scales {
			scales[j] *= g[j]
		}
		scales = normalised(scales, 1)
		t0 := time.Now()
		full, v, err := selectVariant(ctx, "gop", scaled(ztr, scales), ytr, scaled(zte, scales), yte, true)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "gop %d    select %6.1f s  %4d passes  best %s m=%d  RMSECV %.4f  held-out RMSE %.4f  scales %.3f\n",
			round, time.Since(t0).Seconds(), full.Passes, kernelOf(v), v.M, v.CV, v.RMSE, scales)
	}
	return nil
}

func kernelOf(v Variant) string {
	if v.Width == 0 {
		return v.Kernel
	}
	return fmt.Sprintf("%s %.4g", v.Kernel, v.Width)
}

// scaled returns z with column j multiplied by s[j].
func scaled(z *mat.Dense, s []float64) *mat.Dense {
	r, c := z.Dims()
	out := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			out.Set(i, j, z.At(i, j)*s[j])
		}
	}
	return out
}

// readXY reads a CSV file's features and target (empty: the last column).
func readXY(path, target string) (*mat.Dense, []float64, error) {
	t, err := dataset.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	x, y, features, err := t.Split(target)
	if err != nil {
		return nil, nil, err
	}
	return mat.NewDense(t.Rows, len(features), x), y, nil
}

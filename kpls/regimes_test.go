package kpls_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/internal/demodata"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/dofbed"
)

func kin8nm() (*mat.Dense, []float64) {
	x, n, d, y, _ := demodata.Kin8nm()
	return mat.NewDense(n, d, x), y
}

// TestApproxDoFRegimes holds the approximate DoF to its bar in every
// spectral regime of the test bed (near-identity, one feature, slow and
// fast decay, wide, small n), m = 1 to the fit's valid components with
// M = 40, two seeds: within 2 % of the exact DoF (forward-mode Jacobian
// trace, itself checked against finite differences in
// TestExactDoFFiniteDifferences), at most 5 % of values null, and the
// exact value within ±2 standard errors for at least 90 % of (case, m,
// seed). The kin8nm cases use 1000 rows (300 under the race detector,
// where the cubic oracle is ten times slower).
func TestApproxDoFRegimes(t *testing.T) {
	kx, ky := kin8nm()
	nKin := 1000
	if kpls.RaceEnabled {
		nKin = 300
	}
	cases := dofbed.RegimeCases(kx, ky, nKin)
	rs, err := dofbed.RunSeeds(context.Background(), cases, 40, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var values, nulls, covered int
	for i, r := range rs {
		values += r.Valued
		nulls += r.Refused[kpls.DoFApprox]
		covered += r.Covered
		if r.Valued+r.Refused[kpls.DoFApprox] != 2*r.Components || r.Components < 1 {
			t.Errorf("%s: %d values and %d nulls for %d components and 2 seeds", r.Case, r.Valued, r.Refused[kpls.DoFApprox], r.Components)
		}
		if e := r.MaxRel[kpls.DoFApprox]; !(e <= 0.02) {
			t.Errorf("%s: approx off by up to %.3g relative", r.Case, e)
		}
		t.Logf("%-36s %s: m ≤ %d, worst %.2g, lanczos worst %.2g (%d refused)", r.Case, cases[i].Regime, r.Components,
			r.MaxRel[kpls.DoFApprox], r.MaxRel[kpls.DoFLanczos], r.Refused[kpls.DoFLanczos])
	}
	var sum strings.Builder
	if err := dofbed.WriteSummary(&sum, dofbed.Summarize(cases, rs)); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", sum.String())
	total := values + nulls
	if total == 0 {
		t.Fatal("compared nothing")
	}
	if frac := float64(nulls) / float64(total); frac > 0.05 {
		t.Errorf("%d of %d values null (%.1f %%), want at most 5 %%", nulls, total, 100*frac)
	}
	if frac := float64(covered) / float64(values); frac < 0.9 {
		t.Errorf("exact DoF within ±2·se for %.1f %% of values, want at least 90 %%", 100*frac)
	}
	// The near-identity case the issue reported: DoF ≈ n, not 4.
	if r := rs[0]; !strings.HasPrefix(r.Case, "near-identity kin8nm") || math.Abs(r.DoF[kpls.DoFApprox][1]-300) > 1 {
		t.Errorf("%s: approx DoF(1) = %.4g, want about 300", r.Case, r.DoF[kpls.DoFApprox][1])
	}
}

func ExampleFit_nearIdentity() {
	// A kernel far narrower than the spacing of the data is close to the
	// identity: one component interpolates y and uses all n degrees of
	// freedom, which the approximate DoF reports.
	kx, ky := kin8nm()
	x, y := dofbed.FirstRows(kx, ky, 300)
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Kernel: kpls.RBF{Width: 0.05}, Components: 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("DoF(1) = %.0f of n = %d\n", m.Stats()[1].DoF, m.Summary().N)
	// Output: DoF(1) = 300 of n = 300
}

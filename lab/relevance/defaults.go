package relevance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
	"github.com/kpls-go/kpls/lab/panel"
)

// runDefault runs, on every split of every set, the default select
// (variant "default": the features weighed where it learns weights) and
// the same with SelectOptions.Isotropic ("iso"), in turn, the first of
// the two alternating from split to split so that neither always runs on
// a cold cache, and appends one Record per split to out with each
// variant's wall seconds.
func runDefault(ctx context.Context, e *cli.Env, dir string, sets []string, out string) error {
	for _, name := range sets {
		t, x, y, err := readSet(dir, name)
		if err != nil {
			return err
		}
		n, d := x.Dims()
		for k := 0; hasSplit(dir, name, k); k++ {
			train, test, err := readSplit(dir, name, k, n)
			if err != nil {
				return err
			}
			xtr, ytr := panel.Rows(x, y, train)
			xte, yte := panel.Rows(x, y, test)
			rec := Record{Set: name, Split: k, NTrain: len(train), NTest: len(test), D: d, Features: t.header[:d]}
			order := []bool{false, true} // isotropic?
			if k%2 == 1 {
				order = []bool{true, false}
			}
			var vs [2]Variant
			for _, iso := range order {
				start := time.Now()
				sel, v, err := selectWith(ctx, xtr, ytr, xte, yte, kpls.SelectOptions{Isotropic: iso})
				if err != nil {
					return fmt.Errorf("%s split %d: %w", name, k, err)
				}
				v.Seconds = time.Since(start).Seconds()
				if iso {
					v.Name = "iso"
					vs[1] = v
					continue
				}
				v.Name = "default"
				if w := sel.Weighed; w != nil && w.Chosen {
					v.Scales = w.Relevance
				}
				vs[0] = v
			}
			rec.Variants = vs[:]
			fmt.Fprintf(e.Stderr, "%s relevance: %s split %d: held out %.5g default (%.2f s, weighed %v), %.5g isotropic (%.2f s)\n",
				e.Prog, name, k, vs[0].RMSE, vs[0].Seconds, vs[0].Scales != nil, vs[1].RMSE, vs[1].Seconds)
			b, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			if err := appendLine(out, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendLine appends b and a newline to the file at path.
func appendLine(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readSet reads set name of the panel directory dir: its table, the
// features (every column but the last) and the target (the last).
func readSet(dir, name string) (*table, *mat.Dense, []float64, error) {
	t, err := readTable(filepath.Join(dir, name+".csv"))
	if err != nil {
		return nil, nil, nil, err
	}
	n, d := len(t.rows), len(t.header)-1
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i, r := range t.rows {
		x.SetRow(i, r[:d])
		y[i] = r[d]
	}
	return t, x, y, nil
}

// hasSplit reports whether set name has a split k in dir.
func hasSplit(dir, name string, k int) bool {
	_, err := os.Stat(filepath.Join(dir, name+".splits", fmt.Sprintf("split-%d.train", k)))
	return err == nil
}

// readSplit reads split k of set name (n rows): its training and test
// rows.
func readSplit(dir, name string, k, n int) (train, test []int, err error) {
	sd := filepath.Join(dir, name+".splits")
	if train, err = panel.ReadIndices(filepath.Join(sd, fmt.Sprintf("split-%d.train", k)), n); err != nil {
		return nil, nil, err
	}
	test, err = panel.ReadIndices(filepath.Join(sd, fmt.Sprintf("split-%d.test", k)), n)
	return train, test, err
}

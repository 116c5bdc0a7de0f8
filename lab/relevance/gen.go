package relevance

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kpls-go/kpls/internal/dataset"
)

// seedOf is the seed of a constructed set's purpose ("data", "split"), as
// lab/panel seeds its own: the FNV-1a hash of purpose, name and base.
func seedOf(purpose, name string, base uint64) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", purpose, name, base)
	return h.Sum64()
}

// table is a data set held as a header and rows of numbers, y last.
type table struct {
	header []string
	rows   [][]float64
}

func readTable(path string) (*table, error) {
	t, err := dataset.ReadFile(path)
	if err != nil {
		return nil, err
	}
	x, y, names, err := t.Split("")
	if err != nil {
		return nil, err
	}
	d := len(names)
	out := &table{header: append(slices.Clone(names), "y")}
	for i := range y {
		row := append(slices.Clone(x[i*d:i*d+d]), y[i])
		out.rows = append(out.rows, row)
	}
	return out, nil
}

func (t *table) write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, strings.Join(t.header, ","))
	for _, r := range t.rows {
		for j, v := range r {
			if j > 0 {
				w.WriteByte(',')
			}
			w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// gen writes the constructed sets next to the panel's in dir:
//
//	kin8nm3000        3,000 random rows of kin8nm; 3 splits of 750 test
//	                  and 2,000 training rows drawn as lab/panel draws them
//	concrete_noise5   concrete with 5 added N(0,1) columns (noise1…noise5)
//	                  before y; concrete's splits
//	concrete_rescaled concrete with cement (its most relevant column) in
//	                  kilograms per litre (÷1000); concrete's splits
//
// A standardising method is invariant to concrete_rescaled's change: the
// set checks that the whole chain is.
func gen(dir string, seed uint64) error {
	kin, err := readTable(filepath.Join(dir, "kin8nm.csv"))
	if err != nil {
		return fmt.Errorf("%w (run kpls-lab panel gen first)", err)
	}
	rng := rand.New(rand.NewPCG(seedOf("data", "kin8nm3000", seed), 0))
	perm := rng.Perm(len(kin.rows))[:3000]
	slices.Sort(perm)
	k3 := &table{header: kin.header}
	for _, i := range perm {
		k3.rows = append(k3.rows, kin.rows[i])
	}
	if err := k3.write(filepath.Join(dir, "kin8nm3000.csv")); err != nil {
		return err
	}
	for k := range 3 {
		r := rand.New(rand.NewPCG(seedOf("split", "kin8nm3000", seed), uint64(k)))
		p := r.Perm(3000)
		test, train := slices.Clone(p[:750]), slices.Clone(p[750:2750])
		slices.Sort(test)
		slices.Sort(train)
		if err := writeSplit(filepath.Join(dir, "kin8nm3000.splits"), k, train, test); err != nil {
			return err
		}
	}

	con, err := readTable(filepath.Join(dir, "concrete.csv"))
	if err != nil {
		return err
	}
	d := len(con.header) - 1
	noise := &table{header: slices.Concat(con.header[:d], []string{"noise1", "noise2", "noise3", "noise4", "noise5", "y"})}
	rng = rand.New(rand.NewPCG(seedOf("data", "concrete_noise5", seed), 0))
	for _, r := range con.rows {
		row := slices.Clone(r[:d])
		for range 5 {
			row = append(row, rng.NormFloat64())
		}
		noise.rows = append(noise.rows, append(row, r[d]))
	}
	resc := &table{header: con.header}
	for _, r := range con.rows {
		row := slices.Clone(r)
		row[0] /= 1000
		resc.rows = append(resc.rows, row)
	}
	for name, t := range map[string]*table{"concrete_noise5": noise, "concrete_rescaled": resc} {
		if err := t.write(filepath.Join(dir, name+".csv")); err != nil {
			return err
		}
		if err := os.RemoveAll(filepath.Join(dir, name+".splits")); err != nil {
			return err
		}
		if err := os.CopyFS(filepath.Join(dir, name+".splits"), os.DirFS(filepath.Join(dir, "concrete.splits"))); err != nil {
			return err
		}
	}
	return nil
}

func writeSplit(dir string, k int, train, test []int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for ext, idx := range map[string][]int{"train": train, "test": test} {
		var b strings.Builder
		for _, i := range idx {
			fmt.Fprintln(&b, i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("split-%d.%s", k, ext)), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

package panel

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Rows returns the rows idx of x and y, copied.
func Rows(x *mat.Dense, y []float64, idx []int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	xo := mat.NewDense(len(idx), d, nil)
	yo := make([]float64, len(idx))
	for i, r := range idx {
		xo.SetRow(i, x.RawRowView(r))
		yo[i] = y[r]
	}
	return xo, yo
}

// RMSE is the root mean squared difference of pred and y.
func RMSE(pred, y []float64) float64 {
	var s float64
	for i, v := range y {
		s += (v - pred[i]) * (v - pred[i])
	}
	return math.Sqrt(s / float64(len(y)))
}

// ReadIndices reads one split file: 0-based row indices below n, one a
// line (blank lines skipped); an empty file is an error.
func ReadIndices(path string, n int) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseIndices(path, f, n)
}

// parseIndices reads the indices of ReadIndices from r, naming path in
// errors.
func parseIndices(path string, r io.Reader, n int) ([]int, error) {
	var out []int
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= n {
			return nil, fmt.Errorf("%s: line %d: %q is not a row index in 0..%d", path, line, s, n-1)
		}
		out = append(out, i)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no row indices", path)
	}
	return out, sc.Err()
}

// Median is the median of v (the mean of the middle two for an even
// count), NaN for none; v is not changed.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

package fitflags

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kpls-go/kpls/cmd/cli"
	"github.com/kpls-go/kpls/kpls"
)

// ParseWidths parses --widths, a comma-separated list of distinct positive
// widths. An empty entry or a repeated width is an error: it is a typo,
// and a repeated width would be fitted twice and marked best twice.
func ParseWidths(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, cli.Usagef("--widths: no widths in %q", s)
	}
	var ws []float64
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, cli.Usagef("--widths: entry %d of %q is empty", i+1, s)
		}
		w, err := strconv.ParseFloat(f, 64)
		if err != nil || !(w > 0) || math.IsInf(w, 0) {
			return nil, cli.Usagef("--widths: %q is not a positive number", f)
		}
		if j := slices.Index(ws, w); j >= 0 {
			return nil, cli.Usagef("--widths: %q repeats entry %d (%g)", f, j+1, w)
		}
		ws = append(ws, w)
	}
	if len(ws) == 0 {
		return nil, cli.Usagef("--widths: no widths in %q", s)
	}
	return ws, nil
}

// DefaultKernels is --kernels' default: the names of
// kpls.DefaultKernels, which Select searches when given none.
func DefaultKernels() string {
	var names []string
	for _, k := range kpls.DefaultKernels() {
		names = append(names, k.Name())
	}
	return strings.Join(names, ",")
}

// ParseKernels parses --kernels, a comma-separated list of kernel names;
// a polynomial kernel takes its degree and offset from poly (the
// --degree and --offset flags, resolved by Model.Options).
func ParseKernels(list string, poly kpls.Kernel) ([]kpls.Kernel, error) {
	var out []kpls.Kernel
	for _, name := range strings.Split(list, ",") {
		k, err := parseKernel("--kernels", strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		if _, ok := k.(kpls.Polynomial); ok {
			if p, ok := poly.(kpls.Polynomial); ok {
				k = p
			}
		}
		if slices.ContainsFunc(out, func(o kpls.Kernel) bool { return o.Name() == k.Name() }) {
			return nil, cli.Usagef("--kernels: %s appears twice", k.Name())
		}
		out = append(out, k)
	}
	return out, nil
}

// parseKernel parses a kernel name for the flag named flag. The commands
// take features from files, so the precomputed kernel (a Gram matrix) is
// for the Go API only.
func parseKernel(flag, name string) (kpls.Kernel, error) {
	k, err := kpls.ParseKernel(name)
	if err != nil || k == (kpls.Precomputed{}) {
		return nil, cli.Usagef("%s: unknown kernel %q (want rbf, linear, polynomial, laplacian, matern32 or matern52)", flag, name)
	}
	return k, nil
}

// ParseBytes parses a size: a whole number of bytes, or a number with a
// unit, KB/MB/GB/TB (powers of 1000) or KiB/MiB/GiB/TiB (powers of 1024;
// K, M, G and T alone mean these too).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("%q is not a size (want e.g. 8GiB, 6GB or 500MiB)", s)
	}
	scale := map[string]float64{"": 1, "B": 1,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
	f, ok := scale[unit]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (want B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)", s, unit)
	}
	b := v * f
	if !(b >= 1) || b > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: want at least one byte and at most 4 EiB", s)
	}
	return int64(b), nil
}

// FormatBytes writes a size in GiB, MiB or KiB.
func FormatBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
}

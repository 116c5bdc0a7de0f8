package hugepage

// page is the base page size madvise works in.
const page = 4096

// wholePages returns the addresses [lo, hi) of the whole pages inside the
// n bytes from base: madvise takes only page-aligned ranges, and advising
// a partial page at either end would touch memory outside the buffer.
func wholePages(base, n uintptr) (lo, hi uintptr) {
	lo = (base + page - 1) &^ (page - 1)
	hi = (base + n) &^ (page - 1)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

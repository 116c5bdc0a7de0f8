package hugepage

import "testing"

func TestWholePages(t *testing.T) {
	for _, c := range []struct{ base, n, lo, hi uintptr }{
		{0, 3 * page, 0, 3 * page},
		{1, 3 * page, page, 3 * page},
		{page - 1, page + 2, page, 2 * page},
		{10, 100, page, page}, // inside one page: nothing
		{2 * page, 0, 2 * page, 2 * page},
	} {
		lo, hi := wholePages(c.base, c.n)
		if lo != c.lo || hi != c.hi {
			t.Errorf("wholePages(%d, %d) = [%d, %d), want [%d, %d)", c.base, c.n, lo, hi, c.lo, c.hi)
		}
		if hi > lo && (lo < c.base || hi > c.base+c.n || lo%page != 0 || hi%page != 0) {
			t.Errorf("wholePages(%d, %d) = [%d, %d) leaves the buffer or a page boundary", c.base, c.n, lo, hi)
		}
	}
}

//go:build linux

package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// minBytes is the size from which Advise asks for huge pages: two 2 MiB
// pages.
const minBytes = 4 << 20

// Advise asks the kernel to back the whole pages of the n bytes at p with
// transparent huge pages (madvise MADV_HUGEPAGE; it changes nothing where
// THP is "never" and is implied where it is "always"). Pages not yet
// touched get huge pages when first written; touched ones may be
// collapsed later by khugepaged. The advice is a hint; failures are
// ignored.
func Advise(p unsafe.Pointer, n int) {
	if n < minBytes {
		return
	}
	base := uintptr(p)
	lo, hi := wholePages(base, uintptr(n))
	if hi <= lo {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, lo-base)), hi-lo), unix.MADV_HUGEPAGE)
}

// Float64s is Advise over the elements of s.
func Float64s(s []float64) {
	if len(s) > 0 {
		Advise(unsafe.Pointer(unsafe.SliceData(s)), 8*len(s))
	}
}

// Float32s is Advise over the elements of s.
func Float32s(s []float32) {
	if len(s) > 0 {
		Advise(unsafe.Pointer(unsafe.SliceData(s)), 4*len(s))
	}
}

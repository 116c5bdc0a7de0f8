//go:build linux

package gram

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePageMinBytes is the output size from which adviseHugePages asks for
// huge pages: two 2 MiB pages.
const hugePageMinBytes = 4 << 20

// adviseHugePages asks the kernel to back the pages of dst not yet touched
// with transparent huge pages (madvise MADV_HUGEPAGE; it changes nothing
// where THP is "never" and is implied where it is "always"). A freshly
// allocated n×n kernel matrix is first touched by the tiles written here,
// and with 4 KiB pages that costs one page fault per 4 KiB: measured on a
// 2-core VM at n = 8192, faulting in the 512 MiB took over 1 s, against
// about 60 ms for the whole construction once the pages exist. The advice
// is a hint; failures are ignored.
func adviseHugePages(dst []float64) {
	if len(dst)*8 < hugePageMinBytes {
		return
	}
	// madvise wants whole pages: trim dst to the pages it covers fully.
	const page = 4096
	base := uintptr(unsafe.Pointer(&dst[0]))
	i0 := int((page-base%page)%page) / 8
	i1 := int((base+uintptr(len(dst))*8)&^(page-1)-base) / 8
	b := unsafe.Slice((*byte)(unsafe.Pointer(&dst[i0])), (i1-i0)*8)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}

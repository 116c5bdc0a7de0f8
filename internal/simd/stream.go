package simd

// StreamCopy copies src into dst (same length), bypassing the caches where
// the CPU allows (non-temporal stores): for writing large outputs that will
// not be read again soon, such as the tiles of an n×n kernel matrix. It
// saves the read of each destination cache line that an ordinary store
// costs, and keeps the caches for the inputs. Call StreamFence before
// another goroutine may read the data.
func StreamCopy(dst, src []float64) {
	if len(dst) != len(src) {
		panic("simd: length mismatch")
	}
	n := streamAsm(dst, src)
	copy(dst[n:], src[n:])
}

// StreamFence makes the stores of earlier StreamCopy calls visible before
// any later store, in particular before the goroutine signals that its
// output is ready.
func StreamFence() { fence() }

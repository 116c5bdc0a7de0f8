package kernelop

// DenseBytes is the memory of the dense float64 K_c: 8n² bytes and the
// padding of its rows (DenseStride), at most 120n bytes.
func DenseBytes(n int) int64 { return 8 * int64(n) * int64(DenseStride(n)) }

// Float32Bytes is the memory of the packed float32 triangle: 2n(n+1) bytes.
func Float32Bytes(n int) int64 { return 4 * (int64(n) * int64(n+1) / 2) }

// Choose is the policy for the operator's kind, given n and a memory limit
// in bytes for the stored matrix (the caller leaves room for everything
// else, n × components arrays and the inputs): dense float64 if 8n² fits,
// the fastest per pass; else float32 if the caller allows it (see
// NewFloat32 for when not) and 2n(n+1) fits; else hybrid, caching what
// the limit holds; matrix-free when not even one tile fits.
func Choose(n int, limit int64, float32OK bool) Kind {
	switch {
	case DenseBytes(n) <= limit:
		return KindDense
	case float32OK && Float32Bytes(n) <= limit:
		return KindFloat32
	case limit >= 8*tileRows*tileCols:
		return KindHybrid
	}
	return KindMatrixFree
}

// fallbackLimit is DefaultLimit when physical memory is unknown.
const fallbackLimit = 2 << 30

// DefaultLimit returns a quarter of physical memory (2 GiB when it cannot
// be read): room for the stored matrix next to the fit's own n × M arrays,
// the inputs, the OS and other processes. On a 24 GiB machine that is
// 6 GiB, so the protein set (n = 45,730) is held as float32 (4.2 GB)
// rather than dense (16.7 GB), and a hybrid operator, if float32 is not
// allowed, caches 6 GiB and the process stays within 8 GiB resident.
func DefaultLimit() int64 {
	if m := physicalMemory(); m > 0 {
		return int64(m / 4)
	}
	return fallbackLimit
}

//go:build unix

package kpls

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

func TestCRC32Zeros(t *testing.T) {
	sum := crc32.Checksum([]byte("kpls"), crcTable)
	for _, k := range []int64{0, 1, 2, 7, 8, 255, 4096, 1<<20 + 3} {
		want := crc32.Update(sum, crcTable, make([]byte, k))
		if got := crc32Zeros(sum, k); got != want {
			t.Errorf("%d zeros: %08x, want %08x", k, got, want)
		}
	}
}

// sparseModel writes a model file of n rows and d features whose arrays
// are all zeros and mostly a hole: the prefix and header are written,
// the rest made by extending the file. With sum set, the last 4 bytes
// are the checksum of the whole, computed over real zeros.
func sparseModel(t *testing.T, n, d int64, sum bool) string {
	t.Helper()
	at := n * d * 8
	h := fileHeader{Format: FormatName, Version: FormatVersionPlain, ArrayBytes: at + 3*8*n, Entries: []fileEntry{{
		fileMeta: fileMeta{Options: cfg(Options{Kernel: RBF{Width: 1}, RawFeatures: true, DoF: DoFNone}), N: int(n), D: int(d),
			Stats: []fileStats{{}}, Chosen: &Choice{Criterion: GCV}},
		Arrays: arrayTable{X: arrayRef{Offset: 0, Length: n * d}, YC: arrayRef{Offset: at, Length: n},
			ColMean: arrayRef{Offset: at + 8*n, Length: n}, Alpha: arrayRef{Offset: at + 16*n, Length: n},
			T: arrayRef{Offset: at + 24*n}, G: arrayRef{Offset: at + 24*n}, L: arrayRef{Offset: at + 24*n}},
	}}}
	header, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(binaryMagic)
	b = binary.LittleEndian.AppendUint32(b, FormatVersionPlain)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	b = append(b, header...)
	b = append(b, make([]byte, arrayStart(int64(len(header)))-int64(len(b)))...)
	size := int64(len(b)) + h.ArrayBytes + 4
	path := filepath.Join(t.TempDir(), "sparse.kpls")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Skipf("cannot make a sparse file of %d bytes here: %v", size, err)
	}
	if sum {
		c := crc32.Checksum(b, crcTable)
		zeros := make([]byte, 1<<20)
		for left := h.ArrayBytes; left > 0; left -= int64(len(zeros)) {
			c = crc32.Update(c, crcTable, zeros[:min(left, int64(len(zeros)))])
		}
		if _, err := f.WriteAt(binary.LittleEndian.AppendUint32(nil, c), size-4); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Blocks*512 >= size/2 {
		t.Skipf("the file system stores the %d bytes in full", size)
	}
	return path
}

// TestLoadRefusesSparseClaims reads files of a few kilobytes on disk
// whose size and header agree on 64 GiB and 8 TiB of arrays: the checksum
// refuses them before anything of that size is allocated.
func TestLoadRefusesSparseClaims(t *testing.T) {
	for _, d := range []int64{1 << 7, 1 << 14} { // n = 2^26: 64 GiB, 8 TiB of X
		path := sparseModel(t, 1<<26, d, false)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = Load(f)
		runtime.ReadMemStats(&after)
		f.Close()
		if !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), "checksum mismatch") {
			t.Errorf("d = %d: %v, want a checksum mismatch", d, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Errorf("d = %d: allocated %d bytes", d, got)
		}
	}
}

// TestLoadReadsSparseModel reads a sparse file whose checksum is right: a
// model of zeros (as a file system that stores zero blocks as holes
// would keep it) loads.
func TestLoadReadsSparseModel(t *testing.T) {
	const n, d = 4096, 256
	f, err := os.Open(sparseModel(t, n, d, true))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := loadModel(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.x) != n*d || m.n != n || m.d != d {
		t.Errorf("loaded %d values, n = %d, d = %d", len(m.x), m.n, m.d)
	}
	for _, v := range m.x {
		if v != 0 {
			t.Fatalf("value %v in a file of zeros", v)
		}
	}
}

//go:build unix

package kpls

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"syscall"
)

// A regular file's size is no proof that it holds that many bytes: a
// sparse file of 4 KiB on disk can claim 64 GiB, all of it holes that read
// as zeros, and a header consistent with that size would have the reader
// allocate 64 GiB before the checksum at the end refuses the file. So a
// file that occupies less disk space than its size (sparse, or on a
// compressing file system) has its checksum verified by a first, streamed
// pass before any array is allocated; holes are summed without being
// read.

// seekReaderAt is what the streamed checksum pass needs of a file.
type seekReaderAt interface {
	io.ReaderAt
	io.Seeker
	Stat() (fs.FileInfo, error)
}

// holey reports whether r is a regular file occupying less disk space than
// the size left from its current offset: then its size is not trusted.
func holey(r io.Reader, left int64) bool {
	f, ok := r.(seekReaderAt)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	// One block of slack: the last block may be partly used.
	return int64(st.Blocks)*512+4096 < left
}

// Values of lseek's whence that Linux (and the BSDs, Solaris, macOS)
// understand: the next offset holding data, the next hole.
const (
	seekData = 3
	seekHole = 4
)

// verifyStreamed sums the file from the current offset to the last 4
// bytes, continuing the checksum sum of what came before, and compares it
// with those 4 bytes; the offset is left where it was. Holes are summed
// as the zeros they read as, without reading them.
func verifyStreamed(f seekReaderAt, sum uint32, left int64) error {
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	end := pos + left - 4
	buf := make([]byte, ioChunk)
	for off := pos; off < end; {
		data, hole := off, end
		if d, err := f.Seek(off, seekData); err == nil {
			data = min(d, end)
			if h, err := f.Seek(data, seekHole); err == nil {
				hole = min(h, end)
			}
		} else if errors.Is(err, syscall.ENXIO) {
			data = end // holes to the end
		}
		sum = crc32Zeros(sum, data-off)
		for off = data; off < hole; {
			k, err := f.ReadAt(buf[:min(int64(len(buf)), hole-off)], off)
			if k == 0 && err != nil {
				return fmt.Errorf("%w: %v", ErrModelFile, err)
			}
			sum = crc32.Update(sum, crcTable, buf[:k])
			off += int64(k)
		}
	}
	var tail [4]byte
	if _, err := f.ReadAt(tail[:], end); err != nil {
		return fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	if _, err := f.Seek(pos, io.SeekStart); err != nil {
		return fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	if le32(tail[:]) != sum {
		return fmt.Errorf("%w: checksum mismatch: the file was edited or damaged (its %d bytes are mostly holes: a sparse file)", ErrModelFile, pos+left)
	}
	return nil
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// crc32Zeros returns the CRC-32C of the bytes summed by sum followed by k
// zero bytes, in O(log k) time: for a zero byte the CRC register r
// becomes table[r&0xff] ^ r>>8, a linear map over GF(2), raised to the
// k-th power by squaring.
func crc32Zeros(sum uint32, k int64) uint32 {
	if k <= 0 {
		return sum
	}
	var z gf2Matrix // one zero byte
	for i := range z {
		r := uint32(1) << i
		z[i] = crcTable[r&0xff] ^ r>>8
	}
	reg := ^sum
	for ; k > 0; k >>= 1 {
		if k&1 != 0 {
			reg = z.apply(reg)
		}
		z = z.square()
	}
	return ^reg
}

// gf2Matrix is a linear map on 32-bit vectors over GF(2): column i is the
// image of bit i.
type gf2Matrix [32]uint32

func (m *gf2Matrix) apply(v uint32) uint32 {
	var out uint32
	for i := 0; v != 0; i, v = i+1, v>>1 {
		if v&1 != 0 {
			out ^= m[i]
		}
	}
	return out
}

func (m *gf2Matrix) square() gf2Matrix {
	var sq gf2Matrix
	for i := range sq {
		sq[i] = m.apply(m[i])
	}
	return sq
}

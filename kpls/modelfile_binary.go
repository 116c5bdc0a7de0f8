package kpls

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"slices"

	"github.com/kpls-go/kpls/internal/hugepage"
)

// The binary layout (format versions 4 to 6; version 5 adds "means" and
// weights to the header, docs/design.md §5 "Averaging the best grid
// points", and version 6 the RMSECV of a cross-validated choice):
//
//	offset   size  what
//	0        8     magic "KPLSMDL\x00"
//	8        4     format version, uint32 little-endian (4; 5 for means or weights; 6 with an RMSECV)
//	12       4     header length H in bytes, uint32 little-endian
//	16       H     header: a JSON object (fileHeader)
//	16+H     0..7  zero bytes up to a multiple of 8: the array section starts at A
//	A        B     the arrays, float64 little-endian, back to back
//	A+B      4     CRC-32C (Castagnoli) of every byte before it, uint32 little-endian
//
// Each array's offset in the header counts from A, so that the header's
// length does not depend on itself; every array starts 8-byte aligned in
// the file. An array that equals an earlier one bit for bit (the training
// inputs of models fitted to several targets) is stored once and
// referenced by every entry that has it.
const (
	binaryMagic = "KPLSMDL\x00"
	prefixSize  = 16
	// maxHeader bounds the header: a million feature names fit.
	maxHeader = 1 << 26
	// ioChunk is the bytes converted per read or write of the arrays.
	ioChunk = 256 << 10
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// fileHeader is the header of a version 4 or 5 file.
type fileHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// ArrayBytes is the length B of the array section.
	ArrayBytes int64       `json:"array_bytes"`
	Entries    []fileEntry `json:"entries"`
	// Means (version 5 only) groups the entries into means: the first
	// Means[0] entries are one mean, the next Means[1] the next, and so
	// on; the entries of a mean share its name.
	Means []int `json:"means,omitempty"`
}

// fileEntry is one model in a version 4 header.
type fileEntry struct {
	// Name is the model's name in the file, typically its target's; may be empty.
	Name string `json:"name,omitempty"`
	fileMeta
	Arrays arrayTable `json:"arrays"`
}

// arrayRef places one array in the array section.
type arrayRef struct {
	// Offset is in bytes from the start of the array section, a multiple of 8.
	Offset int64 `json:"offset"`
	// Length is the number of float64 values.
	Length int64 `json:"length"`
}

// arrayTable places a model's arrays, in the order of fileArrays.
type arrayTable struct {
	X       arrayRef `json:"x"`
	YC      arrayRef `json:"y_centred"`
	ColMean arrayRef `json:"kernel_col_mean"`
	Alpha   arrayRef `json:"alpha"`
	T       arrayRef `json:"t"`
	G       arrayRef `json:"g"`
	L       arrayRef `json:"l"`
}

func (t *arrayTable) list() [len(arrayNames)]*arrayRef {
	return [...]*arrayRef{&t.X, &t.YC, &t.ColMean, &t.Alpha, &t.T, &t.G, &t.L}
}

// fileWriter is a version 4 or 5 file ready to be written: its header
// and the arrays of the array section, in order.
type fileWriter struct {
	version int
	header  []byte
	regions [][]float64
	arrays  int64 // bytes of the array section
}

// newFileWriter lays out the file of models under names; means, if not
// nil, groups them into means (a version 5 file) and may repeat a name
// within a mean.
func newFileWriter(names []string, models []*Model, means []int) (*fileWriter, error) {
	switch {
	case len(models) == 0:
		return nil, fmt.Errorf("%w: no models to save", ErrShape)
	case names != nil && len(names) != len(models):
		return nil, fmt.Errorf("%w: %d names for %d models", ErrShape, len(names), len(models))
	}
	if err := checkNames(names, means, len(models)); err != nil {
		return nil, err
	}
	f := &fileWriter{version: FormatVersionPlain}
	if means != nil || slices.ContainsFunc(models, func(m *Model) bool { return m != nil && m.wt != nil }) {
		f.version = FormatVersionMeans
	}
	if slices.ContainsFunc(models, func(m *Model) bool { return m != nil && m.chosen != nil && m.chosen.RMSECV != 0 }) {
		f.version = FormatVersionRMSECV
	}
	if slices.ContainsFunc(models, func(m *Model) bool { return m != nil && m.opts.Relevance != nil }) {
		f.version = FormatVersion
	}
	h := fileHeader{Format: FormatName, Version: f.version, Entries: make([]fileEntry, len(models)), Means: means}
	for i, m := range models {
		if m == nil {
			return nil, fmt.Errorf("%w: model %d is nil", ErrShape, i+1)
		}
		p := payloadOf(m)
		e := &h.Entries[i]
		e.fileMeta = p.fileMeta
		if names != nil {
			e.Name = names[i]
		}
		refs := e.Arrays.list()
		for j, a := range p.list() {
			*refs[j] = f.place(*a)
		}
	}
	h.ArrayBytes = f.arrays
	var err error
	if f.header, err = json.Marshal(h); err != nil {
		var uerr *json.UnsupportedValueError
		if errors.As(err, &uerr) {
			return nil, fmt.Errorf("%w: %v", ErrNonFinite, err)
		}
		return nil, err // a Func kernel: ErrKernel from config.MarshalJSON
	}
	if len(f.header) > maxHeader {
		return nil, fmt.Errorf("%w: the header would take %d bytes, more than %d", ErrShape, len(f.header), maxHeader)
	}
	return f, nil
}

// place returns where a goes in the array section: where an equal array
// already is, or after the last one.
func (f *fileWriter) place(a []float64) arrayRef {
	if len(a) == 0 {
		return arrayRef{Offset: f.arrays}
	}
	var at int64
	for _, r := range f.regions {
		if sameBits(r, a) {
			return arrayRef{Offset: at, Length: int64(len(a))}
		}
		at += 8 * int64(len(r))
	}
	f.regions = append(f.regions, a)
	f.arrays += 8 * int64(len(a))
	return arrayRef{Offset: at, Length: int64(len(a))}
}

// sameBits reports whether a and b hold the same float64 bit patterns.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// arrayStart is where the array section of a file with a header of h
// bytes starts.
func arrayStart(h int64) int64 { return (prefixSize + h + 7) &^ 7 }

// size is the length of the file.
func (f *fileWriter) size() int64 { return arrayStart(int64(len(f.header))) + f.arrays + 4 }

// write writes the file to w.
func (f *fileWriter) write(w io.Writer) error {
	crc := crc32.New(crcTable)
	out := io.MultiWriter(w, crc)
	start := arrayStart(int64(len(f.header)))
	head := make([]byte, start)
	copy(head, binaryMagic)
	binary.LittleEndian.PutUint32(head[8:], uint32(f.version))
	binary.LittleEndian.PutUint32(head[12:], uint32(len(f.header)))
	copy(head[prefixSize:], f.header)
	if _, err := out.Write(head); err != nil {
		return err
	}
	buf := make([]byte, min(ioChunk, f.arrays))
	for _, r := range f.regions {
		for len(r) > 0 {
			k := min(len(r), len(buf)/8)
			for i, v := range r[:k] {
				binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v))
			}
			if _, err := out.Write(buf[:8*k]); err != nil {
				return err
			}
			r = r[k:]
		}
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// sizeLeft returns the bytes r still holds when it can tell (an in-memory
// reader, a regular file), else −1.
func sizeLeft(r io.Reader) int64 {
	switch s := r.(type) {
	case interface{ Len() int }:
		return int64(s.Len())
	case interface {
		Stat() (fs.FileInfo, error)
		io.Seeker
	}:
		fi, err := s.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		pos, err := s.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return fi.Size() - pos
	}
	return -1
}

// binaryReader reads a version 4 file after its magic, summing what it
// reads.
type binaryReader struct {
	r     io.Reader
	crc   hash.Hash32
	known bool  // whether the file's size is known
	hlen  int64 // the header's length
	buf   []byte
}

// read fills b from the file, adding it to the checksum.
func (br *binaryReader) read(b []byte) error {
	if _, err := io.ReadFull(br.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: the file is truncated", ErrModelFile)
		}
		return fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	br.crc.Write(b)
	return nil
}

// header reads the rest of the prefix and the header, and checks the
// header against itself and against the size of the file when known.
func (br *binaryReader) header() (*fileHeader, error) {
	var pre [prefixSize - len(binaryMagic)]byte
	br.crc.Write([]byte(binaryMagic))
	if err := br.read(pre[:]); err != nil {
		return nil, err
	}
	version, hlen := int64(binary.LittleEndian.Uint32(pre[0:])), int64(binary.LittleEndian.Uint32(pre[4:]))
	switch {
	case version > FormatVersion:
		return nil, fmt.Errorf("%w: format version %d is newer than this program reads (%d); upgrade kpls", ErrModelFile, version, FormatVersion)
	case version < FormatVersionPlain:
		return nil, fmt.Errorf("%w: bad format version %d for a binary file", ErrModelFile, version)
	case hlen > maxHeader:
		return nil, fmt.Errorf("%w: a header of %d bytes, more than %d", ErrModelFile, hlen, maxHeader)
	}
	left := sizeLeft(br.r)
	if left >= 0 && hlen > left {
		return nil, fmt.Errorf("%w: the file is truncated (a header of %d bytes, %d left)", ErrModelFile, hlen, left)
	}
	br.known, br.hlen = left >= 0, hlen
	raw, err := br.rawHeader(hlen)
	if err != nil {
		return nil, err
	}
	h, err := decodeHeader(raw, version)
	if err != nil {
		return nil, err
	}
	if br.known {
		pad := arrayStart(hlen) - prefixSize - hlen
		switch need, left := pad+h.ArrayBytes+4, left-hlen; {
		case left < need:
			return nil, fmt.Errorf("%w: the file is truncated: its header describes %d more bytes, it has %d", ErrModelFile, need, left)
		case left > need:
			return nil, fmt.Errorf("%w: %d bytes follow the model", ErrModelFile, left-need)
		}
	}
	if err := h.checkLayout(); err != nil {
		return nil, err
	}
	if br.known && holey(br.r, left) {
		// The size is not the data: check the sum before allocating for it.
		if err := verifyStreamed(br.r.(seekReaderAt), br.crc.Sum32(), left-hlen); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// rawHeader reads the header's hlen bytes: at once where the file's size
// vouches for them, else as they arrive, not as the prefix claims.
func (br *binaryReader) rawHeader(hlen int64) ([]byte, error) {
	if br.known {
		raw := make([]byte, hlen)
		if err := br.read(raw); err != nil {
			return nil, err
		}
		return raw, nil
	}
	raw, err := io.ReadAll(io.LimitReader(br.r, hlen))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	if int64(len(raw)) != hlen {
		return nil, fmt.Errorf("%w: the file is truncated", ErrModelFile)
	}
	br.crc.Write(raw)
	return raw, nil
}

// decodeHeader decodes the header of a file of the given version and
// checks what it says without the file's size.
func decodeHeader(raw []byte, version int64) (*fileHeader, error) {
	var h fileHeader
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrModelFile, err)
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) > 0 {
		return nil, fmt.Errorf("%w: header: data after the JSON object", ErrModelFile)
	}
	switch {
	case h.Format != FormatName || int64(h.Version) != version:
		return nil, fmt.Errorf("%w: header says format %q version %d, the file begins as %q version %d", ErrModelFile, h.Format, h.Version, FormatName, version)
	case len(h.Entries) == 0:
		return nil, fmt.Errorf("%w: the file holds no model", ErrModelFile)
	case h.ArrayBytes < 0 || h.ArrayBytes%8 != 0 || h.ArrayBytes > math.MaxInt64/2:
		return nil, fmt.Errorf("%w: bad array section length %d", ErrModelFile, h.ArrayBytes)
	case h.Version == FormatVersionPlain && h.Means != nil:
		return nil, fmt.Errorf("%w: a version %d header with means", ErrModelFile, h.Version)
	case h.Version == FormatVersionMeans && h.Means == nil && !slices.ContainsFunc(h.Entries, func(e fileEntry) bool { return e.Weights != nil }):
		return nil, fmt.Errorf("%w: a version %d header without means or weights", ErrModelFile, h.Version)
	}
	if h.Means != nil {
		names := make([]string, len(h.Entries))
		for i, e := range h.Entries {
			names[i] = e.Name
		}
		if err := checkNames(names, h.Means, len(h.Entries)); err != nil {
			return nil, fmt.Errorf("%w: header: %v", ErrModelFile, err)
		}
	}
	return &h, nil
}

// region is a stretch of the array section and the arrays it holds.
type region struct {
	ref  arrayRef
	dsts []*[]float64
}

// checkLayout checks every entry's counts and arrays against each other
// and against the array section: every array has the length its model
// needs, lies in the section, and the arrays tile the section exactly,
// an array shared by entries being one region.
func (h *fileHeader) checkLayout() error {
	_, err := h.regions(make([]payload, len(h.Entries)))
	return err
}

// regions returns the distinct regions of the array section in order,
// each with the arrays of ps (one payload per entry) that it fills.
func (h *fileHeader) regions(ps []payload) ([]region, error) {
	var rs []region
	at := map[int64]int{} // offset → index in rs
	for i := range h.Entries {
		e := &h.Entries[i]
		if err := e.checkCounts(); err != nil {
			return nil, fmt.Errorf("%w: model %d: %v", ErrModelFile, i+1, err)
		}
		want, refs, dsts := e.arrayLengths(), e.Arrays.list(), ps[i].list()
		for j, ref := range refs {
			switch {
			case ref.Length != want[j]:
				return nil, fmt.Errorf("%w: model %d: array %s has %d values, want %d", ErrModelFile, i+1, arrayNames[j], ref.Length, want[j])
			case ref.Offset < 0 || ref.Offset%8 != 0 || ref.Offset > h.ArrayBytes || ref.Length > (h.ArrayBytes-ref.Offset)/8:
				return nil, fmt.Errorf("%w: model %d: array %s lies outside the array section", ErrModelFile, i+1, arrayNames[j])
			case ref.Length == 0:
				*dsts[j] = []float64{}
				continue
			}
			k, seen := at[ref.Offset]
			if !seen {
				k = len(rs)
				at[ref.Offset] = k
				rs = append(rs, region{ref: *ref})
			} else if rs[k].ref.Length != ref.Length {
				return nil, fmt.Errorf("%w: model %d: array %s overlaps another", ErrModelFile, i+1, arrayNames[j])
			}
			rs[k].dsts = append(rs[k].dsts, dsts[j])
		}
	}
	slices.SortFunc(rs, func(a, b region) int { return cmp.Compare(a.ref.Offset, b.ref.Offset) })
	var end int64
	for _, r := range rs {
		if r.ref.Offset != end {
			return nil, fmt.Errorf("%w: the arrays do not tile the array section (a gap or an overlap at byte %d)", ErrModelFile, end)
		}
		end += 8 * r.ref.Length
	}
	if end != h.ArrayBytes {
		return nil, fmt.Errorf("%w: the arrays take %d bytes of an array section of %d", ErrModelFile, end, h.ArrayBytes)
	}
	return rs, nil
}

// floats reads n float64 values. When the file's size is unknown it
// allocates as the values arrive, so that a damaged header cannot make it
// allocate more than about twice what the file holds.
func (br *binaryReader) floats(n int64) ([]float64, error) {
	per := int64(len(br.buf) / 8)
	var out []float64
	if br.known {
		out = make([]float64, n)
		// Fresh pages: 2 MiB ones fault once where 4 KiB ones fault 512 times.
		hugepage.Float64s(out)
	} else {
		out = make([]float64, 0, min(n, per))
	}
	for done := int64(0); done < n; {
		k := min(n-done, per)
		b := br.buf[:8*k]
		if err := br.read(b); err != nil {
			return nil, err
		}
		if !br.known {
			out = slices.Grow(out, int(k))[:done+k]
		}
		dst := out[done : done+k]
		for i := range dst {
			dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i : 8*i+8]))
		}
		done += k
	}
	return out, nil
}

// loadBinary reads a version 4 or 5 file after its magic. With one not
// nil, the file must hold one model, which becomes *one.
func loadBinary(r io.Reader, one *Model) (*loaded, error) {
	br := &binaryReader{r: r, crc: crc32.New(crcTable)}
	h, err := br.header()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(h.Entries))
	for i, e := range h.Entries {
		names[i] = e.Name
	}
	if one != nil && len(h.Entries) > 1 {
		if len(h.Means) == 1 {
			return nil, meanRefused(h.Means, 0)
		}
		return nil, severalModels(names)
	}
	ps := make([]payload, len(h.Entries))
	rs, err := h.regions(ps)
	if err != nil {
		return nil, err
	}
	br.buf = make([]byte, max(8, min(ioChunk, h.ArrayBytes)))
	if pad := arrayStart(br.hlen) - prefixSize - br.hlen; pad > 0 {
		if err := br.read(br.buf[:pad]); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(br.buf[:pad], func(b byte) bool { return b != 0 }) {
			return nil, fmt.Errorf("%w: the padding after the header is not zero", ErrModelFile)
		}
	}
	for _, rg := range rs {
		a, err := br.floats(rg.ref.Length)
		if err != nil {
			return nil, err
		}
		for _, d := range rg.dsts {
			*d = a
		}
	}
	sum := br.crc.Sum32()
	var tail [4]byte
	if err := br.read(tail[:]); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(tail[:]) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch: the file was edited or damaged", ErrModelFile)
	}
	models := make([]*Model, len(ps))
	for i := range ps {
		ps[i].fileMeta = h.Entries[i].fileMeta
		m := one
		if m == nil {
			m = new(Model)
		}
		if err := ps[i].into(m, h.Version); err != nil {
			if len(ps) > 1 {
				return nil, fmt.Errorf("model %d: %w", i+1, err)
			}
			return nil, err
		}
		models[i] = m
	}
	return &loaded{names: names, models: models, means: h.Means}, nil
}

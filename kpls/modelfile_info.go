package kpls

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// FileInfo describes a model file as its header does, without its arrays.
type FileInfo struct {
	Format  string
	Version int
	// Bytes is the length of the file; ArrayBytes the bytes its models'
	// float64 arrays take, an array shared by several models counted once
	// (in files of format versions 1–3 the arrays are text, and
	// ArrayBytes is what they take as float64).
	Bytes, ArrayBytes int64
	// Checksum names the file's checksum: "crc32c" over the whole file
	// (versions 4 and 5; Inspect does not read the arrays, so Load
	// verifies it) or "sha256" over the model (versions 1–3; verified).
	Checksum string
	Models   []ModelInfo
	// Means groups Models into means (a file of version 5, SaveMeans):
	// the first Means[0] models are one mean, and so on; nil in files of
	// plain models.
	Means []int
}

// ModelInfo describes one model of a file.
type ModelInfo struct {
	// Name is the model's name in the file, typically its target's; empty
	// if it has none (always, in files of format versions 1–3).
	Name string
	// Options are the method the model was fitted with, resolved: the
	// kernel with its parameters, the components, the DoF method.
	Options Options
	// FeatureNames and TargetName are the names the data gave (Data).
	FeatureNames                               []string
	TargetName                                 string
	N, D                                       int
	ValidComponents, KrylovSteps, LanczosSteps int
	Chosen                                     Choice
	Storage                                    Storage
	Stop                                       Stop
	Warnings                                   []Warning
	Arrays                                     []ArrayInfo
	// WeightTotal is N = Σw of a weighted model, zero for an unweighted one.
	WeightTotal float64
}

// ArrayInfo places one array of a model in its file.
type ArrayInfo struct {
	Name   string
	Length int64 // float64 values
	// Offset is the array's first byte in the file; −1 in files of format
	// versions 1–3, whose arrays are JSON text.
	Offset int64
	// Shared is true when the array is stored once for this model and an
	// earlier one of the file.
	Shared bool
}

// Inspect reads a model file's header: the format, and for each model its
// name, options, sizes, components, choice and arrays. A file of format
// version 4 is read up to the end of its header only, with the header
// checked as Load checks it; files of versions 1–3 are JSON and read
// whole. Errors wrap ErrModelFile.
func Inspect(r io.Reader) (*FileInfo, error) {
	head := make([]byte, len(binaryMagic))
	k, err := io.ReadFull(r, head)
	switch {
	case err == nil && string(head) == binaryMagic:
		return inspectBinary(r)
	case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	b, err := io.ReadAll(io.MultiReader(bytes.NewReader(head[:k]), r))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	raw, version, err := openEnvelope(b)
	if err != nil {
		return nil, err
	}
	var f fileMeta // the arrays are skipped
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	info := &FileInfo{Format: FormatName, Version: version, Bytes: int64(len(b)), Checksum: "sha256"}
	mi, err := f.info("", version)
	if err != nil {
		return nil, err
	}
	for i, n := range f.arrayLengths() {
		mi.Arrays = append(mi.Arrays, ArrayInfo{Name: arrayNames[i], Length: n, Offset: -1})
		info.ArrayBytes += 8 * n
	}
	info.Models = []ModelInfo{mi}
	return info, nil
}

func inspectBinary(r io.Reader) (*FileInfo, error) {
	br := &binaryReader{r: r, crc: crc32.New(crcTable)}
	h, err := br.header()
	if err != nil {
		return nil, err
	}
	start := arrayStart(br.hlen)
	info := &FileInfo{Format: h.Format, Version: h.Version, Bytes: start + h.ArrayBytes + 4, ArrayBytes: h.ArrayBytes, Checksum: "crc32c", Means: h.Means}
	seen := map[int64]bool{}
	for i := range h.Entries {
		e := &h.Entries[i]
		mi, err := e.info(e.Name, h.Version)
		if err != nil {
			return nil, fmt.Errorf("model %d: %w", i+1, err)
		}
		mine := map[int64]bool{}
		for j, ref := range e.Arrays.list() {
			a := ArrayInfo{Name: arrayNames[j], Length: ref.Length, Offset: start + ref.Offset}
			if ref.Length > 0 {
				a.Shared = seen[ref.Offset] && !mine[ref.Offset]
				mine[ref.Offset] = true
			}
			mi.Arrays = append(mi.Arrays, a)
		}
		for o := range mine {
			seen[o] = true
		}
		info.Models = append(info.Models, mi)
	}
	return info, nil
}

// info describes the model f describes; its counts must have been checked.
func (f *fileMeta) info(name string, version int) (ModelInfo, error) {
	if err := f.checkCounts(); err != nil {
		return ModelInfo{}, fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	if len(f.Stats) != f.Valid+1 {
		return ModelInfo{}, fmt.Errorf("%w: statistics for %d components, want %d", ErrModelFile, len(f.Stats), f.Valid+1)
	}
	o, err := f.Options.resolved(f.N, f.D)
	if err != nil {
		return ModelInfo{}, fmt.Errorf("%w: options: %v", ErrModelFile, err)
	}
	if version < 2 {
		o.Criterion = GMDL
	}
	// The choice as Load's model would report it.
	chosen := (&Model{stats: f.stats(), chosen: f.Chosen}).Chosen()
	mi := ModelInfo{Name: name, Options: o.method(), FeatureNames: o.FeatureNames, TargetName: o.TargetName, N: f.N, D: f.D, ValidComponents: f.Valid, KrylovSteps: f.Steps,
		LanczosSteps: f.Lanczos, Chosen: chosen, Storage: f.Storage, Warnings: f.Warnings}
	if f.Stop != nil {
		mi.Stop = *f.Stop
	}
	for _, w := range f.Weights {
		mi.WeightTotal += w
	}
	return mi, nil
}

package kpls

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// encodeJSON writes m as format version 3 did (the last JSON writer), for
// comparing the formats.
func encodeJSON(m *Model) ([]byte, error) {
	raw, err := json.Marshal(payloadOf(m))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	var buf bytes.Buffer
	err = json.NewEncoder(&buf).Encode(envelope{Format: FormatName, Version: jsonVersion, SHA256: hex.EncodeToString(sum[:]), Model: raw})
	return buf.Bytes(), err
}

// syntheticModel is a model of the shape of a fit of n rows, d features
// and comp components (steps Krylov steps), with random numbers for its
// arrays: the shape is what file sizes and load times depend on.
func syntheticModel(tb testing.TB, n, d, comp int) *Model {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(comp)))
	fill := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	o, err := cfg(Options{Kernel: RBF{Width: 0.1}, Components: comp, DoF: DoFLanczos, Lanczos: comp}).resolved(n, d)
	if err != nil {
		tb.Fatal(err)
	}
	m := &Model{opts: o, n: n, d: d, scale: &scaling{Mean: fill(d), Scale: make([]float64, d)}, x: fill(n * d), yMean: 1, yc: fill(n),
		colMean: fill(n), grand: 0.5, valid: comp, steps: comp, lanczos: comp,
		alpha: fill((comp + 1) * n), t: fill(comp * n), g: fill(comp * n), l: fill(comp * comp),
		chosen: &Choice{Criterion: GCV, M: comp / 10}, storage: StorageFloat32}
	for i := range m.scale.Scale {
		m.scale.Scale[i] = 1 + float64(i)
	}
	for i := 0; i <= comp; i++ {
		v := float64(n - i)
		m.stats = append(m.stats, Stats{M: i, RSS: v, YhatSq: v, DoF: v, DoFSE: v, DoFClipped: v, Sigma: v, AIC: v, BIC: v, GMDL: v, GCV: v})
	}
	return m
}

// benchFormats are the formats the model-file benchmarks compare; the
// JSON format (versions 1–3) is read only, and measured on the smaller
// model (on protein's it takes about a minute per load).
func benchFormats(b *testing.B, run func(b *testing.B, m *Model, json bool)) {
	for _, c := range []struct {
		n, comp int
		json    bool
	}{{2000, 300, true}, {2000, 300, false}, {36584, 300, false}} {
		format := "binary"
		if c.json {
			format = "json"
		}
		b.Run(fmt.Sprintf("format=%s/n=%d/m=%d", format, c.n, c.comp), func(b *testing.B) {
			run(b, syntheticModel(b, c.n, 9, c.comp), c.json)
		})
	}
}

// BenchmarkLoad measures Load of a file of each format; the bytes per
// second are those of the file. The protein model of issue #26 (36,584
// rows, 300 components) is format=binary/n=36584/m=300.
func BenchmarkLoad(b *testing.B) {
	benchFormats(b, func(b *testing.B, m *Model, json bool) {
		var file []byte
		var err error
		if json {
			file, err = encodeJSON(m)
		} else {
			file, err = m.marshal()
		}
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := loadModel(bytes.NewReader(file)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSave measures writing a file of each format to memory.
func BenchmarkSave(b *testing.B) {
	benchFormats(b, func(b *testing.B, m *Model, json bool) {
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			var err error
			if json {
				var file []byte
				file, err = encodeJSON(m)
				buf.Write(file)
			} else {
				err = m.save(&buf)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(buf.Len()))
	})
}

package kpls

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fuzzMatrix is a row-major mat.Matrix that, unlike mat.Dense, may have
// no rows or no columns.
type fuzzMatrix struct {
	r, c int
	v    []float64
}

func (m fuzzMatrix) Dims() (int, int)        { return m.r, m.c }
func (m fuzzMatrix) At(i, j int) float64     { return m.v[i*m.c+j] }
func (m fuzzMatrix) T() mat.Matrix           { return mat.Transpose{Matrix: m} }
func (m fuzzMatrix) row(i int) fuzzMatrix    { return fuzzMatrix{1, m.c, m.v[i*m.c : (i+1)*m.c]} }
func newFuzzMatrix(r, c int) fuzzMatrix      { return fuzzMatrix{r, c, make([]float64, r*c)} }
func (m fuzzMatrix) set(i, j int, v float64) { m.v[i*m.c+j] = v }

// fuzzModelFile returns the file of a small fitted model (n = 6, d = 2).
func fuzzModelFile(t testing.TB) []byte {
	t.Helper()
	x := newFuzzMatrix(6, 2)
	y := make([]float64, 6)
	for i := range y {
		a, b := float64(i)/5, float64(i*i%7)/7
		x.set(i, 0, a)
		x.set(i, 1, b)
		y[i] = math.Sin(3*a) + b
	}
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, Options{Components: 2, DoF: DoFLanczos}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fuzzDamaged returns the three kinds of damage Load must detect.
func fuzzDamaged(t testing.TB, file []byte) (edited, truncated, newer []byte) {
	t.Helper()
	if !bytes.HasPrefix(file, []byte("KPLSMDL\x00")) {
		t.Fatal("not a binary model file")
	}
	// Flip a bit of the last value of the last array, before the checksum.
	edited = bytes.Clone(file)
	edited[len(edited)-6] ^= 0x10
	truncated = file[:len(file)/2]
	newer = bytes.Clone(file)
	binary.LittleEndian.PutUint32(newer[8:], 99)
	return edited, truncated, newer
}

// TestFuzzLoadRefusesDamage checks that an edited, a truncated and a newer
// model file are refused with ErrModelFile and a message that says why.
func TestFuzzLoadRefusesDamage(t *testing.T) {
	file := fuzzModelFile(t)
	if _, err := loadModel(bytes.NewReader(file)); err != nil {
		t.Fatalf("the intact file: %v", err)
	}
	edited, truncated, newer := fuzzDamaged(t, file)
	for _, tc := range []struct {
		name string
		file []byte
		says []string // any of these
	}{
		{"edited", edited, []string{"checksum"}},
		{"truncated", truncated, []string{"truncated"}},
		{"newer", newer, []string{"newer version", "is newer than"}},
		{"empty", nil, []string{"empty"}},
		{"not a model file", []byte("KPLS"), []string{"not a model file"}},
	} {
		for _, r := range []io.Reader{bytes.NewReader(tc.file), struct{ io.Reader }{bytes.NewReader(tc.file)}} {
			_, err := loadModel(r)
			if !errors.Is(err, ErrModelFile) {
				t.Errorf("%s: %v, want ErrModelFile", tc.name, err)
				continue
			}
			found := false
			for _, s := range tc.says {
				found = found || strings.Contains(err.Error(), s)
			}
			if !found {
				t.Errorf("%s: %q says none of %q", tc.name, err, tc.says)
			}
		}
	}
}

// fuzzResum gives file the checksum of its own contents, so that
// mutations get past the checksum to the decoder and the shape checks:
// the CRC-32C at the end of a binary file, the SHA-256 of the payload of a
// JSON file (format versions 1–3). Other files are returned unchanged.
func fuzzResum(file []byte) []byte {
	if bytes.HasPrefix(file, []byte("KPLSMDL\x00")) {
		if len(file) < 20 {
			return file
		}
		out := bytes.Clone(file)
		binary.LittleEndian.PutUint32(out[len(out)-4:], crc32.Checksum(out[:len(out)-4], crc32.MakeTable(crc32.Castagnoli)))
		return out
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(file, &env) != nil || env["model"] == nil {
		return file
	}
	// Marshal compacts the payload; sum what will be written.
	compact, err := json.Marshal(env["model"])
	if err != nil {
		return file
	}
	sum := sha256.Sum256(compact)
	env["sha256"], _ = json.Marshal(hex.EncodeToString(sum[:]))
	out, err := json.Marshal(env)
	if err != nil {
		return file
	}
	return out
}

// fuzzTwoModels returns a file of two models sharing their inputs.
func fuzzTwoModels(t testing.TB, file []byte) []byte {
	t.Helper()
	m, err := loadModel(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := saveModels(&buf, []string{"a", "b"}, []*Model{m, m}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzLoad feeds arbitrary bytes to the model-file reader, through a
// reader whose size it knows and through one whose size it does not;
// with resum the checksum is fixed up first so that the contents
// themselves are fuzzed. Load and LoadModels must not panic and must
// agree, and a model they accept must predict without panicking,
// returning an error or finite values.
func FuzzLoad(f *testing.F) {
	file := fuzzModelFile(f)
	edited, truncated, newer := fuzzDamaged(f, file)
	old, err := os.ReadFile("testdata/oldformat/model-v2-linear.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range [][]byte{file, edited, truncated, newer, fuzzTwoModels(f, file), fuzzMeanFile(f, file), fuzzWeightedFile(f), old, []byte("\x00\xffkpls-model{]"), nil} {
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, b []byte, resum bool) {
		if resum {
			b = fuzzResum(b)
		}
		// Every file reads as means, or is refused as a model file.
		if _, means, errMeans := loadMeans(bytes.NewReader(b)); errMeans != nil {
			if !errors.Is(errMeans, ErrModelFile) {
				t.Fatalf("LoadMeans refused with %v, not ErrModelFile", errMeans)
			}
		} else {
			for _, a := range means {
				fuzzPredictMean(t, a)
			}
		}
		names, models, err := loadModels(bytes.NewReader(b))
		_, _, errHidden := loadModels(struct{ io.Reader }{bytes.NewReader(b)})
		m, errOne := loadModel(bytes.NewReader(b))
		if err != nil {
			for _, e := range []error{err, errHidden, errOne} {
				if !errors.Is(e, ErrModelFile) {
					t.Fatalf("refused with %v, not ErrModelFile", e)
				}
			}
			return
		}
		switch {
		case errHidden != nil:
			t.Fatalf("LoadModels read the file from a sized reader but not from another: %v", errHidden)
		case len(names) != len(models) || len(models) == 0:
			t.Fatalf("%d names for %d models", len(names), len(models))
		case len(models) == 1 && errOne != nil, len(models) > 1 && !errors.Is(errOne, ErrModelFile):
			t.Fatalf("LoadModels read %d models, Load said %v", len(models), errOne)
		case len(models) == 1 && m.validComponents() != models[0].validComponents():
			t.Fatalf("Load and LoadModels read different models")
		}
		for _, m := range models {
			fuzzPredict(t, m)
		}
	})
}

// fuzzPredictMean predicts with a loaded mean, which must not panic and
// must return an error or finite values.
func fuzzPredictMean(t *testing.T, a *Mean) {
	d := a.Members()[0].d
	x := newFuzzMatrix(1, d)
	p, err := a.predict(context.Background(), x)
	if err != nil {
		return
	}
	for _, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("a loaded mean predicts %v", v)
		}
	}
}

// fuzzMeanFile is file's model averaged with itself: a version 5 file.
func fuzzMeanFile(t testing.TB, file []byte) []byte {
	t.Helper()
	m, err := loadModel(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewMean(m, m)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := saveMeans(&buf, []string{"y"}, []*Mean{a}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fuzzWeightedFile is a small weighted model's file (version 5).
func fuzzWeightedFile(t testing.TB) []byte {
	t.Helper()
	x := newFuzzMatrix(6, 1)
	y := []float64{0.1, 0.5, 0.2, 0.9, 0.4, 0.7}
	for i := range y {
		x.set(i, 0, float64(i))
	}
	m, err := Fit(context.Background(), Data{X: x, Y: vec(y), Weights: []float64{1, 2, 0, 1, 3, 1}}, Options{Components: 2, DoF: DoFLanczos}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fuzzPredict predicts with a loaded model, which must not panic and
// must return an error or finite values.
func fuzzPredict(t *testing.T, m *Model) {
	d := m.d
	x := newFuzzMatrix(2, d)
	for j := range d {
		x.set(0, j, float64(j))
		x.set(1, j, -0.5)
	}
	for _, c := range []int{0, m.validComponents(), m.ComponentsBy(GMDL), -1, m.validComponents() + 1} {
		p, err := m.predictAt(context.Background(), x, c)
		if err != nil {
			continue
		}
		for i, v := range p {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("Predict m=%d row %d of a loaded model: %v", c, i, v)
			}
		}
	}
}

// fuzzSpecial are values the fit must cope with (refuse or handle).
var fuzzSpecial = [...]float64{
	math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
	1e300, 1e-300, 0, 1, -1, 5e-324, 1e150,
}

// fuzzReader hands out the fuzz bytes, zeros once they run out.
type fuzzReader []byte

func (r *fuzzReader) byte() byte {
	if len(*r) == 0 {
		return 0
	}
	b := (*r)[0]
	*r = (*r)[1:]
	return b
}

// value is a special value, a float64 straight from 8 bytes, or a small
// number; the same byte repeated gives a constant column.
func (r *fuzzReader) value() float64 {
	b := r.byte()
	switch {
	case int(b) < 2*len(fuzzSpecial):
		return fuzzSpecial[int(b)%len(fuzzSpecial)]
	case b < 40:
		var w [8]byte
		for i := range w {
			w[i] = r.byte()
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(w[:]))
	default:
		return float64(int(b)-148) / 16
	}
}

// FuzzFit fits small random shapes with random options: Fit must not
// panic and must return an error or finite statistics, and an accepted
// model must predict without panicking.
func FuzzFit(f *testing.F) {
	f.Add([]byte{5, 1, 3, 0, 0})
	f.Add([]byte{8, 2, 2, 0x41, 1, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 210, 220})
	f.Add([]byte{12, 3, 7, 0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})    // NaN everywhere
	f.Add([]byte{6, 4, 1, 0x05, 200, 200, 200, 200, 200, 200, 200, 200}) // constant
	f.Add([]byte{4, 2, 0, 0x06, 3, 4, 3, 4, 3, 4, 3, 4, 9, 10, 11, 12})  // huge values
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{3, 0, 1, 0x02, 60, 61, 62})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := fuzzReader(data)
		n, d := int(r.byte()%13), int(r.byte()%5)
		comps := int(r.byte()%8) - 1
		flags := r.byte()
		var o Options
		o.Components = comps
		o.RawFeatures = flags&0x10 != 0
		o.DoF = [...]DoFMethod{DoFApprox, DoFLanczos, DoFExact, DoFNone}[flags>>5&3]
		var k Kernel = RBF{}
		if flags&0x80 != 0 {
			k = [...]Kernel{Linear{}, Polynomial{Degree: 2, Offset: 1}, Laplacian{}, Matern{Nu: 1.5}}[r.byte()%4]
		}
		switch flags & 0xf {
		case 0: // the default width
		case 1:
			k = WithWidth(k, -1)
		case 2:
			k = WithWidth(k, 1e-300)
		case 3:
			k = WithWidth(k, 1e300)
		default:
			k = WithWidth(k, r.value())
		}
		o.Kernel = k
		x := newFuzzMatrix(n, d)
		for i := range n {
			for j := range d {
				x.set(i, j, r.value())
			}
		}
		y := make([]float64, n)
		for i := range y {
			y[i] = r.value()
		}
		m, err := Fit(context.Background(), Data{X: x, Y: vec(y)}, o, nil)
		if err != nil {
			return
		}
		for _, s := range m.Stats() {
			if math.IsNaN(s.RSS) || math.IsInf(s.RSS, 0) {
				t.Fatalf("n=%d d=%d %+v: RSS for m=%d is %v", n, d, o, s.M, s.RSS)
			}
		}
		c := m.ComponentsBy(GMDL)
		if _, err := m.predictAt(context.Background(), x, c); err != nil && n > 0 {
			t.Logf("Predict on the training data: %v", err)
		}
		if n > 0 {
			_, _ = m.predictBands(context.Background(), x.row(0), m.validComponents(), bandOpts{})
		}
	})
}

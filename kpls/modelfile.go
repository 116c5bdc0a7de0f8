package kpls

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// FormatName and FormatVersion identify model files. Version 4 is the
// binary layout described in modelfile_binary.go: a JSON header, then the arrays as
// little-endian float64, checksummed with CRC-32C; it holds one model or
// several (one per target). Version 5 is the same layout whose header
// also groups the models into means (SaveMeans); it is written only for a
// mean of several models, so that every other file stays readable by the
// programs that read version 4, and those refuse a mean rather than read
// one of its models as the whole. Version 6 adds the RMSECV behind a
// cross-validated choice (Choice.RMSECV, which prediction intervals use)
// and is written only for models that carry one, Select's. Version 7 adds
// the features' weights (Options.Relevance, in the options record; the
// scaling stays unweighed and the weights apply after it) and is written
// only for models that weigh their features. Versions 1 to 3 were JSON
// documents holding one model; they are still read. A file of a newer
// version is refused rather than misread. FormatVersion is the newest
// version read.
const (
	FormatName    = "kpls-model"
	FormatVersion = 7
	// FormatVersionRMSECV is the version written for models with a
	// cross-validated choice's RMSECV and no feature weights.
	FormatVersionRMSECV = 6
	// FormatVersionPlain is the version written for plain models (no
	// mean of several).
	FormatVersionPlain = 4
	// FormatVersionMeans is the version written for means and weighted
	// models without a cross-validated choice's RMSECV.
	FormatVersionMeans = 5
)

// fileMeta is what a model file says about one model besides its arrays:
// the JSON of format versions 1–3 without the arrays, and an entry of a
// version 4 header.
type fileMeta struct {
	Options  config      `json:"options"`
	N        int         `json:"n"`
	D        int         `json:"d"`
	Scaling  *scaling    `json:"scaling,omitempty"`
	YMean    float64     `json:"y_mean"`
	Grand    float64     `json:"kernel_grand_mean"`
	Valid    int         `json:"valid_components"`
	Steps    int         `json:"krylov_steps"`
	Lanczos  int         `json:"lanczos_steps"`
	Stats    []fileStats `json:"stats"`
	Warnings []Warning   `json:"warnings,omitempty"`
	// Stop is why the fit stopped early (version 3 on).
	Stop *Stop `json:"stop,omitempty"`
	// Chosen is the default m and how it was chosen (version 2 on).
	Chosen *Choice `json:"chosen,omitempty"`
	// Storage is how the fit held the kernel matrix (empty in files
	// written before it was recorded).
	Storage Storage `json:"storage,omitempty"`
	// Weights are a weighted fit's frequency weights of the rows it kept
	// (version 5 only; none in an unweighted model).
	Weights []float64 `json:"weights,omitempty"`
}

// fileArrays are a model's arrays, in the order version 4 files list them.
type fileArrays struct {
	X       []float64 `json:"x"`
	YC      []float64 `json:"y_centred"`
	ColMean []float64 `json:"kernel_col_mean"`
	Alpha   []float64 `json:"alpha"`
	T       []float64 `json:"t"`
	G       []float64 `json:"g"`
	L       []float64 `json:"l"`
}

// arrayNames are the arrays' names in files, in the order of fileArrays.
var arrayNames = [...]string{"x", "y_centred", "kernel_col_mean", "alpha", "t", "g", "l"}

func (a *fileArrays) list() [len(arrayNames)]*[]float64 {
	return [...]*[]float64{&a.X, &a.YC, &a.ColMean, &a.Alpha, &a.T, &a.G, &a.L}
}

// payload is one model as a file holds it.
type payload struct {
	fileMeta
	fileArrays
}

// fileStats is Stats with NaN written as null (JSON has no NaN).
type fileStats struct {
	M                                             int
	RSS, YhatSq                                   float64
	DoF, DoFSE, DoFClipped, Sigma, AIC, BIC, GMDL *float64
	GCV                                           *float64 `json:",omitempty"`
}

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// payloadOf is what a file holds of m.
func payloadOf(m *Model) payload {
	p := payload{
		fileMeta: fileMeta{Options: m.opts, N: m.n, D: m.d, Scaling: m.scale, YMean: m.yMean, Grand: m.grand,
			Valid: m.valid, Steps: m.steps, Lanczos: m.lanczos, Warnings: m.warns, Chosen: m.chosen, Storage: m.storage, Weights: m.weights()},
		fileArrays: fileArrays{X: m.x, YC: m.yc, ColMean: m.colMean, Alpha: m.alpha, T: m.t, G: m.g, L: m.l},
	}
	if m.stop.Reason != StopNone {
		p.Stop = &m.stop
	}
	for _, s := range m.stats {
		p.Stats = append(p.Stats, fileStats{M: s.M, RSS: s.RSS, YhatSq: s.YhatSq, DoF: ptr(s.DoF), DoFSE: ptr(s.DoFSE),
			DoFClipped: ptr(s.DoFClipped), Sigma: ptr(s.Sigma), AIC: ptr(s.AIC), BIC: ptr(s.BIC), GMDL: ptr(s.GMDL), GCV: ptr(s.GCV)})
	}
	return p
}

// stats converts the file's statistics, filling in what older versions
// did not record.
func (f *fileMeta) stats() []Stats {
	out := make([]Stats, 0, len(f.Stats))
	for _, s := range f.Stats {
		st := Stats{M: s.M, RSS: s.RSS, YhatSq: s.YhatSq, DoF: val(s.DoF), DoFSE: val(s.DoFSE),
			DoFClipped: val(s.DoFClipped), Sigma: val(s.Sigma), AIC: val(s.AIC), BIC: val(s.BIC), GMDL: val(s.GMDL), GCV: val(s.GCV)}
		if s.GCV == nil && !math.IsNaN(st.DoFClipped) {
			// Version 1 had no GCV; it follows from RSS and DoF.
			nf := float64(f.N)
			st.GCV = nf * st.RSS / ((nf - st.DoFClipped) * (nf - st.DoFClipped))
		}
		out = append(out, st)
	}
	return out
}

// into checks p and makes it the model m, which must be new; version is
// the file's format version.
func (p *payload) into(m *Model, version int) error {
	if err := p.check(); err != nil {
		return fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	o, err := p.Options.resolved(p.N, p.D)
	if err != nil {
		return fmt.Errorf("%w: options: %v", ErrModelFile, err)
	}
	*m = Model{opts: o, n: p.N, d: p.D, scale: p.Scaling, x: p.X, yMean: p.YMean, yc: p.YC,
		colMean: p.ColMean, grand: p.Grand, valid: p.Valid, steps: p.Steps, lanczos: p.Lanczos,
		alpha: p.Alpha, t: p.T, g: p.G, l: p.L, warns: p.Warnings, chosen: p.Chosen, storage: p.Storage,
		stats: p.stats()}
	if p.Stop != nil {
		m.stop = *p.Stop
	}
	if p.Chosen != nil && p.Chosen.RMSECV != 0 && version < FormatVersionRMSECV {
		return fmt.Errorf("%w: a choice's RMSECV in a file of version %d", ErrModelFile, version)
	}
	if o.Relevance != nil {
		if version < FormatVersion {
			return fmt.Errorf("%w: feature weights (relevance) in a file of version %d", ErrModelFile, version)
		}
		m.scale.weight = o.Relevance // checked against the features by resolved
	}
	if p.Weights != nil {
		if version < FormatVersionMeans {
			return fmt.Errorf("%w: weights in a file of version %d", ErrModelFile, version)
		}
		if err := checkWeights(p.Weights, p.N); err != nil {
			return fmt.Errorf("%w: %v", ErrModelFile, err)
		}
		m.wt, _ = newWeighting(p.Weights)
		if len(m.wt.w) != p.N {
			return fmt.Errorf("%w: a weight of 0 in a model's weights", ErrModelFile)
		}
	}
	if version < 2 {
		// Version 1 recorded no choice; its default was gMDL's.
		m.opts.Criterion = GMDL
	}
	return nil
}

// Save writes the model as a model file of the current format version
// (binary, one model). A model with a Func kernel cannot be saved
// (ErrKernel).
func (m *Model) save(w io.Writer) error {
	return saveModels(w, nil, []*Model{m})
}

// marshal encodes the model as Save writes it.
func (m *Model) marshal() ([]byte, error) {
	f, err := newFileWriter(nil, []*Model{m}, nil)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(int(f.size()))
	if err := f.write(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// saveModels writes several models to one file, each under its name:
// typically one model per target, all fitted to the same training inputs,
// which the file then holds once (any array equal bit for bit to an
// earlier one is stored once). names is nil (no names) or has one name per
// model; the names that are not empty must differ.
func saveModels(w io.Writer, names []string, models []*Model) error {
	f, err := newFileWriter(names, models, nil)
	if err != nil {
		return err
	}
	return f.write(w)
}

// Load reads a model file of any format version holding one model. Files
// that are not model files, are truncated or edited (checksum mismatch),
// come from a newer version, or hold inconsistent shapes are refused with
// ErrModelFile, as is a file holding several models (read those with
// LoadModels).
func loadModel(r io.Reader) (*Model, error) {
	m := new(Model)
	if _, err := load(r, m); err != nil {
		return nil, err
	}
	return m, nil
}

// loadModels reads a model file of any format version: the models it
// holds and their names (empty where the file gives none). Files of
// format versions 1–3 hold one unnamed model. Models read from one file
// share the arrays the file stores once. A file holding a mean of
// several models (SaveMeans) is refused with ErrModelFile: read it with
// LoadMeans.
func loadModels(r io.Reader) (names []string, models []*Model, err error) {
	f, err := load(r, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := f.plain(); err != nil {
		return nil, nil, err
	}
	return f.names, f.models, nil
}

// unmarshal decodes a model file holding one model into m, which
// must be new.
func (m *Model) unmarshal(b []byte) error {
	_, err := load(bytes.NewReader(b), m)
	return err
}

// loaded is the content of a model file: its models and their names,
// and, in a file of means (version 5), how many consecutive models each
// mean holds (nil in other files).
type loaded struct {
	names  []string
	models []*Model
	means  []int
}

// plain returns an error if f holds a mean of several models.
func (f *loaded) plain() error {
	for i, k := range f.means {
		if k > 1 {
			return meanRefused(f.means, i)
		}
	}
	return nil
}

// load reads a file of either encoding. With one not nil, the file must
// hold one model, which becomes *one; a file of several is refused before
// its arrays are read.
func load(r io.Reader, one *Model) (*loaded, error) {
	head := make([]byte, len(binaryMagic))
	k, err := io.ReadFull(r, head)
	switch {
	case err == nil && string(head) == binaryMagic:
		return loadBinary(r, one)
	case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	b, err := io.ReadAll(io.MultiReader(bytes.NewReader(head[:k]), r))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	m := one
	if m == nil {
		m = new(Model)
	}
	if err := loadJSON(b, m); err != nil {
		return nil, err
	}
	return &loaded{names: []string{""}, models: []*Model{m}}, nil
}

// severalModels is the error for a file of several models read as one.
func severalModels(names []string) error {
	list := ""
	if named := strings.Join(names, ", "); strings.Trim(named, ", ") != "" {
		list = " (" + named + ")"
	}
	return fmt.Errorf("%w: the file holds %d models%s, one per target: read it with LoadModels", ErrModelFile, len(names), list)
}

func validCriterion(c Criterion) bool {
	switch c {
	case GMDL, AIC, BIC, GCV, CV:
		return true
	}
	return false
}

// checkCounts verifies the sizes and component counts, on which the
// arrays' lengths depend.
func (f *fileMeta) checkCounts() error {
	n, d := f.N, f.D
	switch {
	case n < 3 || d < 1 || n > 1<<26 || d > 1<<20:
		return fmt.Errorf("bad size n=%d, d=%d", n, d)
	case f.Valid < 0 || f.Valid > n-1 || f.Steps < f.Valid || f.Steps > n || f.Lanczos < 0 || f.Lanczos > n:
		// Lanczos may exceed Steps in a model kept to fewer components
		// (Model.Truncated): it is the M behind the DoF it keeps.
		return fmt.Errorf("bad component counts (valid %d, steps %d, lanczos %d)", f.Valid, f.Steps, f.Lanczos)
	}
	return nil
}

// arrayLengths returns the length each array must have, in the order of
// fileArrays; the counts must have passed checkCounts.
func (f *fileMeta) arrayLengths() [len(arrayNames)]int64 {
	n, d, valid, steps := int64(f.N), int64(f.D), int64(f.Valid), int64(f.Steps)
	return [...]int64{n * d, n, n, (valid + 1) * n, valid * n, valid * n, steps * steps}
}

// check verifies that every array has the size the model needs, so that
// a damaged file fails here and not with an index panic later.
func (p *payload) check() error {
	if err := p.checkCounts(); err != nil {
		return err
	}
	want, arrays := p.arrayLengths(), p.list()
	for i, a := range arrays {
		if int64(len(*a)) != want[i] {
			if i < 3 {
				return fmt.Errorf("training data of the wrong size")
			}
			return fmt.Errorf("coefficients of the wrong size")
		}
	}
	d := p.D
	switch {
	case len(p.Stats) != p.Valid+1:
		return fmt.Errorf("statistics for %d components, want %d", len(p.Stats), p.Valid+1)
	case p.Chosen != nil && (p.Chosen.M < 0 || p.Chosen.M > p.Valid):
		return fmt.Errorf("chosen m = %d outside 0..%d", p.Chosen.M, p.Valid)
	case p.Chosen != nil && !validCriterion(p.Chosen.Criterion):
		return fmt.Errorf("chosen by unknown criterion %q", p.Chosen.Criterion)
	case p.Chosen != nil && p.Chosen.RMSECV != 0 && (p.Chosen.Criterion != CV || !(p.Chosen.RMSECV > 0) || isNaNOrInf(p.Chosen.RMSECV)):
		return fmt.Errorf("chosen by %s with RMSECV %g", p.Chosen.Criterion, p.Chosen.RMSECV)
	case p.Storage != "" && p.Storage != StorageDense && p.Storage != StorageFloat32 && p.Storage != StorageHybrid && p.Storage != StorageMatrixFree && p.Storage != StorageFeatures:
		return fmt.Errorf("unknown kernel storage %q", p.Storage)
	case p.Scaling != nil && (len(p.Scaling.Mean) != d || len(p.Scaling.Scale) != d):
		return fmt.Errorf("standardisation of the wrong size")
	case (p.Scaling == nil) != p.Options.RawFeatures:
		return fmt.Errorf("standardisation does not match the options")
	}
	if isNaNOrInf(p.YMean) || isNaNOrInf(p.Grand) {
		return fmt.Errorf("non-finite mean")
	}
	for _, a := range arrays {
		for _, x := range *a {
			if isNaNOrInf(x) {
				return fmt.Errorf("non-finite value")
			}
		}
	}
	if p.Scaling != nil {
		for _, s := range p.Scaling.Scale {
			if !(s > 0) || isNaNOrInf(s) {
				return fmt.Errorf("non-positive feature scale")
			}
		}
	}
	return nil
}

// Save writes the predictors to one model file, in the format that holds
// them: one per target, all fitted to the same training inputs, which
// the file holds once, each named by its TargetName when there are
// several. A mean of several models makes a file of format version 5;
// models alone (and means of one), version 4. A model with a Func kernel
// cannot be saved (ErrKernel).
func Save(w io.Writer, ps ...Predictor) error {
	if len(ps) == 0 {
		return fmt.Errorf("%w: nothing to save", ErrShape)
	}
	means := make([]*Mean, len(ps))
	var names []string
	for i, p := range ps {
		switch v := p.(type) {
		case *Model:
			if v == nil {
				return fmt.Errorf("%w: predictor %d is nil", ErrShape, i+1)
			}
			means[i] = &Mean{members: []*Model{v}}
		case *Mean:
			if v == nil {
				return fmt.Errorf("%w: predictor %d is nil", ErrShape, i+1)
			}
			means[i] = v
		default:
			return fmt.Errorf("%w: predictor %d is a %T, not a *Model or *Mean", ErrShape, i+1, p)
		}
		if len(ps) > 1 {
			names = append(names, means[i].members[0].opts.TargetName)
		}
	}
	return saveMeans(w, names, means)
}

// Load reads a model file that any version of kpls wrote: its predictors,
// one per target, each a *Model, or a *Mean where the file holds a mean
// of several models (Select's default). Models read from one file share
// the arrays the file stores once. Files that are not model files, are
// truncated or edited (checksum mismatch), come from a newer version, or
// hold inconsistent shapes are refused with ErrModelFile.
func Load(r io.Reader) ([]Predictor, error) {
	f, err := load(r, nil)
	if err != nil {
		return nil, err
	}
	var ps []Predictor
	at := 0
	for i, k := range f.counts() {
		if k == 1 {
			ps = append(ps, f.models[at])
		} else {
			a, err := NewMean(f.models[at : at+k]...)
			if err != nil {
				return nil, fmt.Errorf("%w: mean %d: %v", ErrModelFile, i+1, err)
			}
			ps = append(ps, a)
		}
		at += k
	}
	return ps, nil
}

// counts is how many consecutive models each entry of the file holds:
// its means' sizes, or one per model in a file without means.
func (f *loaded) counts() []int {
	if f.means != nil {
		return f.means
	}
	counts := make([]int, len(f.models))
	for i := range counts {
		counts[i] = 1
	}
	return counts
}

package kpls

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// FormatName and FormatVersion identify model files. A file of a newer
// version is refused rather than misread.
const (
	FormatName    = "kpls-model"
	FormatVersion = 3
)

// envelope is the file: the payload as raw JSON and its SHA-256, so that a
// truncated or edited file is detected.
type envelope struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	SHA256  string          `json:"sha256"`
	Model   json.RawMessage `json:"model"`
}

// payload holds what predictions and bands need.
type payload struct {
	Options  Options     `json:"options"`
	N        int         `json:"n"`
	D        int         `json:"d"`
	Scaling  *scaling    `json:"scaling,omitempty"`
	X        []float64   `json:"x"`
	YMean    float64     `json:"y_mean"`
	YC       []float64   `json:"y_centred"`
	ColMean  []float64   `json:"kernel_col_mean"`
	Grand    float64     `json:"kernel_grand_mean"`
	Valid    int         `json:"valid_components"`
	Steps    int         `json:"krylov_steps"`
	Lanczos  int         `json:"lanczos_steps"`
	Alpha    []float64   `json:"alpha"`
	T        []float64   `json:"t"`
	G        []float64   `json:"g"`
	L        []float64   `json:"l"`
	Stats    []fileStats `json:"stats"`
	Warnings []Warning   `json:"warnings,omitempty"`
	// Stop is why the fit stopped early (version 3 on).
	Stop *Stop `json:"stop,omitempty"`
	// Chosen is the default m and how it was chosen (version 2 on).
	Chosen *Choice `json:"chosen,omitempty"`
	// Storage is how the fit held the kernel matrix (empty in files
	// written before it was recorded).
	Storage Storage `json:"storage,omitempty"`
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

// Save writes the model as a versioned, checksummed JSON file.
func (m *Model) Save(w io.Writer) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// MarshalBinary encodes the model in the model-file format.
func (m *Model) MarshalBinary() ([]byte, error) {
	p := payload{
		Options: m.opts, N: m.n, D: m.d, Scaling: m.scale, X: m.x, YMean: m.yMean, YC: m.yc,
		ColMean: m.colMean, Grand: m.grand, Valid: m.valid, Steps: m.steps, Lanczos: m.lanczos,
		Alpha: m.alpha, T: m.t, G: m.g, L: m.l, Warnings: m.warns, Chosen: m.chosen, Storage: m.storage,
	}
	if m.stop.Reason != StopNone {
		p.Stop = &m.stop
	}
	for _, s := range m.stats {
		p.Stats = append(p.Stats, fileStats{M: s.M, RSS: s.RSS, YhatSq: s.YhatSq, DoF: ptr(s.DoF), DoFSE: ptr(s.DoFSE),
			DoFClipped: ptr(s.DoFClipped), Sigma: ptr(s.Sigma), AIC: ptr(s.AIC), BIC: ptr(s.BIC), GMDL: ptr(s.GMDL), GCV: ptr(s.GCV)})
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	err = enc.Encode(envelope{Format: FormatName, Version: FormatVersion, SHA256: hex.EncodeToString(sum[:]), Model: raw})
	return buf.Bytes(), err
}

// Load reads a model written by Save. Files that are not model files,
// are truncated or edited (checksum mismatch), come from a newer version,
// or hold inconsistent shapes are refused with ErrModelFile.
func Load(r io.Reader) (*Model, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	m := new(Model)
	if err := m.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return m, nil
}

// UnmarshalBinary decodes a model file into m, which must be new.
func (m *Model) UnmarshalBinary(b []byte) error {
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		if len(bytes.TrimSpace(b)) == 0 {
			return fmt.Errorf("%w: the file is empty", ErrModelFile)
		}
		return fmt.Errorf("%w: not JSON or truncated (%v)", ErrModelFile, err)
	}
	if env.Format != FormatName {
		return fmt.Errorf("%w: format %q, want %q", ErrModelFile, env.Format, FormatName)
	}
	if env.Version > FormatVersion {
		return fmt.Errorf("%w: format version %d is newer than this program reads (%d); upgrade kpls", ErrModelFile, env.Version, FormatVersion)
	}
	if env.Version < 1 {
		return fmt.Errorf("%w: bad format version %d", ErrModelFile, env.Version)
	}
	sum := sha256.Sum256(env.Model)
	if hex.EncodeToString(sum[:]) != env.SHA256 {
		return fmt.Errorf("%w: checksum mismatch: the file was edited or damaged", ErrModelFile)
	}
	var p payload
	dec := json.NewDecoder(bytes.NewReader(env.Model))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	if err := p.check(); err != nil {
		return fmt.Errorf("%w: %v", ErrModelFile, err)
	}
	o, err := p.Options.resolved(p.N, p.D)
	if err != nil {
		return fmt.Errorf("%w: options: %v", ErrModelFile, err)
	}
	*m = Model{opts: o, n: p.N, d: p.D, scale: p.Scaling, x: p.X, yMean: p.YMean, yc: p.YC,
		colMean: p.ColMean, grand: p.Grand, valid: p.Valid, steps: p.Steps, lanczos: p.Lanczos,
		alpha: p.Alpha, t: p.T, g: p.G, l: p.L, warns: p.Warnings, chosen: p.Chosen, storage: p.Storage}
	if p.Stop != nil {
		m.stop = *p.Stop
	}
	if env.Version < 2 {
		// Version 1 recorded no choice; its default was gMDL's.
		m.opts.Criterion = GMDL
	}
	for _, s := range p.Stats {
		st := Stats{M: s.M, RSS: s.RSS, YhatSq: s.YhatSq, DoF: val(s.DoF), DoFSE: val(s.DoFSE),
			DoFClipped: val(s.DoFClipped), Sigma: val(s.Sigma), AIC: val(s.AIC), BIC: val(s.BIC), GMDL: val(s.GMDL), GCV: val(s.GCV)}
		if s.GCV == nil && !math.IsNaN(st.DoFClipped) {
			// Version 1 had no GCV; it follows from RSS and DoF.
			nf := float64(p.N)
			st.GCV = nf * st.RSS / ((nf - st.DoFClipped) * (nf - st.DoFClipped))
		}
		m.stats = append(m.stats, st)
	}
	return nil
}

func validCriterion(c Criterion) bool {
	switch c {
	case GMDL, AIC, BIC, GCV, CV:
		return true
	}
	return false
}

// check verifies that every array has the size the model needs, so that
// a damaged file fails here and not with an index panic later.
func (p *payload) check() error {
	n, d := p.N, p.D
	switch {
	case n < 3 || d < 1 || n > 1<<26 || d > 1<<20:
		return fmt.Errorf("bad size n=%d, d=%d", n, d)
	case p.Valid < 0 || p.Valid > n-1 || p.Steps < p.Valid || p.Steps > n || p.Lanczos < 0 || p.Lanczos > p.Steps:
		return fmt.Errorf("bad component counts (valid %d, steps %d, lanczos %d)", p.Valid, p.Steps, p.Lanczos)
	case len(p.X) != n*d, len(p.YC) != n, len(p.ColMean) != n:
		return fmt.Errorf("training data of the wrong size")
	case len(p.Alpha) != (p.Valid+1)*n, len(p.T) != p.Valid*n, len(p.G) != p.Valid*n, len(p.L) != p.Steps*p.Steps:
		return fmt.Errorf("coefficients of the wrong size")
	case len(p.Stats) != p.Valid+1:
		return fmt.Errorf("statistics for %d components, want %d", len(p.Stats), p.Valid+1)
	case p.Chosen != nil && (p.Chosen.M < 0 || p.Chosen.M > p.Valid):
		return fmt.Errorf("chosen m = %d outside 0..%d", p.Chosen.M, p.Valid)
	case p.Chosen != nil && !validCriterion(p.Chosen.Criterion):
		return fmt.Errorf("chosen by unknown criterion %q", p.Chosen.Criterion)
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
	for _, v := range [][]float64{p.X, p.YC, p.ColMean, p.Alpha, p.T, p.G, p.L} {
		for _, x := range v {
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

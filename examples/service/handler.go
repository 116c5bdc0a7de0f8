package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// Defaults for the Server's limits.
const (
	DefaultMaxBytes  = 8 << 20
	DefaultMaxPoints = 100_000
	DefaultTimeout   = 30 * time.Second
	// DefaultBandBudget bounds n × points × m of one band request. At
	// n = 8192 and m = 10 it admits 610 points: about 9 s on an idle
	// two-core machine (14 s per 1000 points), under a third of the default
	// timeout, leaving room for a loaded machine (README, "Load test").
	DefaultBandBudget = 5e7
)

// Server answers prediction requests for one model. A kpls.Model is
// immutable and safe for concurrent use, so requests share it without
// locks. The limits may be changed after NewServer, before serving.
type Server struct {
	// MaxBytes bounds a request body; larger ones get 413.
	MaxBytes int64
	// MaxPoints bounds the rows of one request. Plain predictions do not
	// look at the context, so this is what bounds their time.
	MaxPoints int
	// BandBudget bounds n × points × m for a request with bands; a larger
	// one is refused with 422 before any work, rather than running into
	// Timeout after burning CPU.
	BandBudget float64
	// Timeout bounds a request: waiting for a work slot and computing
	// confidence bands (which check the context between steps).
	Timeout time.Duration
	// Log receives one line per request; nil means slog.Default().
	Log *slog.Logger
	// MaxDecodes bounds the request bodies being read at once (others
	// wait within Timeout before a byte of theirs is read); 0 means two
	// per core. Read on the first request.
	MaxDecodes int

	model       *kpls.Model // the first of models, whose inputs all share
	features    []string
	defaultComp int
	// models and targets, with a file of several models (one per target):
	// every request predicts each of them; nil with one model.
	models  []*kpls.Model
	targets []string
	// means, aligned with the targets (one entry for a file of one
	// target), holds the mean a target predicts with when its file
	// averages several models (kpls select --average-within); nil
	// entries, or nil, for plain models. The target's model is then the
	// mean's first.
	means []*kpls.Mean
	// slots bounds the requests computing at once: each can use every core
	// (the band products are parallel), and each holds its working memory.
	slots   chan struct{}
	adm     admission // decode slots and cost model (limits.go)
	metrics *metrics
	mux     *http.ServeMux
}

// NewServer returns a server for m. Requests that give no number of
// components get the one gMDL selects.
func NewServer(m *kpls.Model) *Server {
	s := &Server{
		MaxBytes:    DefaultMaxBytes,
		MaxPoints:   DefaultMaxPoints,
		BandBudget:  DefaultBandBudget,
		Timeout:     DefaultTimeout,
		model:       m,
		defaultComp: m.Chosen().M,
		slots:       make(chan struct{}, runtime.GOMAXPROCS(0)),
		metrics:     newMetrics(),
	}
	if f := m.Options().FeatureNames; len(f) == m.D() {
		s.features = f
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("/predict", s.predict)
	s.mux.HandleFunc("/healthz", s.healthz)
	s.mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint %s (try POST /predict, GET /healthz or GET /metrics)", echo(r.URL.Path))
	})
	return s
}

// NewTargetsServer returns a server for the models of one file of
// several (kpls.LoadModels: one per target, sharing their inputs). Every
// request predicts every target, each with its own recorded choice of m
// unless the request gives components.
func NewTargetsServer(targets []string, models []*kpls.Model) (*Server, error) {
	if len(models) == 0 || len(targets) != len(models) {
		return nil, fmt.Errorf("%d target names for %d models", len(targets), len(models))
	}
	for i, m := range models[1:] {
		if m.N() != models[0].N() || m.D() != models[0].D() {
			return nil, fmt.Errorf("model %q has %d×%d inputs, model %q %d×%d: the models of one file share their inputs",
				targets[i+1], m.N(), m.D(), targets[0], models[0].N(), models[0].D())
		}
	}
	s := NewServer(models[0])
	if len(models) > 1 {
		s.models, s.targets = models, targets
	}
	return s, nil
}

// NewMeansServer returns a server for the means of one file
// (kpls.LoadMeans: one per target; a plain model is a mean of itself).
// A target whose mean holds several models predicts with their mean,
// each at its own m, and refuses a request's components.
func NewMeansServer(targets []string, means []*kpls.Mean) (*Server, error) {
	if len(means) == 0 || len(targets) != len(means) {
		return nil, fmt.Errorf("%d target names for %d means", len(targets), len(means))
	}
	models := make([]*kpls.Model, len(means))
	several := false
	for i, a := range means {
		models[i] = a.Members()[0]
		several = several || len(a.Members()) > 1
	}
	s, err := NewTargetsServer(targets, models)
	if err != nil || !several {
		return s, err
	}
	s.means = make([]*kpls.Mean, len(means))
	for i, a := range means {
		if len(a.Members()) > 1 {
			s.means[i] = a
		}
	}
	return s, nil
}

// meanOf is the mean target i predicts with, nil for a plain model.
func (s *Server) meanOf(i int) *kpls.Mean {
	if s.means == nil {
		return nil
	}
	return s.means[i]
}

// ServeHTTP routes POST /predict, GET /healthz and GET /metrics, giving
// every request an id (the client's X-Request-Id if sensible), a log
// line and its metrics.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := requestID(r.Header.Get("X-Request-Id"))
	w.Header().Set("X-Request-Id", id)
	info := &requestInfo{}
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	s.mux.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), infoKey{}, info)))
	el := time.Since(start)

	path := r.URL.Path
	switch path {
	case "/predict", "/healthz", "/metrics":
	default:
		path = "other" // bounded label values
	}
	s.metrics.observe(path, rec.status, info, el)
	log := s.Log
	if log == nil {
		log = slog.Default()
	}
	level := slog.LevelInfo
	if rec.status >= 500 {
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("id", id), slog.String("method", clip(r.Method)), slog.String("path", clip(r.URL.Path)),
		slog.Int("status", rec.status), slog.Int("points", info.points), slog.Bool("bands", info.bands),
		slog.Float64("latency_ms", float64(el.Microseconds())/1e3), slog.Int("bytes", rec.bytes),
	}
	if info.err != "" {
		attrs = append(attrs, slog.String("error", info.err))
	}
	log.LogAttrs(r.Context(), level, "request", attrs...)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "use GET for /healthz, not %s", clip(r.Method))
		return
	}
	h := health{
		Status: "ok", N: s.model.N(), D: s.model.D(), Features: s.features,
		Components: s.model.ValidComponents(), DefaultComponents: s.defaultComp,
	}
	if s.models == nil {
		h.Mean = membersOf(s.meanOf(0))
	}
	for i, m := range s.models {
		h.Targets = append(h.Targets, targetHealth{Target: s.targets[i], Components: m.ValidComponents(), DefaultComponents: m.Chosen().M, Mean: membersOf(s.meanOf(i))})
	}
	writeJSON(w, http.StatusOK, h)
}

type health struct {
	Status            string   `json:"status"`
	N                 int      `json:"n"`
	D                 int      `json:"d"`
	Features          []string `json:"features,omitempty"`
	Components        int      `json:"components"`
	DefaultComponents int      `json:"default_components"`
	// Mean lists the models a mean of several averages (kpls select
	// --average-within); components are then its first model's.
	Mean []member `json:"mean,omitempty"`
	// Targets, with a file of several models: each one's components.
	Targets []targetHealth `json:"targets,omitempty"`
}

type targetHealth struct {
	Target            string   `json:"target"`
	Components        int      `json:"components"`
	DefaultComponents int      `json:"default_components"`
	Mean              []member `json:"mean,omitempty"`
}

// member is one model of a mean: its kernel and the m it predicts with.
type member struct {
	Kernel string   `json:"kernel"`
	Width  *float64 `json:"width,omitempty"`
	M      int      `json:"m"`
}

// membersOf describes the models of a, nil for nil.
func membersOf(a *kpls.Mean) []member {
	if a == nil {
		return nil
	}
	var out []member
	for _, m := range a.Members() {
		k := m.Options().Kernel
		mb := member{Kernel: k.Name(), M: m.Chosen().M}
		if w, ok := kpls.WidthOf(k); ok {
			mb.Width = &w
		}
		out = append(out, mb)
	}
	return out
}

// bandComponents is what a band request for target i costs per point
// and row of the training data: m, or the sum of a mean's models' m.
func (s *Server) bandComponents(i, comp int) int {
	a := s.meanOf(i)
	if a == nil {
		return max(comp, 1)
	}
	sum := 0
	for _, m := range a.Members() {
		sum += max(m.Chosen().M, 1)
	}
	return sum
}

// targetsResponse answers a request to a server of several models: one
// predictResponse per target, in the file's order.
type targetsResponse struct {
	Targets []targetResponse `json:"targets"`
}

type targetResponse struct {
	Target string `json:"target"`
	predictResponse
}

type predictResponse struct {
	Components int `json:"components"`
	// Mean lists the models whose mean predicted (components is then
	// the first one's m).
	Mean      []member `json:"mean,omitempty"`
	Level     *float64 `json:"level,omitempty"`
	Intervals bool     `json:"intervals,omitempty"` // se, lower and upper are a new y's
	// Noise is, with a level, the noise level s that scales the bands
	// (and that intervals add to their variance).
	Noise       *noiseLevel `json:"noise,omitempty"`
	Predictions any         `json:"predictions"` // []point or []kpls.Band
}

// noiseLevel is kpls.Model.NoiseLevel or kpls.Mean.NoiseLevel: s, where
// it comes from ("sigma" or "rmsecv") and σ̂ (null when unknown).
type noiseLevel struct {
	S     float64  `json:"s"`
	From  string   `json:"from"`
	Sigma *float64 `json:"sigma"`
}

func newNoiseLevel(s, sigma float64, fromRMSECV bool) *noiseLevel {
	n := &noiseLevel{S: s, From: "sigma"}
	if fromRMSECV {
		n.From = "rmsecv"
	}
	if !math.IsNaN(sigma) {
		n.Sigma = &sigma
	}
	return n
}

type point struct {
	Yhat     float64  `json:"yhat"`
	Leverage *float64 `json:"leverage,omitempty"`
	Outside  *bool    `json:"outside,omitempty"`
}

func (s *Server) predict(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "use POST for /predict, not %s", clip(r.Method))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.Timeout)
	defer cancel()
	info, _ := r.Context().Value(infoKey{}).(*requestInfo)
	if info == nil {
		info = &requestInfo{}
	}
	fail := func(status int, format string, args ...any) {
		info.err = fmt.Sprintf(format, args...)
		writeError(w, status, "%s", info.err)
	}

	// Read within a decode slot, token by token (decode.go).
	req, x, status, err := s.decodeBody(ctx, w, r)
	if err != nil {
		fail(status, "%v", err)
		return
	}
	points, _ := x.Dims()
	info.points, info.bands = points, req.Level != nil
	comp := s.defaultComp
	if req.Components != nil {
		comp = *req.Components
	}
	for i := range max(1, len(s.models)) {
		if a := s.meanOf(i); a != nil && req.Components != nil {
			fail(http.StatusBadRequest, "components: the model%s is the mean of %d models, each with its own m (kpls select --average-within): leave components out", s.targetLabel(i), len(a.Members()))
			return
		}
	}
	for i, m := range s.models {
		if req.Components != nil && comp > m.ValidComponents() {
			fail(http.StatusBadRequest, "components: %d, the model of target %q has 0..%d valid components", comp, s.targets[i], m.ValidComponents())
			return
		}
		if req.Components == nil {
			comp = max(comp, m.Chosen().M) // the band budget below takes the largest
		}
	}
	// The library reads level 0 as its default; here an explicit 0 is an error.
	if req.Level != nil && !(*req.Level > 0 && *req.Level < 1) {
		fail(http.StatusBadRequest, "level must lie strictly between 0 and 1, got %g", *req.Level)
		return
	}
	if req.Level != nil {
		perPoint := 0 // Σ over the targets of m (a mean: of its models' m)
		for i := range max(1, len(s.models)) {
			perPoint += s.bandComponents(i, comp)
		}
		if cost := float64(s.model.N()) * float64(points) * float64(perPoint); cost > s.BandBudget {
			fail(http.StatusUnprocessableEntity, "a band request costs n × points × m = %d × %d × %d = %.3g, over the limit of %.3g: send at most %d points per band request",
				s.model.N(), points, perPoint, cost, s.BandBudget, int(s.BandBudget/float64(s.model.N()*perPoint)))
			return
		}
	}

	// Priced by the cost model, then a work slot (limits.go).
	done, status, err := s.admit(ctx, req, points, comp)
	if err != nil {
		fail(status, "%v", err)
		return
	}
	defer done()
	if s.models == nil {
		resp, err := predictWith(ctx, s.model, s.meanOf(0), x, comp, req)
		if err != nil {
			fail(statusOf(err), "%v", err)
			return
		}
		writeJSON(w, http.StatusOK, resp)
		return
	}
	var all targetsResponse
	for i, m := range s.models {
		c := m.Chosen().M
		if req.Components != nil {
			c = *req.Components
		}
		resp, err := predictWith(ctx, m, s.meanOf(i), x, c, req)
		if err != nil {
			fail(statusOf(err), "target %q: %v", s.targets[i], err)
			return
		}
		all.Targets = append(all.Targets, targetResponse{Target: s.targets[i], predictResponse: resp})
	}
	writeJSON(w, http.StatusOK, all)
}

// predictWith predicts x with m and comp components, or with mean when
// it is not nil: plain predictions, or with bands at the request's level
// when it is set (prediction intervals with "intervals"); with "leverage"
// every point also gets its leverage (kpls.Model.Leverage; of a mean, its
// members' largest), and with "outside" whether the model extrapolates to
// it (kpls.Extrapolation), from the same kernel vectors as a plain
// prediction.
func predictWith(ctx context.Context, m *kpls.Model, mean *kpls.Mean, x *mat.Dense, comp int, req *predictRequest) (predictResponse, error) {
	level := req.Level
	resp := predictResponse{Components: comp, Level: level, Intervals: req.Intervals}
	if mean != nil {
		resp.Components, resp.Mean = m.Chosen().M, membersOf(mean)
	}
	if level != nil {
		if mean != nil {
			s, cv := mean.NoiseLevel()
			resp.Noise = newNoiseLevel(s, mean.Stats().Sigma, cv)
		} else if comp >= 0 && comp <= m.ValidComponents() {
			s, cv := m.NoiseLevel(comp)
			resp.Noise = newNoiseLevel(s, m.Stats()[comp].Sigma, cv)
		}
	}
	diagnose := req.Leverage || req.Outside
	outside := func() ([]float64, *kpls.Extrapolation, error) {
		if mean != nil {
			return mean.PredictOutside(ctx, x)
		}
		return m.PredictOutside(ctx, x, comp)
	}
	if level == nil {
		var yhat []float64
		var ex *kpls.Extrapolation
		var err error
		switch {
		case diagnose:
			yhat, ex, err = outside()
		case mean != nil:
			yhat, err = mean.Predict(ctx, x)
		default:
			yhat, err = m.Predict(ctx, x, comp)
		}
		pts := make([]point, len(yhat))
		for i, v := range yhat {
			pts[i] = point{Yhat: v}
			pts[i].Leverage, pts[i].Outside = diagnosis(ex, i, req)
		}
		resp.Predictions = pts
		return resp, err
	}
	bo := kpls.BandOptions{Level: *level}
	var bands []kpls.Band
	var err error
	switch {
	case mean != nil && req.Intervals:
		bands, err = mean.PredictIntervals(ctx, x, bo)
	case mean != nil:
		bands, err = mean.PredictBands(ctx, x, bo)
	case req.Intervals:
		bands, err = m.PredictIntervals(ctx, x, comp, bo)
	default:
		bands, err = m.PredictBands(ctx, x, comp, bo)
	}
	if err != nil || !diagnose {
		resp.Predictions = bands
		return resp, err
	}
	_, ex, err := outside()
	if err != nil {
		return resp, err
	}
	pts := make([]bandPoint, len(bands))
	for i, b := range bands {
		pts[i].Band = b
		pts[i].Leverage, pts[i].Outside = diagnosis(ex, i, req)
	}
	resp.Predictions = pts
	return resp, nil
}

// bandPoint is a band with the point's leverage and extrapolation flag.
type bandPoint struct {
	kpls.Band
	Leverage *float64 `json:"leverage,omitempty"`
	Outside  *bool    `json:"outside,omitempty"`
}

// diagnosis is what the request asked to know about point i: its
// leverage and whether it lies outside (nil where not asked).
func diagnosis(ex *kpls.Extrapolation, i int, req *predictRequest) (lev *float64, out *bool) {
	if ex == nil {
		return nil, nil
	}
	if req.Leverage {
		lev = &ex.Leverage[i]
	}
	if req.Outside {
		out = &ex.Outside[i]
	}
	return lev, out
}

// targetLabel names target i in a message when the server has several.
func (s *Server) targetLabel(i int) string {
	if s.models == nil {
		return ""
	}
	return fmt.Sprintf(" of target %q", s.targets[i])
}

// statusOf maps a library error to an HTTP status.
func statusOf(err error) int {
	switch {
	case errors.Is(err, kpls.ErrShape), errors.Is(err, kpls.ErrNonFinite),
		errors.Is(err, kpls.ErrComponents), errors.Is(err, kpls.ErrLevel):
		return http.StatusBadRequest
	case errors.Is(err, kpls.ErrUnreliable):
		// The model cannot give bands for this many components.
		return http.StatusUnprocessableEntity
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

type errorBody struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, errorBody{Error: fmt.Sprintf(format, args...)})
}

// writeJSON encodes v before writing the header, so that a value JSON
// cannot hold (NaN, ±Inf) becomes a 500 rather than a truncated 200.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		buf.Reset()
		status = http.StatusInternalServerError
		_ = json.NewEncoder(&buf).Encode(errorBody{Error: "cannot encode the result: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// metrics are the service's Prometheus series, in a registry of its own
// (so that tests can run several servers), with the Go runtime's and the
// process's collectors.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	points   *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kpls_http_requests_total", Help: "HTTP requests by path and status code.",
		}, []string{"path", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "kpls_http_request_duration_seconds", Help: "Request latency by path and whether bands were asked for.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10), // 0.5 ms .. 131 s
		}, []string{"path", "bands"}),
		points: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "kpls_predict_points", Help: "Points per accepted prediction request.",
			Buckets: prometheus.ExponentialBuckets(1, 10, 6),
		}, []string{"bands"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.points,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(path string, status int, info *requestInfo, el time.Duration) {
	bands := fmt.Sprint(info.bands)
	m.requests.WithLabelValues(path, fmt.Sprint(status)).Inc()
	m.latency.WithLabelValues(path, bands).Observe(el.Seconds())
	if path == "/predict" && info.points > 0 {
		m.points.WithLabelValues(bands).Observe(float64(info.points))
	}
}

// requestInfo is what the handler tells the log line and metrics.
type requestInfo struct {
	points int
	bands  bool
	err    string
}

type infoKey struct{}

// recorder remembers the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

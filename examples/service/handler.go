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

// Server answers prediction requests for the predictors of one model
// file. A kpls.Predictor is immutable and safe for concurrent use, so
// requests share it without locks. The limits may be changed after NewServer, before serving.
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

	// predictors holds one predictor per target; targets names them
	// when there are several (nil with one). first describes the first,
	// whose inputs they all share.
	predictors []kpls.Predictor
	targets    []string
	first      kpls.Summary
	features   []string
	// slots bounds the requests computing at once: each can use every core
	// (the band products are parallel), and each holds its working memory.
	slots   chan struct{}
	adm     admission // decode slots and cost model (limits.go)
	metrics *metrics
	mux     *http.ServeMux
}

// NewServer returns a server for the predictors of one model file
// (kpls.Load): one, or one per target, sharing their inputs. Every
// request predicts every target, each with its recorded choice of m,
// or with the request's m where the target is one model.
func NewServer(ps ...kpls.Predictor) (*Server, error) {
	if len(ps) == 0 {
		return nil, errors.New("no predictors to serve")
	}
	first := ps[0].Summary()
	s := &Server{
		MaxBytes:   DefaultMaxBytes,
		MaxPoints:  DefaultMaxPoints,
		BandBudget: DefaultBandBudget,
		Timeout:    DefaultTimeout,
		predictors: ps,
		first:      first,
		slots:      make(chan struct{}, runtime.GOMAXPROCS(0)),
		metrics:    newMetrics(),
	}
	if len(first.FeatureNames) == first.D {
		s.features = first.FeatureNames
	}
	if len(ps) > 1 {
		for _, p := range ps {
			sm := p.Summary()
			if sm.N != first.N || sm.D != first.D {
				return nil, fmt.Errorf("model %q has %d×%d inputs, model %q %d×%d: the models of one file share their inputs",
					sm.TargetName, sm.N, sm.D, first.TargetName, first.N, first.D)
			}
			s.targets = append(s.targets, sm.TargetName)
		}
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("/predict", s.predict)
	s.mux.HandleFunc("/healthz", s.healthz)
	s.mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint %s (try POST /predict, GET /healthz or GET /metrics)", echo(r.URL.Path))
	})
	return s, nil
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
		Status: "ok", N: s.first.N, D: s.first.D, Features: s.features,
		Components: s.first.Members[0].MaxComponents, M: defaultM(s.first), Relevance: relevanceOf(s.first),
	}
	if s.targets == nil {
		h.Mean = membersOf(s.first)
	}
	for i, p := range s.predictors {
		if s.targets == nil {
			break
		}
		sm := p.Summary()
		h.Targets = append(h.Targets, targetHealth{Target: s.targets[i], Components: sm.Members[0].MaxComponents, M: defaultM(sm), Mean: membersOf(sm)})
	}
	writeJSON(w, http.StatusOK, h)
}

// health is the answer of /healthz. Components is M, the number of
// components the model holds (a request's "m" lies in 0..M), and M the m
// it predicts with when the request gives none; a mean of several models
// has no one m (M is left out, each member's is in Mean) and its
// Components is its first model's.
type health struct {
	Status     string   `json:"status"`
	N          int      `json:"n"`
	D          int      `json:"d"`
	Features   []string `json:"features,omitempty"`
	Components int      `json:"components"`
	M          *int     `json:"m,omitempty"`
	// Mean lists the models a mean of several averages (kpls select
	// --average-within), each with its m.
	Mean []member `json:"mean,omitempty"`
	// Targets, with a file of several models: each one's components and m.
	Targets []targetHealth `json:"targets,omitempty"`
	// Relevance are the weights of the standardised features that kpls
	// select learned on its screen's sample, where a model weighs them
	// (its members marked "scaled" in Mean).
	Relevance []float64 `json:"relevance,omitempty"`
}

// relevanceOf returns the feature weights of the first member that has
// them (one selection learns one set), nil if none does.
func relevanceOf(sm kpls.Summary) []float64 {
	for _, m := range sm.Members {
		if m.Relevance != nil {
			return m.Relevance
		}
	}
	return nil
}

type targetHealth struct {
	Target     string   `json:"target"`
	Components int      `json:"components"`
	M          *int     `json:"m,omitempty"`
	Mean       []member `json:"mean,omitempty"`
}

// defaultM is the m a predictor predicts with, nil for a mean of several
// models, which has none.
func defaultM(sm kpls.Summary) *int {
	if len(sm.Members) > 1 {
		return nil
	}
	return &sm.Members[0].M
}

// member is one model of a mean: its kernel, the m it predicts with, and
// whether it weighs the features (health.Relevance).
type member struct {
	Kernel string   `json:"kernel"`
	Width  *float64 `json:"width,omitempty"`
	M      int      `json:"m"`
	Scaled bool     `json:"scaled,omitempty"`
}

// membersOf describes the models a predictor averages, nil for one model.
func membersOf(sm kpls.Summary) []member {
	if len(sm.Members) < 2 {
		return nil
	}
	var out []member
	for _, m := range sm.Members {
		mb := member{Kernel: m.Kernel.Name(), M: m.M, Scaled: m.Relevance != nil}
		if w, ok := kpls.WidthOf(m.Kernel); ok {
			mb.Width = &w
		}
		out = append(out, mb)
	}
	return out
}

// bandComponents is what a band request costs per point and row of the
// training data: Σ over the targets of m, a mean's being the sum of its
// models' m.
func (s *Server) bandComponents(ps []kpls.Predictor) int {
	sum := 0
	for _, p := range ps {
		for _, m := range p.Summary().Members {
			sum += max(m.M, 1)
		}
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
	// M is the number of components the prediction used; left out for
	// a mean of several models, whose members' m are in Mean.
	M         *int     `json:"m,omitempty"`
	Mean      []member `json:"mean,omitempty"`
	Level     *float64 `json:"level,omitempty"`
	Intervals bool     `json:"intervals,omitempty"` // se, lower and upper are a new y's
	// Noise is, with a level, the noise level s that scales the bands
	// (and that intervals add to their variance).
	Noise       *noiseLevel `json:"noise,omitempty"`
	Predictions []point     `json:"predictions"`
}

// noiseLevel is kpls.Prediction's noise level: s, where
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

// point is one prediction; se, lower and upper with a level, leverage and
// outside when asked for.
type point struct {
	Yhat     float64  `json:"yhat"`
	SE       *float64 `json:"se,omitempty"`
	Lower    *float64 `json:"lower,omitempty"`
	Upper    *float64 `json:"upper,omitempty"`
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
	ps, err := s.atM(req.M)
	if err != nil {
		fail(http.StatusBadRequest, "%v", err)
		return
	}
	// The library reads level 0 as its default; here an explicit 0 is an error.
	if req.Level != nil && !(*req.Level > 0 && *req.Level < 1) {
		fail(http.StatusBadRequest, "level must lie strictly between 0 and 1, got %g", *req.Level)
		return
	}
	if req.Level != nil {
		perPoint := s.bandComponents(ps)
		if cost := float64(s.first.N) * float64(points) * float64(perPoint); cost > s.BandBudget {
			fail(http.StatusUnprocessableEntity, "a band request costs n × points × m = %d × %d × %d = %.3g, over the limit of %.3g: send at most %d points per band request",
				s.first.N, points, perPoint, cost, s.BandBudget, int(s.BandBudget/float64(s.first.N*perPoint)))
			return
		}
	}

	// Priced by the cost model, then a work slot (limits.go).
	done, status, err := s.admit(ctx, req, points, ps)
	if err != nil {
		fail(status, "%v", err)
		return
	}
	defer done()
	var all targetsResponse
	for i, p := range ps {
		resp, err := predictWith(ctx, p, x, req)
		if err != nil {
			fail(statusOf(err), "%s%v", s.targetPrefix(i), err)
			return
		}
		if s.targets == nil {
			writeJSON(w, http.StatusOK, resp)
			return
		}
		all.Targets = append(all.Targets, targetResponse{Target: s.targets[i], predictResponse: resp})
	}
	writeJSON(w, http.StatusOK, all)
}

// atM is the predictors with the request's m, when given: a mean of
// several models has no one m to change.
func (s *Server) atM(comp *int) ([]kpls.Predictor, error) {
	if comp == nil {
		return s.predictors, nil
	}
	out := make([]kpls.Predictor, len(s.predictors))
	for i, p := range s.predictors {
		sm := p.Summary()
		m, ok := p.(*kpls.Model)
		switch {
		case !ok:
			return nil, fmt.Errorf(`"m": the model%s is the mean of %d models, each with its own m (kpls select --average-within): leave "m" out`, s.targetLabel(i), len(sm.Members))
		case *comp < 0 || *comp > sm.Members[0].MaxComponents:
			return nil, fmt.Errorf(`"m": %d, the model%s has 0..%d valid components`, *comp, s.targetLabel(i), sm.Members[0].MaxComponents)
		}
		var err error
		if out[i], err = m.At(*comp); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// predictWith predicts x with p: plain predictions, or with bands at the
// request's level when it is set (prediction intervals with
// "intervals"); with "leverage" every point also gets its leverage (of a
// mean, its members' largest), and with "outside" whether the model
// extrapolates to it (kpls.Extrapolation), all in one call.
func predictWith(ctx context.Context, p kpls.Predictor, x *mat.Dense, req *predictRequest) (predictResponse, error) {
	sm := p.Summary()
	resp := predictResponse{M: defaultM(sm), Mean: membersOf(sm), Level: req.Level, Intervals: req.Intervals}
	opt := kpls.PredictOptions{Diagnostics: req.Leverage || req.Outside}
	if req.Level != nil {
		opt.Level, opt.Uncertainty = *req.Level, kpls.ConfidenceBand
		if req.Intervals {
			opt.Uncertainty = kpls.PredictionInterval
		}
	}
	pred, err := p.Predict(ctx, x, opt)
	if err != nil {
		return resp, err
	}
	if req.Level != nil {
		resp.Noise = newNoiseLevel(pred.Noise, sm.Stats.Sigma, pred.NoiseFromRMSECV)
	}
	resp.Predictions = make([]point, len(pred.Yhat))
	for i, v := range pred.Yhat {
		pt := &resp.Predictions[i]
		pt.Yhat = v
		if req.Level != nil {
			pt.SE, pt.Lower, pt.Upper = &pred.SE[i], &pred.Lower[i], &pred.Upper[i]
		}
		pt.Leverage, pt.Outside = diagnosis(pred.Extrapolation, i, req)
	}
	return resp, nil
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
	if s.targets == nil {
		return ""
	}
	return fmt.Sprintf(" of target %q", s.targets[i])
}

// targetPrefix starts an error of target i when the server has several.
func (s *Server) targetPrefix(i int) string {
	if s.targets == nil {
		return ""
	}
	return fmt.Sprintf("target %q: ", s.targets[i])
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

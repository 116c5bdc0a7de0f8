package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// Defaults for the Server's limits.
const (
	DefaultMaxBytes  = 8 << 20
	DefaultMaxPoints = 100_000
	DefaultTimeout   = 30 * time.Second
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
	// Timeout bounds a request: waiting for a work slot and computing
	// confidence bands (which check the context between steps).
	Timeout time.Duration

	model       *kpls.Model
	defaultComp int
	// slots bounds the requests computing at once: each can use every core
	// (the band products are parallel), and each holds its working memory.
	slots chan struct{}
}

// NewServer returns a server for m. Requests that give no number of
// components get the one gMDL selects.
func NewServer(m *kpls.Model) *Server {
	return &Server{
		MaxBytes:    DefaultMaxBytes,
		MaxPoints:   DefaultMaxPoints,
		Timeout:     DefaultTimeout,
		model:       m,
		defaultComp: m.Chosen().M,
		slots:       make(chan struct{}, runtime.GOMAXPROCS(0)),
	}
}

// ServeHTTP routes POST /predict and GET /healthz.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/predict":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, "use POST for /predict, not %s", r.Method)
			return
		}
		s.predict(w, r)
	case "/healthz":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "use GET for /healthz, not %s", r.Method)
			return
		}
		writeJSON(w, http.StatusOK, health{
			Status: "ok", N: s.model.N(), D: s.model.D(),
			Components: s.model.Components(), DefaultComponents: s.defaultComp,
		})
	default:
		writeError(w, http.StatusNotFound, "no such endpoint %q (try POST /predict or GET /healthz)", r.URL.Path)
	}
}

type health struct {
	Status            string `json:"status"`
	N                 int    `json:"n"`
	D                 int    `json:"d"`
	Components        int    `json:"components"`
	DefaultComponents int    `json:"default_components"`
}

// predictRequest is the body of POST /predict. Components and Level are
// optional; a level asks for confidence bands.
type predictRequest struct {
	X          [][]float64 `json:"x"`
	Components *int        `json:"components"`
	Level      *float64    `json:"level"`
}

type predictResponse struct {
	Components  int      `json:"components"`
	Level       *float64 `json:"level,omitempty"`
	Predictions any      `json:"predictions"` // []point or []kpls.Band
}

type point struct {
	Yhat float64 `json:"yhat"`
}

func (s *Server) predict(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.Timeout)
	defer cancel()

	var req predictRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.MaxBytes))
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	if err == nil && dec.Decode(new(json.RawMessage)) != io.EOF {
		err = errors.New("more than one JSON value in the body")
	}
	if err != nil {
		if tooBig := new(http.MaxBytesError); errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "the body exceeds %d bytes", tooBig.Limit)
			return
		}
		writeError(w, http.StatusBadRequest, "bad JSON: %v", err)
		return
	}
	x, err := s.rows(req.X)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	comp := s.defaultComp
	if req.Components != nil {
		comp = *req.Components
	}
	// The library reads level 0 as its default; here an explicit 0 is an error.
	if req.Level != nil && !(*req.Level > 0 && *req.Level < 1) {
		writeError(w, http.StatusBadRequest, "level must lie strictly between 0 and 1, got %g", *req.Level)
		return
	}

	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		writeError(w, http.StatusServiceUnavailable, "busy: no work slot within %v", s.Timeout)
		return
	}
	resp := predictResponse{Components: comp, Level: req.Level}
	if req.Level == nil {
		var yhat []float64
		yhat, err = s.model.Predict(x, comp)
		pts := make([]point, len(yhat))
		for i, v := range yhat {
			pts[i].Yhat = v
		}
		resp.Predictions = pts
	} else {
		resp.Predictions, err = s.model.PredictBands(ctx, x, comp, kpls.BandOptions{Level: *req.Level})
	}
	if err != nil {
		writeError(w, statusOf(err), "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// rows checks the shape of the points and copies them into a matrix.
func (s *Server) rows(x [][]float64) (*mat.Dense, error) {
	d := s.model.D()
	switch {
	case len(x) == 0:
		return nil, errors.New(`"x" is missing or has no rows`)
	case len(x) > s.MaxPoints:
		return nil, fmt.Errorf("%d points in one request, the limit is %d", len(x), s.MaxPoints)
	}
	for i, row := range x {
		if len(row) != len(x[0]) {
			return nil, fmt.Errorf("ragged rows: row %d has %d values, row 1 has %d", i+1, len(row), len(x[0]))
		}
	}
	if len(x[0]) != d {
		return nil, fmt.Errorf("wrong number of features: the rows have %d values, the model takes %d", len(x[0]), d)
	}
	m := mat.NewDense(len(x), d, nil)
	for i, row := range x {
		m.SetRow(i, row)
	}
	return m, nil
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

// Command service serves predictions of a saved kernel PLS model over HTTP.
//
//	go run . -model model.kpls -addr 127.0.0.1:8080     (in examples/service, a module of its own)
//
// POST /predict takes {"x": [[…], …], "m": 4, "level": 0.98} (or
// the points by feature name: {"rows": [{"x1": …, "x2": …}, …]}) and answers
// {"m": 4, "predictions": [{"yhat": …, "se": …, "lower": …,
// "upper": …}, …]}: "m" is the number of components a prediction uses,
// "components" (in /healthz) the number fitted. GET /healthz reports the
// model's size and the m it predicts with by default, GET /metrics
// the Prometheus metrics. Every request is logged as one JSON line on
// stderr. See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

func main() {
	modelPath := flag.String("model", "", "model file written by kpls fit --model (required)")
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default; :8080 for every interface)")
	timeout := flag.Duration("timeout", DefaultTimeout, "per-request time limit")
	maxBytes := flag.Int64("max-bytes", DefaultMaxBytes, "largest request body accepted")
	maxPoints := flag.Int("max-points", DefaultMaxPoints, "most points in one request")
	budget := flag.Float64("band-budget", DefaultBandBudget, "largest n × points × components of a band request; larger ones get 422")
	warm := flag.Bool("warm", true, "build the kernel matrix behind confidence bands before serving, not on the first band request")
	flag.Parse()
	if *modelPath == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: service -model FILE [-addr 127.0.0.1:8080] [-timeout 30s] [-max-bytes N] [-max-points N] [-band-budget B] [-warm=true]")
		os.Exit(2)
	}
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	if err := run(*modelPath, *addr, *timeout, *maxBytes, *maxPoints, *budget, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "service:", err)
		os.Exit(1)
	}
}

// load reads a model file of any format version: its predictors, one
// per target.
func load(path string) ([]kpls.Predictor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ps, err := kpls.Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ps, nil
}

func run(modelPath, addr string, timeout time.Duration, maxBytes int64, maxPoints int, budget float64, warm bool) error {
	ps, err := load(modelPath)
	if err != nil {
		return err
	}
	s, err := NewServer(ps...)
	if err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
	}
	s.Timeout, s.MaxBytes, s.MaxPoints, s.BandBudget = timeout, maxBytes, maxPoints, budget
	first := s.first
	slog.Info("model loaded", "file", modelPath, "n", first.N, "d", first.D, "components", first.Members[0].MaxComponents, "m", first.Members[0].M, "targets", len(ps))
	if warm {
		start := time.Now()
		// Any point will do: the first band request builds each model's
		// n×n matrix.
		for _, p := range ps {
			_, err := p.Predict(context.Background(), mat.NewDense(1, first.D, nil), kpls.PredictOptions{Uncertainty: kpls.ConfidenceBand})
			if err != nil {
				slog.Warn("warm-up", "error", err)
			}
		}
		slog.Info("kernel matrix built", "seconds", time.Since(start).Seconds())
	}
	// The cost model behind the time limit of every request (limits.go):
	// a plain prediction and, when the kernel matrix is built, a band request.
	if err := s.Calibrate(context.Background(), warm); err != nil {
		slog.Warn("calibration", "error", err)
	}
	plain, band := s.CostModel()
	slog.Info("cost model", "plain_ns_per_unit", plain*1e9, "band_ns_per_unit", band*1e9, "time_share", TimeShare)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := &http.Server{
		Addr:              addr,
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       timeout,
		WriteTimeout:      timeout + 10*time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	slog.Info("listening", "addr", addr)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	slog.Info("shutting down")
	shut, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Command service serves predictions of a saved kernel PLS model over HTTP.
//
//	go run ./examples/service -model model.json -addr :8080
//
// POST /predict takes {"x": [[…], …], "components": m, "level": 0.98} and
// answers {"components": m, "predictions": [{"yhat": …, "se": …, "lower": …,
// "upper": …}, …]}; GET /healthz reports the model's size. See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
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
	addr := flag.String("addr", ":8080", "address to listen on")
	timeout := flag.Duration("timeout", DefaultTimeout, "per-request time limit")
	maxBytes := flag.Int64("max-bytes", DefaultMaxBytes, "largest request body accepted")
	maxPoints := flag.Int("max-points", DefaultMaxPoints, "most points in one request")
	warm := flag.Bool("warm", true, "build the kernel matrix behind confidence bands before serving, not on the first band request")
	flag.Parse()
	if *modelPath == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: service -model FILE [-addr :8080] [-timeout 30s] [-max-bytes N] [-max-points N] [-warm=true]")
		os.Exit(2)
	}
	if err := run(*modelPath, *addr, *timeout, *maxBytes, *maxPoints, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "service:", err)
		os.Exit(1)
	}
}

func run(modelPath, addr string, timeout time.Duration, maxBytes int64, maxPoints int, warm bool) error {
	f, err := os.Open(modelPath)
	if err != nil {
		return err
	}
	m, err := kpls.Load(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
	}
	s := NewServer(m)
	s.Timeout, s.MaxBytes, s.MaxPoints = timeout, maxBytes, maxPoints
	log.Printf("model %s: n = %d, d = %d, %d components (gMDL picks %d)", modelPath, m.N(), m.D(), m.Components(), s.defaultComp)
	if warm {
		start := time.Now()
		// Any point will do: the first band request builds the n×n matrix.
		_, err := m.PredictBands(context.Background(), mat.NewDense(1, m.D(), nil), s.defaultComp, kpls.BandOptions{})
		if err != nil {
			log.Printf("warm-up: %v", err)
		}
		log.Printf("kernel matrix built in %v", time.Since(start).Round(time.Millisecond))
	}

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
	log.Printf("listening on %s", addr)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Print("shutting down")
	shut, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

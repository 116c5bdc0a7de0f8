package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// TestLoad is the load test of README.md ("Load test"). It runs only with
// KPLS_LOADTEST=1, on loopback (httptest binds 127.0.0.1), and every
// scenario stops by itself after a bounded number of requests or time:
//
//	KPLS_LOADTEST=1 go test -run TestLoad -v -timeout 20m .     (in examples/service)
//
// It fits the n = 8192, d = 8 model of BenchmarkPredict, then reports
// throughput and p50/p99 latency for 1- and 1000-point requests with and
// without bands, and the peak live heap while 8 clients send band requests
// at once, which must stay below the kernel matrix plus a bounded working
// set per work slot.
func TestLoad(t *testing.T) {
	if os.Getenv("KPLS_LOADTEST") == "" {
		t.Skip("set KPLS_LOADTEST=1 to run the load test (a few minutes)")
	}
	m, err := benchModel()
	if err != nil {
		t.Fatal(err)
	}
	s := mustServer(t, m)
	s.Timeout = 5 * time.Minute
	s.BandBudget = 1e9 // 1000-point band requests at n = 8192 are over the default
	s.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(s)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	t0 := time.Now()
	if status, body := post(t, client, srv.URL, bodyFor(t, m.Summary().D, 1, true)); status != 200 {
		t.Fatalf("warm-up: %d %s", status, body)
	}
	t.Logf("n = %d, d = %d, m = %d (gMDL), GOMAXPROCS %d; kernel matrix built in %v",
		m.Summary().N, m.Summary().D, s.first.Members[0].M, runtime.GOMAXPROCS(0), time.Since(t0).Round(time.Millisecond))

	t.Logf("%-26s %5s %8s %9s %11s %10s %10s", "scenario", "conc", "requests", "req/s", "points/s", "p50", "p99")
	for _, sc := range []struct {
		points, conc, max int
		bands             bool
		limit             time.Duration
	}{
		{1, 4, 20000, false, 5 * time.Second},
		{1000, 2, 500, false, 5 * time.Second},
		{1, 2, 200, true, 10 * time.Second},
		{1000, 1, 2, true, 3 * time.Minute},
	} {
		r := drive(t, client, srv.URL, bodyFor(t, m.Summary().D, sc.points, sc.bands), sc.conc, sc.max, sc.limit)
		t.Logf("%-26s %5d %8d %9.3g %11.3g %10v %10v", fmt.Sprintf("points=%d bands=%v", sc.points, sc.bands),
			sc.conc, r.n, r.rps, r.rps*float64(sc.points), r.p50, r.p99)
	}

	// Memory under concurrent band requests: 8 clients, 100 points each.
	// The live heap (as of the last GC) is what the server holds; the
	// heap between collections grows to about twice that with GOGC=100,
	// which GOMEMLIMIT caps (README).
	runtime.GC()
	base := liveHeap()
	var peak, peakAlloc atomic.Uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if v := liveHeap(); v > peak.Load() {
					peak.Store(v)
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peakAlloc.Load() {
					peakAlloc.Store(ms.HeapAlloc)
				}
			}
		}
	})
	const clients = 8
	r := drive(t, client, srv.URL, bodyFor(t, m.Summary().D, 100, true), clients, 2*clients, 2*time.Minute)
	close(stop)
	sampler.Wait()
	kernel := uint64(8 * m.Summary().N * m.Summary().N)
	// Per work slot: the band working rows ((chunk+1)·n values, a few
	// times over) and the request's own data; 64 MiB is generous. Requests
	// waiting for a slot hold only their parsed points.
	bound := base + uint64(cap(s.slots))*64<<20
	t.Logf("memory: %d clients × 100-point band requests: %d requests, %.3g req/s, p50 %v, p99 %v; live heap %d MiB before, peak %d MiB (kernel matrix %d MiB, bound %d MiB); heap incl. garbage peak %d MiB",
		clients, r.n, r.rps, r.p50, r.p99, base>>20, peak.Load()>>20, kernel>>20, bound>>20, peakAlloc.Load()>>20)
	if peak.Load() > bound {
		t.Errorf("peak live heap %d MiB over the bound %d MiB", peak.Load()>>20, bound>>20)
	}
}

// liveHeap is the heap that survived the last garbage collection.
func liveHeap() uint64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	return s[0].Value.Uint64()
}

type loadResult struct {
	n        int
	rps      float64
	p50, p99 time.Duration
}

// drive sends body from conc clients until max requests have been sent or
// limit has passed, and fails on any answer but 200.
func drive(t *testing.T, client *http.Client, url string, body []byte, conc, max int, limit time.Duration) loadResult {
	var (
		mu   sync.Mutex
		lat  []time.Duration
		sent atomic.Int64
		wg   sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(limit)
	for range conc {
		wg.Go(func() {
			for sent.Add(1) <= int64(max) && time.Now().Before(deadline) {
				t0 := time.Now()
				resp, err := client.Post(url+"/predict", "application/json", bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				el := time.Since(t0)
				if resp.StatusCode != 200 {
					t.Errorf("status %d: %.200s", resp.StatusCode, b)
					return
				}
				mu.Lock()
				lat = append(lat, el)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	total := time.Since(start)
	slices.Sort(lat)
	if len(lat) == 0 {
		t.Fatal("no request completed")
	}
	q := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(10 * time.Microsecond)
	}
	return loadResult{n: len(lat), rps: float64(len(lat)) / total.Seconds(), p50: q(0.5), p99: q(0.99)}
}

// bodyFor is a request for points seeded points in d dimensions.
func bodyFor(t *testing.T, d, points int, bands bool) []byte {
	x, _ := testData(points, d, 22)
	req := testRequest{X: make([][]float64, points)}
	for i := range req.X {
		req.X[i] = mat.Row(nil, i, x)
	}
	if bands {
		level := 0.98
		req.Level = &level
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// heavy enables the 1000-point band requests: each takes about a minute
// on two cores (2.7·10¹² flops), too long for -benchtime 20x within the
// default test timeout.
var heavy = flag.Bool("heavy", false, "also benchmark band requests for 1000 points (about a minute each)")

// benchModel is an n = 8192, d = 8 model, fitted once (a few seconds; its
// kernel matrix takes 512 MiB).
var benchModel = sync.OnceValues(func() (*kpls.Model, error) {
	x, y := testData(8192, 8, 21)
	return kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{DoF: kpls.DoFLanczos}, nil)
})

// BenchmarkPredict measures whole requests through HTTP and JSON: single
// points and batches, with and without 98 % bands, at the model's gMDL
// choice of components. Besides the mean (ns/op) it reports the median
// latency. Plain predictions cost n kernel evaluations per point; bands
// add m products of the n×n kernel matrix with blocks of points.
func BenchmarkPredict(b *testing.B) {
	if testing.Short() {
		b.Skip("fitting the n = 8192 model takes a few seconds")
	}
	m, err := benchModel()
	if err != nil {
		b.Fatal(err)
	}
	s := mustServer(b, m)
	s.Timeout = time.Hour
	srv := httptest.NewServer(s)
	defer srv.Close()
	b.Logf("n = %d, d = %d, %d components by gMDL", m.Summary().N, m.Summary().D, s.first.Members[0].M)
	for _, points := range []int{1, 1000} {
		x, _ := testData(points, m.Summary().D, 22)
		rows := make([][]float64, points)
		for i := range rows {
			rows[i] = mat.Row(nil, i, x)
		}
		for _, bands := range []bool{false, true} {
			req := testRequest{X: rows}
			if bands {
				level := 0.98
				req.Level = &level
			}
			body, err := json.Marshal(req)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("n=%d/points=%d/bands=%v", m.Summary().N, points, bands), func(b *testing.B) {
				if bands && points > 1 && !*heavy {
					b.Skip("about a minute per request: run with -heavy (and -timeout)")
				}
				b.ReportAllocs()
				var lat []time.Duration
				for b.Loop() {
					t0 := time.Now()
					status, resp := post(b, srv.Client(), srv.URL, body)
					lat = append(lat, time.Since(t0))
					if status != http.StatusOK {
						b.Fatalf("status %d: %.200s", status, resp)
					}
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1e3, "ms-median")
				b.ReportMetric(float64(points)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
			})
		}
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// testData returns n seeded points in d dimensions with a smooth response.
func testData(n, d int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range y {
		s := 0.0
		for j := 0; j < d; j++ {
			v := 4*rng.Float64() - 2
			x.Set(i, j, v)
			s += math.Sin(float64(j+1) * v)
		}
		y[i] = s + 0.1*rng.NormFloat64()
	}
	return x, y
}

// testModelFile is the file of a model fitted once for all tests.
var testModelFile = sync.OnceValues(func() ([]byte, error) {
	x, y := testData(300, 3, 1)
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y)}, kpls.Options{Components: 6}, nil)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := kpls.Save(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
})

// loadTestModel returns a fresh copy of the test model: its kernel matrix
// is built on the first band request.
func loadTestModel(t testing.TB) *kpls.Model {
	t.Helper()
	b, err := testModelFile()
	if err != nil {
		t.Fatal(err)
	}
	ps, err := kpls.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return ps[0].(*kpls.Model)
}

type testRequest struct {
	X        [][]float64 `json:"x"`
	M        *int        `json:"m,omitempty"`
	Level    *float64    `json:"level,omitempty"`
	Leverage bool        `json:"leverage,omitempty"`
	Outside  bool        `json:"outside,omitempty"`
}

type testResponse struct {
	M           *int        `json:"m"`
	Level       *float64    `json:"level"`
	Predictions []testPoint `json:"predictions"`
	Error       string      `json:"error"`
}

// testPoint is a prediction as the service writes it: a band (yhat
// alone without a level) and, when asked for, the leverage and whether it
// lies outside.
type testPoint struct {
	testBand
	Leverage *float64 `json:"leverage"`
	Outside  *bool    `json:"outside"`
}

func post(t testing.TB, client *http.Client, url string, body []byte) (int, []byte) {
	resp, err := client.Post(url+"/predict", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	return resp.StatusCode, b
}

// testCase is one request with the answer the library gives directly.
type testCase struct {
	body    []byte
	comp    int
	level   *float64
	want    []testBand // Yhat only without a level
	lev     []float64  // the leverages, when asked for
	out     []bool     // whether the points lie outside, when asked for
	wantErr int        // expected status when the library refuses
}

func makeCases(t *testing.T, ref *kpls.Model, count int) []testCase {
	rng := rand.New(rand.NewPCG(5, 6))
	def := ref.Chosen().M
	sizes := []int{1, 1, 1, 3, 17, 130} // 130 crosses a band chunk
	levels := []float64{0.98, 0.9, 0.5}
	cases := make([]testCase, count)
	for i := range cases {
		p := sizes[rng.IntN(len(sizes))]
		x, _ := testData(p, 3, uint64(100+i))
		req := testRequest{X: make([][]float64, p)}
		for r := range p {
			req.X[r] = mat.Row(nil, r, x)
		}
		c := &cases[i]
		c.comp = def
		if rng.IntN(2) == 0 {
			c.comp = rng.IntN(maxComponents(ref) + 1)
			req.M = &c.comp
		}
		if rng.IntN(2) == 0 {
			c.level = &levels[rng.IntN(len(levels))]
			req.Level = c.level
		}
		req.Leverage = rng.IntN(3) == 0
		req.Outside = rng.IntN(3) == 0
		if req.Outside && rng.IntN(2) == 0 {
			// A point far beyond the data, which the distance rule flags.
			x.SetRow(p-1, []float64{40, -40, 0})
			req.X[p-1] = mat.Row(nil, p-1, x)
		}
		lib, err := libPredict(ref, x, c.comp, c.level, false)
		if err == nil {
			c.want = bandsOf(lib)
			if req.Leverage {
				c.lev = lib.Extrapolation.Leverage
			}
			if req.Outside {
				c.out = lib.Extrapolation.Outside
			}
		}
		if err != nil {
			c.wantErr = statusOf(err)
		}
		if c.body, err = json.Marshal(req); err != nil {
			t.Fatal(err)
		}
	}
	return cases
}

func (c *testCase) check(status int, body []byte) error {
	var got testResponse
	if err := json.Unmarshal(body, &got); err != nil {
		return fmt.Errorf("status %d, body %q: %v", status, body, err)
	}
	if c.wantErr != 0 {
		if status != c.wantErr || got.Error == "" {
			return fmt.Errorf("status %d, body %s; the library refuses, want %d", status, body, c.wantErr)
		}
		return nil
	}
	if status != http.StatusOK {
		return fmt.Errorf("status %d: %s", status, body)
	}
	if got.M == nil || *got.M != c.comp || len(got.Predictions) != len(c.want) {
		return fmt.Errorf("m %v with %d predictions, want %d with %d", got.M, len(got.Predictions), c.comp, len(c.want))
	}
	if (c.level != nil) != bytes.Contains(body, []byte(`"se"`)) {
		return fmt.Errorf("bands asked for: %v, yet the body is %.200s", c.level != nil, body)
	}
	for i, w := range c.want {
		if got.Predictions[i].testBand != w { // JSON round-trips float64 exactly
			return fmt.Errorf("point %d: %+v, the library gives %+v", i, got.Predictions[i], w)
		}
		switch l := got.Predictions[i].Leverage; {
		case c.lev == nil && l != nil:
			return fmt.Errorf("point %d: a leverage %v not asked for", i, *l)
		case c.lev != nil && (l == nil || *l != c.lev[i]):
			return fmt.Errorf("point %d: leverage %v, the library gives %v", i, l, c.lev[i])
		}
		switch o := got.Predictions[i].Outside; {
		case c.out == nil && o != nil:
			return fmt.Errorf("point %d: an outside flag %v not asked for", i, *o)
		case c.out != nil && (o == nil || *o != c.out[i]):
			return fmt.Errorf("point %d: outside %v, the library says %v", i, o, c.out[i])
		}
	}
	return nil
}

// TestConcurrentRequests drives the server from 32 goroutines with single
// points and batches, with and without bands, and checks every answer
// against the library's own results, exactly. The server's model is fresh,
// so its first band requests race for the kernel build.
func TestConcurrentRequests(t *testing.T) {
	const goroutines, perGoroutine = 32, 6
	ref := loadTestModel(t)
	cases := makeCases(t, ref, goroutines*perGoroutine)
	srv := httptest.NewServer(mustServer(t, loadTestModel(t)))
	defer srv.Close()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			<-start
			for i := g * perGoroutine; i < (g+1)*perGoroutine; i++ {
				status, body := post(t, srv.Client(), srv.URL, cases[i].body)
				if err := cases[i].check(status, body); err != nil {
					t.Errorf("request %d: %v", i, err)
				}
			}
		})
	}
	close(start)
	wg.Wait()
}

func TestBadRequests(t *testing.T) {
	m := loadTestModel(t)
	s := mustServer(t, m)
	s.MaxBytes = 4 << 10
	srv := httptest.NewServer(s)
	defer srv.Close()
	big := `{"x": [` + strings.Repeat(`[1,2,3],`, 1000) + `[1,2,3]]}`
	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"not JSON", `{"x": [[1,2,3]`, 400, "bad JSON"},
		{"two values", `{"x": [[1,2,3]]} {}`, 400, "more than one"},
		{"unknown field", `{"x": [[1,2,3]], "comps": 2}`, 400, "unknown field"},
		{"strings", `{"x": [["1","2","3"]]}`, 400, "bad JSON"},
		{"NaN", `{"x": [[NaN,2,3]]}`, 400, "bad JSON"},
		{"overflow", `{"x": [[1e999,2,3]]}`, 400, "bad JSON"},
		{"no x", `{}`, 400, "no rows"},
		{"empty x", `{"x": []}`, 400, "no rows"},
		{"ragged", `{"x": [[1,2,3],[1,2]]}`, 400, "ragged"},
		{"features", `{"x": [[1,2],[3,4]]}`, 400, "wrong number of features"},
		{"level 0", `{"x": [[1,2,3]], "level": 0}`, 400, "level"},
		{"level 1", `{"x": [[1,2,3]], "level": 1}`, 400, "level"},
		{"level 98", `{"x": [[1,2,3]], "level": 98}`, 400, "level"},
		{"level -0.5", `{"x": [[1,2,3]], "level": -0.5}`, 400, "level"},
		{"m -1", `{"x": [[1,2,3]], "m": -1}`, 400, `"m": -1`},
		{"m too many", fmt.Sprintf(`{"x": [[1,2,3]], "m": %d}`, maxComponents(m)+1), 400, "valid components"},
		{"m too many, bands", fmt.Sprintf(`{"x": [[1,2,3]], "m": %d, "level": 0.9}`, maxComponents(m)+1), 400, "valid components"},
		{"m fractional", `{"x": [[1,2,3]], "m": 1.5}`, 400, "bad JSON"},
		{"too large", big, 413, "exceeds"},
	} {
		status, body := post(t, srv.Client(), srv.URL, []byte(tc.body))
		var e testResponse
		if err := json.Unmarshal(body, &e); err != nil || status != tc.status || !strings.Contains(e.Error, tc.says) {
			t.Errorf("%s: status %d, body %s; want %d with an error saying %q", tc.name, status, body, tc.status, tc.says)
		}
	}

	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/predict", 405, "POST"},
		{http.MethodPut, "/predict", 405, "POST"},
		{http.MethodPost, "/healthz", 405, "GET, HEAD"},
		{http.MethodGet, "/nope", 404, ""},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(`{"x": [[1,2,3]]}`))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e testResponse
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if err != nil || resp.StatusCode != tc.status || e.Error == "" || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: status %d, Allow %q, error %q (%v)", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Allow"), e.Error, err)
		}
	}
}

func TestHealthz(t *testing.T) {
	m := loadTestModel(t)
	// "components" is M, the number of components fitted, and "m" the
	// number a prediction uses by default: the vocabulary of kpls predict.
	var h map[string]any
	status := getHealthz(t, m, &h)
	want := map[string]any{"status": "ok", "n": 300.0, "d": 3.0, "components": float64(maxComponents(m)), "m": float64(m.Chosen().M)}
	if status != 200 || fmt.Sprint(h) != fmt.Sprint(want) {
		t.Errorf("status %d, %v; want %v", status, h, want)
	}
}

// getHealthz serves p, decodes its /healthz into h and returns the status.
func getHealthz(t *testing.T, p kpls.Predictor, h any) int {
	t.Helper()
	srv := httptest.NewServer(mustServer(t, p))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(h); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

// TestTimeout gives band requests no time: they must end with 503, not
// run on.
func TestTimeout(t *testing.T) {
	m := loadTestModel(t)
	s := mustServer(t, m)
	s.Timeout = time.Nanosecond
	srv := httptest.NewServer(s)
	defer srv.Close()
	body := fmt.Sprintf(`{"x": [[1,2,3]], "m": %d, "level": 0.98}`, maxComponents(m))
	status, b := post(t, srv.Client(), srv.URL, []byte(body))
	if status != http.StatusServiceUnavailable || !bytes.Contains(b, []byte(`"error"`)) {
		t.Errorf("status %d, body %s; want 503", status, b)
	}
}

// TestHealthzRelevance: a model that weighs its features (as kpls select
// learns them) gives its weights in /healthz.
func TestHealthzRelevance(t *testing.T) {
	x := mat.NewDense(40, 2, nil)
	y := make([]float64, 40)
	for i := range 40 {
		x.Set(i, 0, float64(i)/10)
		x.Set(i, 1, float64(i%7))
		y[i] = math.Sin(x.At(i, 0))
	}
	w := []float64{1, 0.25}
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(40, y)}, kpls.Options{Components: 3, Relevance: w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ Relevance []float64 }
	if status := getHealthz(t, m, &h); status != 200 || fmt.Sprint(h.Relevance) != fmt.Sprint(w) {
		t.Errorf("relevance %v, want %v", h.Relevance, w)
	}
}

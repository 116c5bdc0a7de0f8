package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// TestMain keeps the per-request log lines of the servers under test out
// of the test output; TestLogsAndMetrics checks them on a logger of its own.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

// namedModel is the test data fitted with feature names.
func namedModel(t *testing.T) *kpls.Model {
	t.Helper()
	x, y := testData(300, 3, 1)
	m, err := kpls.Fit(context.Background(), kpls.Data{X: x, Y: mat.NewVecDense(len(y), y), FeatureNames: []string{"x1", "x2", "x3"}, TargetNames: []string{"y"}}, kpls.Options{Components: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestStrictJSON(t *testing.T) {
	m := namedModel(t)
	srv := httptest.NewServer(mustServer(t, m))
	defer srv.Close()
	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"null cell", `{"x": [[null, 0, 1]]}`, 400, "row 1, value 1 is null"},
		{"null row", `{"x": [[1,2,3], null]}`, 400, "row 2 is null"},
		{"null x", `{"x": null}`, 400, `"x" is null`},
		{"null level", `{"x": [[1,2,3]], "level": null}`, 400, `"level" is null`},
		{"null m", `{"x": [[1,2,3]], "m": null}`, 400, `"m" is null`},
		{"m a string", `{"x": [[1,2,3]], "m": "2"}`, 400, "JSON string"},
		{"upper-case M", `{"x": [[1,2,3]], "M": 2}`, 400, `unknown field "M"`},
		{"string cell", `{"x": [[1,"2",3]]}`, 400, "JSON string"},
		{"string level", `{"x": [[1,2,3]], "level": "0.9"}`, 400, "JSON string"},
		{"upper-case X", `{"X": [[1,2,3]]}`, 400, `unknown field "X"`},
		{"mixed-case Level", `{"x": [[1,2,3]], "Level": 0.9}`, 400, `unknown field "Level"`},
		{"duplicate", `{"x": [[1,2,3]], "x": [[4,5,6]]}`, 400, "appears twice"},
		{"array body", `[[1,2,3]]`, 400, "must be a JSON object"},
		{"both forms", `{"x": [[1,2,3]], "rows": [{"x1":1,"x2":2,"x3":3}]}`, 400, "not both"},
		{"rows unknown feature", `{"rows": [{"x1":1,"x2":2,"X3":3}]}`, 400, `unknown feature "X3"`},
		{"rows missing feature", `{"rows": [{"x1":1,"x2":2}]}`, 400, `feature "x3" is missing`},
		{"rows null", `{"rows": [{"x1":1,"x2":null,"x3":3}]}`, 400, `row 1, feature "x2": null`},
		{"rows duplicate", `{"rows": [{"x1":1,"x2":2,"x3":3,"x1":4}]}`, 400, "appears twice in row 1"},
		{"rows not objects", `{"rows": [[1,2,3]]}`, 400, "must be a JSON object"},
		{"intervals without level", `{"x": [[1,2,3]], "intervals": true}`, 400, `needs a "level"`},
		{"intervals not a bool", `{"x": [[1,2,3]], "level": 0.9, "intervals": "yes"}`, 400, "want true or false"},
		{"intervals null", `{"x": [[1,2,3]], "level": 0.9, "intervals": null}`, 400, "is null"},
		{"leverage not a bool", `{"x": [[1,2,3]], "leverage": 1}`, 400, "want true or false"},
		{"upper-case Leverage", `{"x": [[1,2,3]], "Leverage": true}`, 400, `unknown field "Leverage"`},
		{"outside not a bool", `{"x": [[1,2,3]], "outside": "yes"}`, 400, "want true or false"},
		{"outside null", `{"x": [[1,2,3]], "outside": null}`, 400, "is null"},
	} {
		status, body := post(t, srv.Client(), srv.URL, []byte(tc.body))
		var e testResponse
		if err := json.Unmarshal(body, &e); err != nil || status != tc.status || !strings.Contains(e.Error, tc.says) {
			t.Errorf("%s: status %d, body %s; want %d with an error saying %q", tc.name, status, body, tc.status, tc.says)
		}
	}

	// By name, in any key order, equals the matrix form.
	status, byName := post(t, srv.Client(), srv.URL, []byte(`{"rows": [{"x3": 0.5, "x1": -1, "x2": 2}, {"x1": 0, "x2": 0, "x3": 0}], "level": 0.9}`))
	_, byPos := post(t, srv.Client(), srv.URL, []byte(`{"x": [[-1, 2, 0.5], [0, 0, 0]], "level": 0.9}`))
	if status != 200 || !bytes.Equal(byName, byPos) {
		t.Errorf("status %d: by name %s, by position %s", status, byName, byPos)
	}
	level := 0.9
	lib, _ := libPredict(m, mat.NewDense(2, 3, []float64{-1, 2, 0.5, 0, 0, 0}), -1, &level, false)
	want := bandsOf(lib)
	var got testResponse
	if json.Unmarshal(byName, &got) != nil || got.Predictions[0].testBand != want[0] || got.Predictions[1].testBand != want[1] {
		t.Errorf("got %s, library %+v", byName, want[0])
	}

	// Intervals for a new y are the library's PredictIntervals, bit for
	// bit, and say so.
	status, body := post(t, srv.Client(), srv.URL, []byte(`{"x": [[-1, 2, 0.5], [0, 0, 0]], "level": 0.9, "intervals": true}`))
	libIv, _ := libPredict(m, mat.NewDense(2, 3, []float64{-1, 2, 0.5, 0, 0, 0}), -1, &level, true)
	wantIv := bandsOf(libIv)
	var iv struct {
		Intervals   bool
		Predictions []testBand
		Noise       *struct {
			S     float64
			From  string
			Sigma *float64
		}
	}
	if status != 200 || json.Unmarshal(body, &iv) != nil || !iv.Intervals || iv.Predictions[0] != wantIv[0] || iv.Predictions[1] != wantIv[1] || !(iv.Predictions[0].SE > want[0].SE) {
		t.Errorf("intervals: status %d, %s; library %+v (band %+v)", status, body, wantIv[0], want[0])
	}
	// Both say the noise level that scaled them: the model's σ̂ here (it
	// comes from a fit, not from cross-validation).
	sigma := m.Stats()[m.Chosen().M].Sigma
	if n := iv.Noise; n == nil || n.S != sigma || n.From != "sigma" || n.Sigma == nil || *n.Sigma != sigma {
		t.Errorf("intervals' noise level %+v, want s = σ̂ = %v", iv.Noise, sigma)
	}
	if !bytes.Contains(byName, []byte(`"noise":{"s":`)) {
		t.Errorf("bands without their noise level: %s", byName)
	}

	// A model without names takes only the matrix form.
	plain := httptest.NewServer(mustServer(t, loadTestModel(t)))
	defer plain.Close()
	if status, body := post(t, plain.Client(), plain.URL, []byte(`{"rows": [{"x1":1,"x2":2,"x3":3}]}`)); status != 400 || !bytes.Contains(body, []byte("without feature names")) {
		t.Errorf("rows on an unnamed model: %d %s", status, body)
	}
}

// TestOldComponentsKey: the request field that sets the number of
// components a prediction uses was "components"; it is "m" now, as in
// the response, /healthz and kpls predict --json ("components" is only
// ever the number fitted). A body with the old name is refused with a
// 400 that names the new one, whatever its value, and the same body with
// "m" is served.
func TestOldComponentsKey(t *testing.T) {
	m := loadTestModel(t)
	srv := httptest.NewServer(mustServer(t, m))
	defer srv.Close()
	for _, body := range []string{
		`{"x": [[1,2,3]], "components": 2}`,
		`{"components": 2, "x": [[1,2,3]], "level": 0.9}`,
		`{"x": [[1,2,3]], "components": null}`,
		`{"x": [[1,2,3]], "components": "two"}`,
	} {
		status, out := post(t, srv.Client(), srv.URL, []byte(body))
		var e testResponse
		if err := json.Unmarshal(out, &e); err != nil || status != http.StatusBadRequest ||
			!strings.Contains(e.Error, `field "components" is now "m"`) || !strings.Contains(e.Error, "number of components to predict with") {
			t.Errorf("%s: status %d, %s; want 400 saying to use \"m\"", body, status, out)
		}
	}
	status, out := post(t, srv.Client(), srv.URL, []byte(`{"x": [[1,2,3]], "m": 2}`))
	var got testResponse
	if err := json.Unmarshal(out, &got); err != nil || status != http.StatusOK || got.M == nil || *got.M != 2 || len(got.Predictions) != 1 {
		t.Errorf(`with "m": 2: status %d, %s`, status, out)
	}
	if bytes.Contains(out, []byte(`"components"`)) {
		t.Errorf(`the response says "components" for the m it used: %s`, out)
	}
}

// TestBandBudget: a band request over budget is refused at once with the
// limit in the message; plain predictions of the same size are served.
func TestBandBudget(t *testing.T) {
	m := loadTestModel(t)
	s := mustServer(t, m)
	s.BandBudget = 300 * 50 * float64(max(s.first.Members[0].M, 1)) // 50 points
	srv := httptest.NewServer(s)
	defer srv.Close()
	rows := strings.TrimSuffix(strings.Repeat("[1,2,3],", 51), ",")
	status, body := post(t, srv.Client(), srv.URL, []byte(`{"x": [`+rows+`], "level": 0.98}`))
	if status != http.StatusUnprocessableEntity || !bytes.Contains(body, []byte("send at most 50 points")) || !bytes.Contains(body, []byte(fmt.Sprintf("limit of %.3g", s.BandBudget))) {
		t.Errorf("over budget: %d %s", status, body)
	}
	if status, body := post(t, srv.Client(), srv.URL, []byte(`{"x": [`+rows+`]}`)); status != 200 {
		t.Errorf("plain: %d %s", status, body)
	}
	rows = strings.TrimSuffix(strings.Repeat("[1,2,3],", 50), ",")
	if status, body := post(t, srv.Client(), srv.URL, []byte(`{"x": [`+rows+`], "level": 0.98}`)); status != 200 {
		t.Errorf("at budget: %d %s", status, body)
	}
}

// TestLogsAndMetrics: one structured log line per request with its id,
// status, points and latency; counts and latency histograms on /metrics.
func TestLogsAndMetrics(t *testing.T) {
	var logs bytes.Buffer
	s := mustServer(t, loadTestModel(t))
	s.Log = slog.New(slog.NewJSONHandler(&logs, nil))
	srv := httptest.NewServer(s)
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/predict", strings.NewReader(`{"x": [[1,2,3],[0,0,0]]}`))
	req.Header.Set("X-Request-Id", "abc-123")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Request-Id") != "abc-123" {
		t.Errorf("request id not echoed: %q", resp.Header.Get("X-Request-Id"))
	}
	post(t, srv.Client(), srv.URL, []byte(`{"X": []}`))

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, v)
	}
	if len(lines) != 2 || lines[0]["id"] != "abc-123" || lines[0]["status"] != 200.0 || lines[0]["points"] != 2.0 ||
		lines[0]["latency_ms"] == nil || lines[1]["status"] != 400.0 || lines[1]["error"] == nil || len(lines[1]["id"].(string)) != 16 {
		t.Errorf("log lines:\n%s", logs.String())
	}

	resp, err = srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`kpls_http_requests_total{code="200",path="/predict"} 1`,
		`kpls_http_requests_total{code="400",path="/predict"} 1`,
		`kpls_http_request_duration_seconds_count{bands="false",path="/predict"} 2`,
		`kpls_predict_points_count{bands="false"} 1`,
		"go_goroutines",
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

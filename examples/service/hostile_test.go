package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// manyKeys is a body of one row and k unknown names (80,000: 0.88 MB).
func manyKeys(k int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"x":[[1,2,3]]`)
	for i := range k {
		fmt.Fprintf(&b, `,"u%05d":0`, i)
	}
	b.WriteString("}")
	return b.Bytes()
}

// TestManyKeys: a body of 80,000 unknown names took 23 s of CPU (each
// name was compared with all before it); it is now refused at the first.
// The bound is generous for a shared machine: the refusal takes well
// under a millisecond of decoding.
func TestManyKeys(t *testing.T) {
	srv := httptest.NewServer(mustServer(t, namedModel(t)))
	defer srv.Close()
	var rows strings.Builder
	rows.WriteString(`{"rows":[{"x1":1,"x2":2,"x3":3`)
	for i := range 80000 {
		fmt.Fprintf(&rows, `,"u%05d":0`, i)
	}
	for _, tc := range []struct {
		name string
		body []byte
		says string
	}{
		{"unknown names", manyKeys(80000), `unknown field \"u00000\"`},
		{"repeated x", []byte(`{"x":[[1,2,3]]` + strings.Repeat(`,"x":[[1,2,3]]`, 80000) + "}"), "appears twice"},
		{"unknown features", []byte(rows.String() + "}]}"), `unknown feature \"u00000\"`},
	} {
		t0 := time.Now()
		status, body := post(t, srv.Client(), srv.URL, tc.body)
		el := time.Since(t0)
		if status != 400 || !bytes.Contains(body, []byte(tc.says)) || el > time.Second {
			t.Errorf("%s (%d bytes): status %d in %v, %.200s; want 400 saying %s within 1 s", tc.name, len(tc.body), status, el, body, tc.says)
		}
	}
}

// TestLevelRoundsToOne: a level below 1 whose normal quantile is
// infinite (1 - (1-level)/2 rounds to 1) is a 400, not a 500 for
// infinite bounds; the next level down is served.
func TestLevelRoundsToOne(t *testing.T) {
	srv := httptest.NewServer(mustServer(t, loadTestModel(t)))
	defer srv.Close()
	status, body := post(t, srv.Client(), srv.URL, []byte(`{"x":[[1,2,3]],"level":0.9999999999999999}`))
	if status != 400 || !bytes.Contains(body, []byte("too close to 1")) {
		t.Errorf("level 0.9999999999999999: %d %s", status, body)
	}
	status, body = post(t, srv.Client(), srv.URL, []byte(`{"x":[[1,2,3]],"level":0.9999999999999998}`))
	var r testResponse
	if status != 200 || json.Unmarshal(body, &r) != nil || len(r.Predictions) != 1 || !(r.Predictions[0].Upper > r.Predictions[0].Yhat) {
		t.Errorf("level 0.9999999999999998: %d %s", status, body)
	}
}

// TestEchoClipped: input repeated in an error, in the response and in the
// log, is cut to its first 200 bytes with a marker.
func TestEchoClipped(t *testing.T) {
	var logs bytes.Buffer
	s := mustServer(t, namedModel(t))
	s.Log = slog.New(slog.NewJSONHandler(&logs, nil))
	srv := httptest.NewServer(s)
	defer srv.Close()
	long := strings.Repeat("a", 1<<20)
	for _, body := range []string{
		`{"` + long + `": 1}`,
		`{"rows": [{"` + long + `": 1}]}`,
		`{"x": [[1` + strings.Repeat("0", 1<<20) + `e999, 2, 3]]}`,
	} {
		status, resp := post(t, srv.Client(), srv.URL, []byte(body))
		if status != 400 || len(resp) > 1000 || !bytes.Contains(resp, []byte("truncated: 1048")) {
			t.Errorf("status %d, %d bytes: %.300s", status, len(resp), resp)
		}
	}
	resp, err := srv.Client().Get(srv.URL + "/" + long)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || len(b) > 1000 {
		t.Errorf("long path: status %d, %d bytes", resp.StatusCode, len(b))
	}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if len(l) > 2000 {
			t.Errorf("log line of %d bytes: %.300s", len(l), l)
		}
	}
}

// TestCostLimit: with the cost model measured, a plain prediction (and a
// band request) estimated over half the timeout is refused at once with
// 413 and the most points that fit; a small one is served.
func TestCostLimit(t *testing.T) {
	s := mustServer(t, loadTestModel(t))
	if err := s.Calibrate(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	plain, band := s.CostModel()
	if !(plain > 0 && band > 0) {
		t.Fatalf("cost model %g, %g", plain, band)
	}
	// Scaled to a slow machine: 50 µs per plain point, 32 ms per block of
	// band points (bandBlock), so that the limit (1 s of a 2 s timeout)
	// falls at 20,000 plain points and 1,000 band points (31 blocks).
	n, d, m := float64(s.first.N), float64(s.first.D), float64(max(s.first.Members[0].M, 1))
	s.adm.plain, s.adm.band = 50e-6/(n*(d+1)), 32e-3/(n*m)
	s.Timeout = 2 * time.Second
	srv := httptest.NewServer(s)
	defer srv.Close()
	rows := func(p int) string { return strings.TrimSuffix(strings.Repeat("[1,2,3],", p), ",") }
	for _, tc := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"x": [` + rows(100000) + `]}`, 413, "send at most 20000 points"},
		{`{"x": [` + rows(4992) + `], "level": 0.9}`, 413, "send at most 1000 points"},
		{`{"x": [` + rows(1) + `]}`, 200, ""},
	} {
		t0 := time.Now()
		status, body := post(t, srv.Client(), srv.URL, []byte(tc.body))
		if status != tc.status || !bytes.Contains(body, []byte(tc.says)) {
			t.Errorf("%.40s…: status %d in %v, %.300s; want %d saying %q", tc.body, status, time.Since(t0), body, tc.status, tc.says)
		}
	}
	// A band request of one point costs a whole block: where a block
	// takes longer than the limit, one point is refused at once too.
	s.adm.band = 1.5 / (n * m)
	if status, body := post(t, srv.Client(), srv.URL, []byte(`{"x": [`+rows(1)+`], "level": 0.9}`)); status != 413 || !bytes.Contains(body, []byte("even one point")) {
		t.Errorf("one band point at 1.5 s a block: status %d, %s", status, body)
	}
}

// TestSlowBody: a client that stops sending holds its decode slot only
// until its request's deadline (then 503); another request waits for that
// slot meanwhile, and gets it then.
func TestSlowBody(t *testing.T) {
	s := mustServer(t, loadTestModel(t))
	s.MaxDecodes = 1
	s.Timeout = 300 * time.Millisecond
	srv := httptest.NewServer(s)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t0 := time.Now()
	fmt.Fprintf(conn, "POST /predict HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"x\": [[1,")
	time.Sleep(50 * time.Millisecond) // the slow request takes the slot
	status, body := post(t, srv.Client(), srv.URL, []byte(`{"x":[[1,2,3]]}`))
	if el := time.Since(t0); status != 200 || el < 250*time.Millisecond {
		t.Errorf("while the slot is held: %d after %v, %s; want 200 once the slow request's deadline has passed", status, el, body)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(conn)
	if !bytes.Contains(b, []byte("503")) || !bytes.Contains(b, []byte("not read within")) {
		t.Errorf("slow client got %q after %v", b, time.Since(t0))
	}
}

// hostileBodies are bodies at the 8 MiB limit that the old decoder read
// whole and expanded: one-value rows (a wrong number of features), three-
// value rows (far more than MaxPoints) and one 8 MiB name.
func hostileBodies(limit int) [][]byte {
	size := limit - 64
	return [][]byte{
		[]byte(`{"x":[` + strings.Repeat("[0],", size/4) + `[0]]}`),
		[]byte(`{"x":[` + strings.Repeat("[0,0,0],", size/8) + `[0,0,0]]}`),
		[]byte(`{"` + strings.Repeat("a", size) + `":1}`),
	}
}

// TestHostileLoad sends 60 hostile 8 MiB bodies at once over loopback
// (20 of each kind) and samples the heap: the old decoder grew it by over
// 10 GiB; now at most MaxDecodes bodies are read at once, each holding at
// most its largest token and MaxPoints rows. Every hostile request must
// be refused (400, or 503 unread when its deadline passed waiting for a
// decode slot; or its connection closed after the refusal), and the
// server must answer correctly afterwards.
func TestHostileLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 480 MiB over loopback")
	}
	ref := loadTestModel(t)
	s := mustServer(t, loadTestModel(t))
	srv := httptest.NewServer(s)
	defer srv.Close()
	bodies := hostileBodies(DefaultMaxBytes)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peak.Load() {
					peak.Store(ms.HeapAlloc)
				}
			}
		}
	})
	t0 := time.Now()
	var wg sync.WaitGroup
	var refused, closed atomic.Int64
	for i := range 60 {
		wg.Go(func() {
			resp, err := client.Post(srv.URL+"/predict", "application/json", bytes.NewReader(bodies[i%len(bodies)]))
			if err != nil {
				closed.Add(1) // the server refused and closed before the body was sent
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			// Refused: 400 once read, or 503 when the request's deadline
			// passed while it waited for a decode slot (unread: under the
			// race detector 60 bodies through 4 slots take longer than
			// the timeout).
			waited := resp.StatusCode == 503 && bytes.Contains(b, []byte("not read within"))
			if resp.StatusCode != 400 && !waited || len(b) > 1000 {
				t.Errorf("hostile body %d: status %d, %.300s", i%len(bodies), resp.StatusCode, b)
			}
			refused.Add(1)
		})
	}
	wg.Wait()
	close(stop)
	sampler.Wait()
	growth := int64(peak.Load()) - int64(base)
	// Per decode slot: an 8 MiB name in the decoder's buffer (grown by
	// doubling) and its string, about 32 MiB; the heap counts garbage not
	// yet collected besides, so allow twice that, plus the client side's
	// buffers.
	bound := int64(cap(s.admission().decodes))*64<<20 + 64<<20
	t.Logf("60 hostile 8 MiB bodies: %d refused, %d closed early, in %v; heap %d MiB before, peak growth %d MiB (bound %d MiB, %d decode slots)",
		refused.Load(), closed.Load(), time.Since(t0).Round(time.Millisecond), base>>20, growth>>20, bound>>20, cap(s.admission().decodes))
	if growth > bound {
		t.Errorf("heap grew by %d MiB, over the bound of %d MiB", growth>>20, bound>>20)
	}
	for i, c := range makeCases(t, ref, 12) {
		status, body := post(t, srv.Client(), srv.URL, c.body)
		if err := c.check(status, body); err != nil {
			t.Errorf("after the hostile load, request %d: %v", i, err)
		}
	}
}

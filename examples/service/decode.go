package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The body of POST /predict is decoded as it is read, token by token
// (json.Decoder.Token), never as a whole: every name is checked when it
// is read (an unknown or repeated one ends the decode there), every row is
// checked against the model's number of features as its values arrive,
// and the points go straight into one []float64 that stops growing at
// MaxPoints rows. So the time of a decode is linear in the bytes read
// (the old decoder compared each name with all before it: quadratic, 23 s
// of CPU for 80,000 names), and its memory is bounded by the largest
// single token (at most MaxBytes) plus MaxPoints × d values, whatever the
// body holds. The request's context is checked every checkEvery tokens and
// stops a blocked read through the connection's read deadline.

// checkEvery is how many tokens a decode reads between looks at its context.
const checkEvery = 1024

// decodeError is a refusal with its HTTP status.
type decodeError struct {
	status int
	msg    string
}

func (e *decodeError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &decodeError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// decodeBody reads the request body of r within ctx and returns the
// request and its points. It waits for a decode slot first, so that at
// most MaxDecodes bodies are being read and held at once. The status is
// that of the refusal when err is not nil.
func (s *Server) decodeBody(ctx context.Context, w http.ResponseWriter, r *http.Request) (*predictRequest, *mat.Dense, int, error) {
	a := s.admission()
	select {
	case a.decodes <- struct{}{}:
		defer func() { <-a.decodes }()
	case <-ctx.Done():
		return nil, nil, http.StatusServiceUnavailable, fmt.Errorf("busy: no slot to read the body within %v", s.Timeout)
	}
	// A read blocked on a slow client ends at the request's deadline.
	if dl, ok := ctx.Deadline(); ok {
		_ = http.NewResponseController(w).SetReadDeadline(dl)
	}
	b := &bodyDecoder{
		ctx:       ctx,
		dec:       json.NewDecoder(&ctxReader{ctx: ctx, r: http.MaxBytesReader(w, r.Body, s.MaxBytes)}),
		features:  s.features,
		d:         s.first.D,
		maxPoints: s.MaxPoints,
	}
	b.dec.UseNumber()
	req, x, err := b.request()
	if err == nil {
		return req, x, http.StatusOK, nil
	}
	var de *decodeError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &de):
		return nil, nil, de.status, err
	case errors.As(err, &tooBig):
		return nil, nil, http.StatusRequestEntityTooLarge, fmt.Errorf("the body exceeds %d bytes", tooBig.Limit)
	case ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded):
		return nil, nil, http.StatusServiceUnavailable, fmt.Errorf("the body was not read within %v", s.Timeout)
	}
	return nil, nil, http.StatusBadRequest, fmt.Errorf("reading the body: %v", err)
}

// ctxReader fails its reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// bodyDecoder decodes one request body.
type bodyDecoder struct {
	ctx       context.Context
	dec       *json.Decoder
	features  []string // nil when the model has none
	d         int
	maxPoints int
	tokens    int
}

// token reads the next token. Errors of the reader (size limit, deadline,
// context) come back as they are; the decoder's are bad JSON.
func (b *bodyDecoder) token() (json.Token, error) {
	if b.tokens++; b.tokens%checkEvery == 0 {
		if err := b.ctx.Err(); err != nil {
			return nil, err
		}
	}
	tok, err := b.dec.Token()
	if err == nil {
		return tok, nil
	}
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return nil, badRequest("bad JSON: %s", clip(err.Error()))
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, badRequest("bad JSON: the body ends too soon")
	case errors.As(err, new(*http.MaxBytesError)), b.ctx.Err() != nil, errors.Is(err, os.ErrDeadlineExceeded):
		return nil, err
	}
	// Other decoder errors (e.g. a name where a value belongs) are about the JSON.
	return nil, badRequest("bad JSON: %s", clip(err.Error()))
}

// request decodes the whole body.
func (b *bodyDecoder) request() (*predictRequest, *mat.Dense, error) {
	tok, err := b.token()
	if err != nil {
		return nil, nil, err
	}
	if tok != json.Delim('{') {
		return nil, nil, badRequest("the body must be a JSON object, not %s", kind(tok))
	}
	req := &predictRequest{}
	var x *mat.Dense
	seen := make([]bool, len(requestFields))
	for b.dec.More() {
		tok, err := b.token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := tok.(string) // the decoder only returns strings as object keys
		i := slices.Index(requestFields, name)
		if now, ok := renamedFields[name]; ok {
			return nil, nil, badRequest("field %q is now %q: give the number of components to predict with as %q", name, now, now)
		}
		if i < 0 {
			return nil, nil, badRequest("unknown field %s (the fields are %s; names are case-sensitive)", echo(name), strings.Join(requestFields, ", "))
		}
		if seen[i] {
			return nil, nil, badRequest("field %q appears twice in the body", name)
		}
		seen[i] = true
		if (name == "x" && seen[1]) || (name == "rows" && seen[0]) {
			return nil, nil, badRequest(`give the points as "x" or as "rows", not both`)
		}
		switch name {
		case "x":
			x, err = b.matrix()
		case "rows":
			x, err = b.named()
		case "m":
			err = b.number(name, func(num string) error {
				c, err := strconv.Atoi(num)
				if err != nil {
					return badRequest(`"m": bad JSON: number %s is not a valid int`, clip(num))
				}
				req.M = &c
				return nil
			})
		case "level":
			err = b.number(name, func(num string) error {
				l, err := strconv.ParseFloat(num, 64)
				if err != nil {
					return badRequest(`"level": bad JSON: number %s is not a valid float64`, clip(num))
				}
				if err := checkLevel(l); err != nil {
					return err
				}
				req.Level = &l
				return nil
			})
		case "intervals":
			err = b.boolean(name, &req.Intervals)
		case "leverage":
			err = b.boolean(name, &req.Leverage)
		case "outside":
			err = b.boolean(name, &req.Outside)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if _, err := b.token(); err != nil { // the closing brace
		return nil, nil, err
	}
	if _, err := b.dec.Token(); err != io.EOF {
		return nil, nil, badRequest("bad JSON: more than one JSON value in the body")
	}
	switch {
	case req.Intervals && req.Level == nil:
		return nil, nil, badRequest(`"intervals": true needs a "level" (e.g. 0.95)`)
	case x == nil:
		return nil, nil, badRequest(`no rows: "x" or "rows" is missing or empty`)
	}
	return req, x, nil
}

// checkLevel refuses a level outside (0, 1), and one so close to 1 that
// the normal quantile of its two-sided band is not finite (0.9999999999999999:
// 1 - (1-level)/2 rounds to 1), which would make infinite bounds.
func checkLevel(l float64) error {
	if !(l > 0 && l < 1) {
		return badRequest("level must lie strictly between 0 and 1, got %g", l)
	}
	if q := distuv.UnitNormal.Quantile(1 - (1-l)/2); math.IsInf(q, 0) || math.IsNaN(q) {
		return badRequest("level %v is too close to 1: its normal quantile is not finite (at most 0.9999999999999998)", l)
	}
	return nil
}

// number reads the value of a numeric field and hands its text to set.
func (b *bodyDecoder) number(name string, set func(string) error) error {
	tok, err := b.token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Number:
		return set(string(v))
	case nil:
		return badRequest("%q is null: leave the field out instead", name)
	}
	return badRequest("%q: bad JSON: got %s where a number is wanted", name, kindJSON(tok))
}

// boolean reads the value of a boolean field.
func (b *bodyDecoder) boolean(name string, dst *bool) error {
	tok, err := b.token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case bool:
		*dst = v
		return nil
	case nil:
		return badRequest("%q is null: leave the field out instead", name)
	}
	return badRequest("%q: bad JSON: got %s, want true or false", name, kindJSON(tok))
}

// open reads the opening delimiter of the value of a field.
func (b *bodyDecoder) open(name string, want json.Delim, what string) error {
	tok, err := b.token()
	if err != nil {
		return err
	}
	switch {
	case tok == nil:
		return badRequest("%q is null: leave the field out instead", name)
	case tok != want:
		return badRequest("%q: want %s, got %s", name, what, kindJSON(tok))
	}
	return nil
}

// tooMany refuses the row after the last one allowed.
func (b *bodyDecoder) tooMany() error {
	return badRequest("more than %d points in one request, the limit is %d", b.maxPoints, b.maxPoints)
}

// value reads one number of a row; where names it in a message, and sep
// comes between that name and "null".
func (b *bodyDecoder) value(where func() string, sep string) (float64, error) {
	tok, err := b.token()
	if err != nil {
		return 0, err
	}
	switch v := tok.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return 0, badRequest("%s: bad JSON: number %s is not a valid float64", where(), clip(string(v)))
		}
		return f, nil
	case nil:
		return 0, badRequest("%s%snull, want a number", where(), sep)
	}
	return 0, badRequest("%s: bad JSON: got %s where a number is wanted", where(), kindJSON(tok))
}

// matrix reads "x": [[number, ...], ...], every row d numbers.
func (b *bodyDecoder) matrix() (*mat.Dense, error) {
	if err := b.open("x", json.Delim('['), "an array of rows"); err != nil {
		return nil, err
	}
	var data []float64
	rows := 0
	for b.dec.More() {
		if rows == b.maxPoints {
			return nil, b.tooMany()
		}
		i := rows + 1
		tok, err := b.token()
		if err != nil {
			return nil, err
		}
		switch {
		case tok == nil:
			return nil, badRequest("row %d is null", i)
		case tok != json.Delim('['):
			return nil, badRequest(`"x": row %d is %s, want an array of numbers`, i, kindJSON(tok))
		}
		j := 0
		for b.dec.More() {
			if j == b.d {
				return nil, b.rowLength(i, fmt.Sprintf("more than %d", b.d))
			}
			v, err := b.value(func() string { return fmt.Sprintf("row %d, value %d", i, j+1) }, " is ")
			if err != nil {
				return nil, err
			}
			data = append(data, v)
			j++
		}
		if _, err := b.token(); err != nil {
			return nil, err
		}
		if j != b.d {
			return nil, b.rowLength(i, strconv.Itoa(j))
		}
		rows++
	}
	if _, err := b.token(); err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, badRequest(`no rows: "x" is empty`)
	}
	return mat.NewDense(rows, b.d, data), nil
}

// rowLength refuses row i for holding count values.
func (b *bodyDecoder) rowLength(i int, count string) error {
	if i == 1 {
		return badRequest("wrong number of features: the rows have %s values, the model takes %d", count, b.d)
	}
	return badRequest("ragged rows: row %d has %s values, row 1 has %d", i, count, b.d)
}

// named reads "rows": [{"feature": number, ...}, ...] into rows in the
// model's feature order; every feature must be given exactly once, by its
// exact name.
func (b *bodyDecoder) named() (*mat.Dense, error) {
	if len(b.features) != b.d {
		return nil, badRequest(`the model was saved without feature names: give the points as "x"`)
	}
	if err := b.open("rows", json.Delim('['), "an array of objects"); err != nil {
		return nil, err
	}
	index := make(map[string]int, b.d)
	for j, f := range b.features {
		index[f] = j
	}
	var data []float64
	got := make([]bool, b.d)
	rows := 0
	for b.dec.More() {
		if rows == b.maxPoints {
			return nil, b.tooMany()
		}
		i := rows + 1
		tok, err := b.token()
		if err != nil {
			return nil, err
		}
		if tok != json.Delim('{') {
			return nil, badRequest(`"rows": row %d must be a JSON object, not %s`, i, kind(tok))
		}
		row := len(data)
		data = append(data, make([]float64, b.d)...)
		clear(got)
		for b.dec.More() {
			tok, err := b.token()
			if err != nil {
				return nil, err
			}
			name, _ := tok.(string)
			j, ok := index[name]
			if !ok {
				return nil, badRequest(`"rows": row %d: unknown feature %s (the model's features are %s; names are case-sensitive)`, i, echo(name), clip(strings.Join(b.features, ", ")))
			}
			if got[j] {
				return nil, badRequest(`"rows": field %q appears twice in row %d`, name, i)
			}
			got[j] = true
			if data[row+j], err = b.value(func() string { return fmt.Sprintf(`"rows": row %d, feature %q`, i, name) }, ": "); err != nil {
				return nil, err
			}
		}
		if _, err := b.token(); err != nil {
			return nil, err
		}
		if j := slices.Index(got, false); j >= 0 {
			return nil, badRequest(`"rows": row %d: feature %q is missing`, i, b.features[j])
		}
		rows++
	}
	if _, err := b.token(); err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, badRequest(`no rows: "rows" is empty`)
	}
	return mat.NewDense(rows, b.d, data), nil
}

// kind names the JSON value a token starts, for "must be ..., not %s".
func kind(tok json.Token) string {
	switch tok {
	case json.Delim('['):
		return "an array"
	case json.Delim('{'):
		return "an object"
	}
	switch tok.(type) {
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return "a JSON value"
}

// kindJSON is kind as "a JSON string", "a JSON array", ...
func kindJSON(tok json.Token) string {
	k := kind(tok)
	if a, rest, ok := strings.Cut(k, " "); ok {
		return a + " JSON " + rest
	}
	return "JSON " + k
}

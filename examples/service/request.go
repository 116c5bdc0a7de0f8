package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// predictRequest is the body of POST /predict: the points as a matrix
// ("x", columns in the model's feature order) or as objects keyed by
// feature name ("rows"); "components", "level", "intervals" and
// "leverage" and "outside" are optional: a level asks for confidence
// bands, with "intervals": true for prediction intervals at that level
// instead, "leverage": true for every point's leverage in the model's
// score space, and "outside": true for whether the model extrapolates to
// it (kpls.Extrapolation, the rules of `kpls predict`).
type predictRequest struct {
	X          [][]float64
	Components *int
	Level      *float64
	Intervals  bool
	Leverage   bool
	Outside    bool
}

// requestFields are the names a request may hold, exactly as spelled.
var requestFields = []string{"x", "rows", "components", "level", "intervals", "leverage", "outside"}

// parseRequest decodes a body strictly. encoding/json is lenient where a
// service must not be: it matches field names case-insensitively (even
// with DisallowUnknownFields), reads null as the zero value (so [[null, 0]]
// would become [[0, 0]]), and keeps the last of duplicated fields. Here the
// top level and every "rows" object are walked token by token, names must
// match exactly and once, and every number must be a number. features are
// the model's feature names (nil if it was saved without them); d is its
// number of features.
func parseRequest(body []byte, features []string, d int) (*predictRequest, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	fields, err := object(dec, "the body")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("bad JSON: more than one JSON value in the body")
	}
	for _, f := range fields {
		if !slices.Contains(requestFields, f.name) {
			return nil, fmt.Errorf("unknown field %q (the fields are %s; names are case-sensitive)", f.name, strings.Join(requestFields, ", "))
		}
	}
	req := &predictRequest{}
	var rowsRaw json.RawMessage
	for _, f := range fields {
		if isNull(f.value) {
			return nil, fmt.Errorf("%q is null: leave the field out instead", f.name)
		}
		var err error
		switch f.name {
		case "x":
			req.X, err = matrix(f.value)
		case "rows":
			rowsRaw = f.value
		case "components":
			req.Components = new(int)
			err = strictNumber(f.value, req.Components)
		case "level":
			req.Level = new(float64)
			err = strictNumber(f.value, req.Level)
		case "intervals":
			err = boolField(f.value, &req.Intervals)
		case "leverage":
			err = boolField(f.value, &req.Leverage)
		case "outside":
			err = boolField(f.value, &req.Outside)
		}
		if err != nil {
			return nil, fmt.Errorf("%q: %w", f.name, err)
		}
	}
	switch {
	case req.Intervals && req.Level == nil:
		return nil, errors.New(`"intervals": true needs a "level" (e.g. 0.95)`)
	case req.X != nil && rowsRaw != nil:
		return nil, errors.New(`give the points as "x" or as "rows", not both`)
	case rowsRaw != nil:
		if len(features) != d {
			return nil, errors.New(`the model was saved without feature names: give the points as "x"`)
		}
		if req.X, err = named(rowsRaw, features); err != nil {
			return nil, fmt.Errorf(`"rows": %w`, err)
		}
	}
	return req, nil
}

// boolField decodes a boolean field.
func boolField(v json.RawMessage, dst *bool) error {
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("bad JSON: %v, want true or false", jsonError(err))
	}
	return nil
}

type field struct {
	name  string
	value json.RawMessage
}

// object reads one JSON object from dec, keeping its members in order and
// rejecting duplicate names.
func object(dec *json.Decoder, what string) ([]field, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("bad JSON: %v", err)
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("%s must be a JSON object, not %v", what, describe(tok))
	}
	var fields []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("bad JSON: %v", err)
		}
		name := tok.(string) // the decoder only returns strings as object keys
		for _, f := range fields {
			if f.name == name {
				return nil, fmt.Errorf("field %q appears twice in %s", name, what)
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("bad JSON: %v", err)
		}
		fields = append(fields, field{name, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("bad JSON: %v", err)
	}
	return fields, nil
}

func describe(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	}
	return "a number"
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// strictNumber decodes a JSON number into v, refusing strings and null.
func strictNumber[T int | float64](raw json.RawMessage, v *T) error {
	if isNull(raw) {
		return errors.New("null, want a number")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("bad JSON: %v", jsonError(err))
	}
	return nil
}

// matrix decodes [[number, ...], ...], naming any null by its position.
func matrix(raw json.RawMessage) ([][]float64, error) {
	var cells [][]*float64
	if err := json.Unmarshal(raw, &cells); err != nil {
		return nil, fmt.Errorf("bad JSON: %v", jsonError(err))
	}
	x := make([][]float64, len(cells))
	for i, row := range cells {
		if row == nil {
			return nil, fmt.Errorf("row %d is null", i+1)
		}
		x[i] = make([]float64, len(row))
		for j, c := range row {
			if c == nil {
				return nil, fmt.Errorf("row %d, value %d is null, want a number", i+1, j+1)
			}
			x[i][j] = *c
		}
	}
	return x, nil
}

// named decodes [{"feature": number, ...}, ...] into rows in the model's
// feature order; every feature must be given exactly once, by its exact
// name.
func named(raw json.RawMessage, features []string) ([][]float64, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errors.New("want an array of objects")
	}
	var x [][]float64
	for dec.More() {
		i := len(x) + 1
		fields, err := object(dec, fmt.Sprintf("row %d", i))
		if err != nil {
			return nil, err
		}
		row := make([]float64, len(features))
		got := make([]bool, len(features))
		for _, f := range fields {
			j := slices.Index(features, f.name)
			if j < 0 {
				return nil, fmt.Errorf("row %d: unknown feature %q (the model's features are %s; names are case-sensitive)", i, f.name, strings.Join(features, ", "))
			}
			if err := strictNumber(f.value, &row[j]); err != nil {
				return nil, fmt.Errorf("row %d, feature %q: %w", i, f.name, err)
			}
			got[j] = true
		}
		if j := slices.Index(got, false); j >= 0 {
			return nil, fmt.Errorf("row %d: feature %q is missing", i, features[j])
		}
		x = append(x, row)
	}
	return x, nil
}

// jsonError shortens encoding/json's type errors to what the client sent.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if strings.HasPrefix(te.Value, "number") {
			return fmt.Errorf("%s is not a valid %s", te.Value, te.Type)
		}
		return fmt.Errorf("got a JSON %s where a number is wanted", te.Value)
	}
	return err
}

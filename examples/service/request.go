package main

// predictRequest is the body of POST /predict: the points as a matrix
// ("x", columns in the model's feature order) or as objects keyed by
// feature name ("rows"); "components", "level", "intervals" and
// "leverage" and "outside" are optional: a level asks for confidence
// bands, with "intervals": true for prediction intervals at that level
// instead, "leverage": true for every point's leverage in the model's
// score space, and "outside": true for whether the model extrapolates to
// it (kpls.Extrapolation, the rules of `kpls predict`).
type predictRequest struct {
	Components *int
	Level      *float64
	Intervals  bool
	Leverage   bool
	Outside    bool
}

// requestFields are the names a request may hold, exactly as spelled.
// decode.go reads a body strictly: encoding/json is lenient where a
// service must not be: it matches field names case-insensitively (even
// with DisallowUnknownFields), reads null as the zero value (so [[null, 0]]
// would become [[0, 0]]), and keeps the last of duplicated fields. There
// names must match exactly and once, and every number must be a number.
var requestFields = []string{"x", "rows", "components", "level", "intervals", "leverage", "outside"}

package main

// predictRequest is the body of POST /predict: the points as a matrix
// ("x", columns in the model's feature order) or as objects keyed by
// feature name ("rows"); "m" (the number of components to predict with),
// "level", "intervals", "leverage" and "outside" are optional: a level asks for confidence
// bands, with "intervals": true for prediction intervals at that level
// instead, "leverage": true for every point's leverage in the model's
// score space, and "outside": true for whether the model extrapolates to
// it (kpls.Extrapolation, the rules of `kpls predict`).
type predictRequest struct {
	M         *int
	Level     *float64
	Intervals bool
	Leverage  bool
	Outside   bool
}

// requestFields are the names a request may hold, exactly as spelled.
// decode.go reads a body strictly: encoding/json is lenient where a
// service must not be: it matches field names case-insensitively (even
// with DisallowUnknownFields), reads null as the zero value (so [[null, 0]]
// would become [[0, 0]]), and keeps the last of duplicated fields. There
// names must match exactly and once, and every number must be a number.
var requestFields = []string{"x", "rows", "m", "level", "intervals", "leverage", "outside"}

// renamedFields are names a request once held, each with the one that
// replaced it: a body with one is refused with a message that names the
// new field, rather than as unknown. "components" is now "m", as in the
// responses and in kpls predict --json: "components" is only ever the
// number of components fitted (M, /healthz), never the m a prediction uses.
var renamedFields = map[string]string{"components": "m"}

package kpls

import (
	"encoding/json"
	"fmt"
)

// WarningCode says what kind of thing a warning reports, for programs
// that act on warnings; the message says it for people.
type WarningCode string

const (
	// WarnConstantFeature: a feature is constant in the training data and
	// is left unscaled.
	WarnConstantFeature WarningCode = "constant_feature"
	// WarnStopped: the fit stopped before the components asked for
	// (Model.Stop says why).
	WarnStopped WarningCode = "stopped"
	// WarnFewerComponents: fewer components are valid than were asked for.
	WarnFewerComponents WarningCode = "fewer_components"
	// WarnDoFUnknown: the DoF of some m could not be computed reliably and
	// are NaN (null in JSON).
	WarnDoFUnknown WarningCode = "dof_unknown"
	// WarnLanczosShort: the Lanczos DoF used fewer steps than asked for.
	WarnLanczosShort WarningCode = "lanczos_short"
	// WarnChoiceAtEdge: a criterion chose the largest m fitted, so a larger
	// m might score better.
	WarnChoiceAtEdge WarningCode = "choice_at_edge"
	// WarnScanStopped: a criterion's scan over m stopped at an unknown DoF.
	WarnScanStopped WarningCode = "scan_stopped"
	// WarnWidthAtEdge: the best width is at the edge of the searched grid.
	WarnWidthAtEdge WarningCode = "width_at_edge"
	// WarnBudget: Select's budget of passes over the kernel matrix
	// stopped it from extending the components further.
	WarnBudget WarningCode = "budget"
	// WarnStorage: the fit changed the storage of the kernel matrix that
	// auto had chosen (float32 to hybrid, which is float64) because the
	// float32 fit stopped early, near breakdown; or, over MPI ranks, the
	// storage asked for (dense, float32) is held as each rank's share of
	// the tiles (hybrid).
	WarnStorage WarningCode = "storage"
	// WarnKept: the model holds fewer components than its fit found valid:
	// it was kept to m components (Model.Truncated) before being saved.
	WarnKept WarningCode = "kept"
	// WarnWeights: rows of weight 0 were left out of a weighted fit.
	WarnWeights WarningCode = "weights"
	// WarnAveraging: Select averaged every grid point within the margin
	// because stacking could not choose among them.
	WarnAveraging WarningCode = "averaging"
	// WarnScreen: Select could not search its screen's sample (a target
	// constant there, say) and searched every grid point on all rows.
	WarnScreen WarningCode = "screen"
	// WarnRelevance: Select could not learn or search the features'
	// weights on a small set (SelectOptions.Isotropic) and kept them
	// equal.
	WarnRelevance WarningCode = "relevance"
	// WarnOther: a warning read from a model file of format version 2 or
	// older, which stored messages only.
	WarnOther WarningCode = "other"
)

// Warning is something a fit or a selection found worth saying: a code
// for programs and a message for people. The zero value is an empty
// message of no kind.
type Warning struct {
	Code    WarningCode `json:"code"`
	Message string      `json:"message"`
}

func (w Warning) String() string { return w.Message }

func warnf(code WarningCode, format string, args ...any) Warning {
	return Warning{Code: code, Message: fmt.Sprintf(format, args...)}
}

// prefixed returns the warning with its message prefixed.
func (w Warning) prefixed(p string) Warning {
	w.Message = p + ": " + w.Message
	return w
}

// UnmarshalJSON reads a warning object, or a bare message as written by
// model files of format version 2 and older (code WarnOther).
func (w *Warning) UnmarshalJSON(b []byte) error {
	var msg string
	if err := json.Unmarshal(b, &msg); err == nil {
		*w = Warning{Code: WarnOther, Message: msg}
		return nil
	}
	type plain Warning
	return json.Unmarshal(b, (*plain)(w))
}

// Messages returns the warnings' messages, as the command's JSON writes
// them.
func messages(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Message
	}
	return out
}

// StopReason says why a fit ran fewer Krylov steps than it was asked for.
type StopReason string

const (
	// StopNone: the fit ran every step asked for (the zero value).
	StopNone StopReason = ""
	// StopNoWeight: the residual has no weight on the kernel (rᵀKr ≤ 0):
	// y is fitted as far as K can.
	StopNoWeight StopReason = "no_weight"
	// StopOrthogonality: the K-normalised residuals lost K-orthogonality
	// (docs/design.md §2).
	StopOrthogonality StopReason = "k_orthogonality"
	// StopExhausted: the Krylov space is exhausted (the new direction is
	// almost entirely in the span of the previous ones).
	StopExhausted StopReason = "krylov_exhausted"
	// StopRitzSpread: the Ritz values span more than float64 resolves.
	StopRitzSpread StopReason = "ritz_spread"
	// StopStorage: the kernel matrix is stored in float32, and the next
	// product K r would carry more rounding than float32Resolution
	// relative to itself.
	StopStorage StopReason = "storage_resolution"
)

// Stop records why and where a fit stopped early. The zero value means it
// did not.
type Stop struct {
	Reason StopReason `json:"reason"`
	// Component is the 1-based component that was refused.
	Component int `json:"component"`
	// Message says it with the numbers behind it.
	Message string `json:"message"`
}

func (s Stop) String() string { return s.Message }

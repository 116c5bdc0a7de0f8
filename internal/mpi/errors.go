package mpi

import "errors"

// errRootFailed is what a rank's Bcast returns when the root told it it
// had nothing to send (its own error is reported by the root).
var errRootFailed = errors.New("mpi: rank 0 failed before it could send the data (see its error)")

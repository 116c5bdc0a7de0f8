// Package dofbed is the test bed that compares the degrees-of-freedom
// estimators: exact (forward-mode Jacobian trace, cubic), the paper's
// Lanczos approximation and the project's approx estimator, on cases with
// fast and slow spectral decay. `kpls-lab dof --compare` prints its report.
package dofbed

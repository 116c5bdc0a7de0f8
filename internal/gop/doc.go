// Package gop measures how much a fitted kernel model varies along each
// feature: the diagonal of its gradient outer product, g_j =
// √(mean over the rows of (∂f̂/∂x_j)²), from the model's own training
// rows and coefficients. Features the model hardly moves along get a
// small g_j, which makes g a cheap rule for per-feature weights (issue
// #46; docs/scale.md, "Per-feature scales").
package gop

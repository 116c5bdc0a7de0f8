// Command apisize counts the size of package kpls's public surface and
// the long functions of the product, the figures issue #42 set targets
// for:
//
//	go run ./lab/apisize            (from the repository's root)
//
// It prints the exported top-level names, methods and struct fields of
// kpls's non-test files, the exported methods of Model, and every
// function in kpls/ and cmd/ longer than 80 lines. `go doc -short ./kpls
// | wc -l` gives the third figure.
package main

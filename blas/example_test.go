package blas_test

import (
	"fmt"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/kpls-go/kpls/blas"
)

// A backend is chosen by name, for example from a command-line flag, and
// used through the Float64 interface.
func ExampleByName() {
	impl, err := blas.ByName("go")
	if err != nil {
		fmt.Println(err)
		return
	}
	// y = K·x for the symmetric K = [[2, 1], [1, 3]], given by its upper
	// triangle (the lower one is never read).
	k := []float64{
		2, 1,
		0, 3,
	}
	x := []float64{1, 1}
	y := make([]float64, 2)
	impl.Dsymv(gblas.Upper, 2, 1, k, 2, x, 1, 0, y, 1)
	fmt.Println(blas.Name(impl), y)

	_, err = blas.ByName("mkl")
	fmt.Println(err != nil)
	// Output:
	// go [3 4]
	// true
}

package sim

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Data is a simulated data set: X is N×D row-major, Y the target, Names
// the D feature names followed by the target's, "y".
type Data struct {
	X     []float64
	N, D  int
	Y     []float64
	Names []string
}

// Row returns row i of X (a view, not a copy).
func (s *Data) Row(i int) []float64 { return s.X[i*s.D : (i+1)*s.D] }

// Matrix returns X as an N×D matrix sharing its storage.
func (s *Data) Matrix() *mat.Dense { return mat.NewDense(s.N, s.D, s.X) }

// Stream constants of the PCG generators, one per simulation, so that the
// same seed gives unrelated numbers in different simulations. Their values
// are part of the data: changing one changes every data set, figure and
// committed result drawn from that simulation.
const (
	streamFriedman1 = 0xf1ed_0001
	streamFriedman2 = 0xf1ed_0002
	streamFriedman3 = 0xf1ed_0003
	streamSinc      = 0x5eed_51c0
	streamUniform   = 2
	streamScaled    = 17
	streamWide      = 19
	streamFigure3   = 0xf163
)

// newData allocates an n×d data set with features named x1..xd.
func newData(n, d int) Data {
	return Data{X: make([]float64, n*d), N: n, D: d, Y: make([]float64, n), Names: names(d)}
}

func names(d int) []string {
	s := make([]string, d+1)
	for j := range d {
		s[j] = fmt.Sprintf("x%d", j+1)
	}
	s[d] = "y"
	return s
}

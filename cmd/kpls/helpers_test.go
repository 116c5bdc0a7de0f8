package main

import (
	"context"
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/kpls-go/kpls/kpls"
)

// loadModel reads a model file holding one model, for the tests that
// compare the command with the library.
func loadModel(path string) (*kpls.Model, error) {
	ps, err := loadPredictors(path)
	if err != nil {
		return nil, err
	}
	return oneModel(ps)
}

// readModel is loadModel from a reader.
func readModel(r io.Reader) (*kpls.Model, error) {
	ps, err := kpls.Load(r)
	if err != nil {
		return nil, err
	}
	return oneModel(ps)
}

func oneModel(ps []kpls.Predictor) (*kpls.Model, error) {
	if len(ps) != 1 {
		return nil, fmt.Errorf("the file holds %d predictors, want one model", len(ps))
	}
	m, ok := ps[0].(*kpls.Model)
	if !ok {
		return nil, fmt.Errorf("the file holds a mean of %d models, want one model", len(ps[0].Summary().Members))
	}
	return m, nil
}

// predictAt is the library's predictions of the rows of x with comp
// components of m.
func predictAt(m *kpls.Model, x mat.Matrix, comp int) ([]float64, error) {
	mc, err := m.At(comp)
	if err != nil {
		return nil, err
	}
	p, err := mc.Predict(context.Background(), x, kpls.PredictOptions{})
	if err != nil {
		return nil, err
	}
	return p.Yhat, nil
}

package kpls

// mean is the selection's predictor as a mean: a mean of Model alone when
// the selection predicts with one model.
func (s *Selection) mean() *Mean {
	if a, ok := s.Predictor.(*Mean); ok {
		return a
	}
	a, err := NewMean(s.Model)
	if err != nil {
		panic(err)
	}
	return a
}

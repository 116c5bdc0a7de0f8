//go:build !linux

package gram

// adviseHugePages does nothing outside Linux.
func adviseHugePages([]float64) {}

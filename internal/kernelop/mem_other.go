//go:build !linux

package kernelop

// physicalMemory is unknown outside Linux: DefaultLimit falls back.
func physicalMemory() uint64 { return 0 }

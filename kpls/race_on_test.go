//go:build race

package kpls

const raceEnabled = true

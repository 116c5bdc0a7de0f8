//go:build race

package kpls_test

const raceEnabled = true

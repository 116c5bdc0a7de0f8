// Package progress shows the progress of a fit, a selection or a band
// computation for the commands' --progress flag: one bar over the whole
// job with the time left when stderr is a terminal, occasional plain log
// lines otherwise (--progress on), or nothing.
package progress

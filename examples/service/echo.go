package main

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// echoMax bounds how much of a client's input a response or log line
// repeats: an 8 MiB field name comes back as its first 200 bytes and a
// marker with its length.
const echoMax = 200

// clip returns s, or its first echoMax bytes (at a rune boundary) and a
// marker saying how long it was.
func clip(s string) string {
	if len(s) <= echoMax {
		return s
	}
	n := echoMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("…[truncated: %d bytes in all]", len(s))
}

// echo is s quoted (as %q), clipped to echoMax bytes of s with the marker
// after the closing quote.
func echo(s string) string {
	if len(s) <= echoMax {
		return strconv.Quote(s)
	}
	n := echoMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + fmt.Sprintf("…[truncated: %d bytes in all]", len(s))
}

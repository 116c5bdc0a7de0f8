package main

import (
	"crypto/rand"
	"encoding/hex"
)

// requestID returns the client's id when it is short and printable ASCII
// (so it can go into logs as is), or a fresh random one.
func requestID(client string) string {
	if n := len(client); n > 0 && n <= 64 {
		ok := true
		for i := range n {
			if c := client[i]; c <= ' ' || c > '~' {
				ok = false
				break
			}
		}
		if ok {
			return client
		}
	}
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

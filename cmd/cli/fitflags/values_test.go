package fitflags

import "testing"

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"123": 123, "8GiB": 8 << 30, "8G": 8 << 30, "8GB": 8e9, "1.5 MiB": 3 << 19, "500MB": 5e8, "2KiB": 2048, "7B": 7,
	} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "8XB", "-1", "0", "0.1", "1e30"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		}
	}
}

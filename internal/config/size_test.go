package config

import "testing"

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"4194304": 4 << 20, "4MiB": 4 << 20, "4mib": 4 << 20, "4M": 4 << 20, "4 MiB": 4 << 20,
		"512KiB": 512 << 10, "1GiB": 1 << 30, "4MB": 4_000_000, "1.5MiB": 3 << 19, "100B": 100, "2k": 2048,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "MiB", "4XB", "1e9", "NaN", "0.1B", "99999999999GiB", "4 Mi B"} {
		if n, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, n)
		}
	}
	for n, want := range map[int64]string{4 << 20: "4MiB", 1000: "1000", 3 << 10: "3KiB", 1 << 30: "1GiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

package config

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes ParseSize accepts: binary (KiB, MiB, GiB) and decimal (KB, MB,
// GB, and K, M, G as in GNU tools, which mean binary there: K is 1024).
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// ParseSize parses a byte size: a plain number of bytes ("4194304") or a number with a unit
// ("4MiB", "4M", "4.5MB", "512KiB"), case-insensitive. It must be positive.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range sizeUnits {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, factor = strings.TrimSpace(num), u.factor
			break
		}
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n <= 0 {
			return 0, fmt.Errorf("size %q must be positive", s)
		}
		if n > (1<<62)/factor {
			return 0, fmt.Errorf("size %q is too large", s)
		}
		return n * factor, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || strings.ContainsAny(t, "eEnNxX") {
		return 0, fmt.Errorf("size %q is not a number of bytes with an optional unit (B, KiB, MiB, GiB, KB, MB, GB)", s)
	}
	v := f * float64(factor)
	if v < 1 || v > 1<<62 {
		return 0, fmt.Errorf("size %q must be between 1 byte and 4 EiB", s)
	}
	return int64(v), nil
}

// FormatSize writes n in the largest binary unit that divides it ("4MiB"), else in bytes.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		factor int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.factor && n%u.factor == 0 {
			return strconv.FormatInt(n/u.factor, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

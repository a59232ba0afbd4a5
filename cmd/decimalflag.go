package cmd

import (
	"fmt"
	"strconv"
)

// decimalInt64 is an int64 flag read in base 10 only, within [min, max],
// spelled canonically: pflag's own Int64Var reads "010" as octal 8 and
// "0x10" as 16, and YAML 1.1 reads 010 as 8 too, so a leading zero or a
// plus sign is refused rather than read either way.
type decimalInt64 struct {
	v        *int64
	min, max int64
}

// newDecimalInt64 returns the flag value of *v, set to def.
func newDecimalInt64(v *int64, def, min, max int64) *decimalInt64 {
	*v = def
	return &decimalInt64{v: v, min: min, max: max}
}

// Set parses s as a canonical decimal integer in range.
func (d *decimalInt64) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < d.min || n > d.max || strconv.FormatInt(n, 10) != s {
		return fmt.Errorf("want a decimal integer in %d..%d, without leading zeros", d.min, d.max)
	}
	*d.v = n
	return nil
}

// String spells the value in base 10.
func (d *decimalInt64) String() string { return strconv.FormatInt(*d.v, 10) }

// Type names the value in help text.
func (d *decimalInt64) Type() string { return "int" }

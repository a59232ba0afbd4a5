package size

import (
	"encoding/json"
	"fmt"
	"math"
)

// ParseJSON reads a byte size written in JSON as the Mooncake client JSON
// writes them: a whole number of bytes (a JSON number with no fraction),
// or a string Parse reads ("3GiB", "4294967296").
func ParseJSON(v json.RawMessage) (int64, error) {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return Parse(s)
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		return 0, fmt.Errorf("want a byte count or a size such as \"3GiB\", got %s", v)
	}
	i, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
			return 0, fmt.Errorf("%s is not a whole number of bytes", v)
		}
		i = int64(f)
	}
	if i < 0 {
		return 0, fmt.Errorf("size %s is negative", v)
	}
	return i, nil
}

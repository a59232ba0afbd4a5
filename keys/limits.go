package keys

import "fmt"

// The ranges of the key recipe's numbers, checked by Settings.Validate,
// Layout.Validate and NewChain. A chain holds a window of (T+L)*8 bytes,
// so the maxima also bound the memory a chain takes (under 10 MiB).
const (
	// MaxTokensPerBlock is the largest T. TensorRT-LLM's tokens_per_block
	// is a power of two, in practice 8 to 512; 1<<20 leaves ample room
	// while a block's window stays at 8 MiB.
	MaxTokensPerBlock = 1 << 20
	// MaxLookahead is the largest prompt lookahead L. A one-model draft
	// looks ahead max_draft_len tokens (MTP) or one (MTP-Eagle, EAGLE3);
	// drafts are a handful of tokens long, so 1024 is generous.
	MaxLookahead = 1 << 10
	// MaxWorld is the largest tensor-parallel size: no deployment has
	// more than a few hundred ranks, and --all-ranks keys every one.
	MaxWorld = 1 << 12
)

// RangeError is the error of a setting outside its range.
type RangeError struct {
	// Setting names the setting, such as "tokens per block".
	Setting string
	// Got is the value given; Min and Max bound the range, inclusive.
	Got, Min, Max int64
}

// Error says which setting is outside which range.
func (e *RangeError) Error() string {
	return fmt.Sprintf("%s %d is outside %d..%d", e.Setting, e.Got, e.Min, e.Max)
}

// checkRange returns a *RangeError unless min <= got <= max.
func checkRange(setting string, got, min, max int64) error {
	if got < min || got > max {
		return &RangeError{Setting: setting, Got: got, Min: min, Max: max}
	}
	return nil
}

// The settings' names in RangeError.Setting.
const (
	SettingTokensPerBlock = "tokens per block"
	SettingLookahead      = "prompt lookahead"
	SettingWorld          = "world size"
)

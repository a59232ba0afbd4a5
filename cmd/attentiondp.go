package cmd

import (
	"fmt"
	"strconv"

	"github.com/kvctl/kvctl/keys"
	"github.com/spf13/cobra"
)

// attentionDPFlag is --attention-dp, one bool in every command:
// TensorRT-LLM's enable_attention_dp. As there, the number of
// attention-DP owners is the TP size (--tp), which serve runs. It still
// takes serve's old form, a count of owners (--attention-dp=N, or
// --attention-dp N through takeOldCount), and warns about it.
type attentionDPFlag struct {
	on bool
	// owners is the count of the old form, 0 where it was not used.
	owners int
}

// Set takes true or false (1 and 0 included), or the old form's count of
// owners 2..keys.MaxWorld.
func (a *attentionDPFlag) Set(s string) error {
	if on, err := strconv.ParseBool(s); err == nil {
		a.on, a.owners = on, 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > keys.MaxWorld {
		return fmt.Errorf("want true or false (the number of owners is --tp), or the old form's count of owners 0..%d", keys.MaxWorld)
	}
	a.on, a.owners = true, int(n)
	return nil
}

// String returns the flag's value as a bool.
func (a *attentionDPFlag) String() string { return strconv.FormatBool(a.on) }

// Type names the flag's type in the help.
func (a *attentionDPFlag) Type() string { return "bool" }

// deprecatedForm says what to give instead of the old form, where it was
// used (warnDeprecated prints it).
func (a *attentionDPFlag) deprecatedForm() (string, string) {
	if a.owners == 0 {
		return "", ""
	}
	return fmt.Sprintf("--attention-dp %d", a.owners), fmt.Sprintf("--tp %d --attention-dp", a.owners)
}

// takeOldCount takes the old form "--attention-dp N", which the parser
// reads as the bool flag and a positional argument N: where the flag was
// given and args is that one integer, it is the flag's value and no
// arguments remain. Other args are returned as they are.
func (a *attentionDPFlag) takeOldCount(given bool, args []string) ([]string, error) {
	if !given || len(args) != 1 {
		return args, nil
	}
	if _, err := strconv.ParseInt(args[0], 10, 64); err != nil {
		return args, nil
	}
	if err := a.Set(args[0]); err != nil {
		return nil, usagef("--attention-dp %s: %v", args[0], err)
	}
	return nil, nil
}

// noArgsAfterOldADP is noArgs for a command with --attention-dp a, once
// its old form "--attention-dp N" took its count.
func noArgsAfterOldADP(a *attentionDPFlag) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		rest, err := a.takeOldCount(c.Flags().Changed("attention-dp"), args)
		if err != nil {
			return err
		}
		return noArgs(c, rest)
	}
}

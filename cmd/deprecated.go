package cmd

// Old flag spellings: hidden, still working, and warned about on stderr
// (pflag's own deprecation notice would go to the command's stdout).

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// deprecatedUse is the flag annotation that marks a deprecated spelling;
// its value says what to give instead.
const deprecatedUse = "kvctl_deprecated_use"

// deprecatedAlias registers old as a hidden, deprecated spelling of the
// flag current (already registered on fs), bound to the same value.
func deprecatedAlias(fs *pflag.FlagSet, old, current string) {
	f := fs.Lookup(current)
	fs.AddFlag(&pflag.Flag{
		Name: old, Usage: "deprecated: use --" + current,
		Value: f.Value, DefValue: f.DefValue, NoOptDefVal: f.NoOptDefVal,
	})
	markDeprecated(fs, old, "--"+current)
}

// markDeprecated hides the flag name and has warnDeprecated say to give
// use instead.
func markDeprecated(fs *pflag.FlagSet, name, use string) {
	f := fs.Lookup(name)
	f.Hidden = true
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[deprecatedUse] = []string{use}
}

// warnDeprecated writes one warning on stderr, unless quiet, for every
// deprecated flag spelling given to c.
func warnDeprecated(c *cobra.Command, ios *IOStreams, g *globalOptions) {
	if g.Quiet {
		return
	}
	c.Flags().Visit(func(f *pflag.Flag) {
		if use, ok := f.Annotations[deprecatedUse]; ok {
			fmt.Fprintf(ios.ErrOut, "warning: --%s is deprecated: use %s\n", f.Name, use[0])
		}
		if v, ok := f.Value.(deprecatedFormer); ok {
			if old, use := v.deprecatedForm(); old != "" {
				fmt.Fprintf(ios.ErrOut, "warning: %s is deprecated: use %s\n", old, use)
			}
		}
	})
}

// deprecatedFormer is a flag value that can say it was given in a
// deprecated form (old, not "": what was given) and what to give instead.
type deprecatedFormer interface {
	deprecatedForm() (old, use string)
}

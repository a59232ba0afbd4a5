package cmd

// Shell completion of flag values. Each enumerated flag's values are listed
// once, in flagValues, by flag name, from the lists its check uses;
// registerFlagValues hands them to every command that has such a flag, so
// a command gains completion by naming its flag as the others do.

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/server"
	"github.com/kvctl/kvctl/workload"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagValues completes the values of kvctl's enumerated flags, by flag
// name.
var flagValues = map[string]cobra.CompletionFunc{
	"output":              completeOutput,
	"color":               fixedValues(colorModes...),
	"copy":                fixedValues(valuesOf(cuda.CopyModes)...),
	"scheme":              fixedValues(valuesOf(keys.Schemes)...),
	"tokens-format":       fixedValues(valuesOf([]keys.TokensFormat{keys.TokensAuto, keys.TokensJSON, keys.TokensText, keys.TokensI64})...),
	"trace-format":        fixedValues(workload.FormatAuto, workload.FormatKvctl, workload.FormatMooncake),
	"role":                fixedValues(connector.Roles...),
	"draft":               fixedValues(connector.DraftMTP, connector.DraftMTPEagle, connector.DraftEagle3),
	"local-reuse-backoff": fixedValues(engine.BackoffOff, engine.BackoffAlign),
	"device":              fixedValues("auto", "host", "cuda", "cuda:0"),
	"pool":                completePoolURL,
	"server-role":         fixedValues(server.RoleContext, server.RoleGeneration),
	"disagg-routing":      fixedValues(server.RouteRoundRobin, server.RouteLeastLoaded),
}

// registerFlagValues registers flagValues' completion on every flag of c
// and the commands below it that has one, unless the command registered
// its own.
func registerFlagValues(c *cobra.Command) {
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		fn, ok := flagValues[f.Name]
		if _, own := c.GetFlagCompletionFunc(f.Name); !ok || own {
			return
		}
		_ = c.RegisterFlagCompletionFunc(f.Name, fn) // cannot fail: the flag exists and has none
	})
	for _, s := range c.Commands() {
		registerFlagValues(s)
	}
}

// fixedValues completes to values and never to file names.
func fixedValues(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}

// valuesOf turns a list of string-typed choices into strings.
func valuesOf[T ~string](choices []T) []string {
	out := make([]string, len(choices))
	for i, c := range choices {
		out[i] = string(c)
	}
	return out
}

// completeOutput completes --output: table and json everywhere, the other
// formats where a command offers them (its check says which).
func completeOutput(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := make([]cobra.Completion, len(outputFormats))
	for i, f := range outputFormats {
		out[i] = f
		if f != "table" && f != "json" {
			out[i] = cobra.CompletionWithDesc(f, "where the command offers it")
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completePoolURL completes a pool URL: the schemes of the linked backends,
// then, after keylist:, the path of the listing.
func completePoolURL(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	const noSpace = cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	if path, ok := strings.CutPrefix(toComplete, keylistPrefix); ok {
		return prefixEach(keylistPrefix, completePath(path)), noSpace
	}
	var out []cobra.Completion
	for _, s := range pool.Schemes() {
		if u := poolURLStart(s); strings.HasPrefix(u, toComplete) {
			out = append(out, u)
		}
	}
	return out, noSpace
}

// keylistPrefix starts a keylist pool URL, whose path follows without
// slashes: keylist:PATH.
const keylistPrefix = "keylist:"

// poolURLStart is how a URL of scheme starts.
func poolURLStart(scheme string) string {
	if scheme+":" == keylistPrefix {
		return keylistPrefix
	}
	return scheme + "://"
}

// completePath lists the files and folders (with a trailing slash) that
// start with partial, a path; hidden ones only when partial names a dot.
func completePath(partial string) []string {
	dir, base := filepath.Split(partial)
	entries, err := os.ReadDir(cmp.Or(dir, "."))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, dir+name)
	}
	return out
}

// prefixEach puts prefix before each of s.
func prefixEach(prefix string, s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = prefix + v
	}
	return out
}

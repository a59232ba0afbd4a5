package cmd

import (
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagValuesNameFlags fails when flagValues completes a flag no command
// has (renamed, or removed): its values would silently stop completing.
func TestFlagValuesNameFlags(t *testing.T) {
	ios, _, _ := NewTestIOStreams("")
	seen := map[string]bool{}
	walk(NewRootCmd(ios), func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { seen[f.Name] = true })
	})
	var names []string
	for name := range flagValues {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !seen[name] {
			t.Errorf("flagValues[%q]: no command has a --%s flag", name, name)
		}
	}
}

func TestCompletePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, d := range []string{"sub", ".hidden"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"keys.txt", "sub/a.txt"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		partial string
		want    []string
	}{
		{"", []string{"keys.txt", "sub/"}},
		{"k", []string{"keys.txt"}},
		{".", []string{".hidden/"}},
		{"sub/", []string{"sub/a.txt"}},
		{"nope/", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, completePath(tt.partial)); diff != "" {
			t.Errorf("completePath(%q) mismatch (-want +got):\n%s", tt.partial, diff)
		}
	}
}

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestDocsUpToDate fails when docs/cli or docs/man is stale: run go
// generate ./cmd/.
func TestDocsUpToDate(t *testing.T) {
	tmp := t.TempDir()
	md, man := filepath.Join(tmp, "cli"), filepath.Join(tmp, "man")
	if err := GenerateDocs(md, man); err != nil {
		t.Fatal(err)
	}
	checkPagesUpToDate(t, md, "cli", "*.md")
	checkPagesUpToDate(t, man, "man", "*.1")
}

// checkPagesUpToDate compares the pages matching pattern in generated with
// those in docs/name.
func checkPagesUpToDate(t *testing.T, generated, name, pattern string) {
	t.Helper()
	docs := filepath.Join("..", "docs", name)
	want, _ := filepath.Glob(filepath.Join(generated, pattern))
	have, _ := filepath.Glob(filepath.Join(docs, pattern))
	if len(want) == 0 || len(want) != len(have) {
		t.Fatalf("docs/%s has %d pages, want %d: run go generate ./cmd/", name, len(have), len(want))
	}
	for _, w := range want {
		page := filepath.Base(w)
		got, err := os.ReadFile(filepath.Join(docs, page))
		if err != nil {
			t.Fatalf("docs/%s/%s: %v: run go generate ./cmd/", name, page, err)
		}
		exp, _ := os.ReadFile(w)
		if string(got) != string(exp) {
			t.Errorf("docs/%s/%s is stale: run go generate ./cmd/", name, page)
		}
	}
}

// TestHelpText enforces the help conventions on every command.
func TestHelpText(t *testing.T) {
	ios, _, _ := NewTestIOStreams("")
	walk(NewRootCmd(ios), func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" || strings.HasPrefix(c.CommandPath(), "kvctl completion") {
			return
		}
		if c.Short == "" || strings.HasSuffix(c.Short, ".") {
			t.Errorf("%s: Short %q must be an imperative phrase without a period", c.CommandPath(), c.Short)
		}
		if c.Short != "" && strings.ToUpper(c.Short[:1]) != c.Short[:1] {
			t.Errorf("%s: Short %q must start with a capital", c.CommandPath(), c.Short)
		}
		if c.Runnable() && !c.HasSubCommands() { // a group run bare prints its help
			checkExamples(t, c)
		}
	})
}

func checkExamples(t *testing.T, c *cobra.Command) {
	t.Helper()
	if c.Example == "" {
		t.Errorf("%s: no Example", c.CommandPath())
	}
	for _, line := range strings.Split(c.Example, "\n") {
		l := strings.TrimSpace(line)
		if l != "" && !(strings.HasPrefix(l, "$ kvctl ") || strings.HasPrefix(l, "$ ") && strings.Contains(l, "| kvctl ")) {
			t.Errorf("%s: example line %q must start with $ kvctl", c.CommandPath(), line)
		}
	}
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, s := range c.Commands() {
		walk(s, fn)
	}
}

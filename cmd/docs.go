package cmd

//go:generate go run ../internal/gendocs ../docs/cli

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// GenerateDocs writes one Markdown page per command into dir, replacing
// the pages there (docs/cli is generated: edit help text, not the pages).
func GenerateDocs(dir string) error {
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ios, _, _ := NewTestIOStreams("")
	root := NewRootCmd(ios)
	disableAutoGen(root)
	return doc.GenMarkdownTree(root, dir)
}

func disableAutoGen(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGen(sub)
	}
}

package cmd

//go:generate go run ../internal/gendocs ../docs/cli ../docs/man

import (
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manDate is the date the man pages carry; fixed, so that generating them
// again changes nothing unless the commands changed.
var manDate = time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)

// GenerateDocs writes the command reference, one Markdown page per command
// into mdDir and one man page (section 1) per command into manDir,
// replacing the pages there (docs/cli and docs/man are generated: edit help
// text, not the pages).
func GenerateDocs(mdDir, manDir string) error {
	if err := clearDir(mdDir, "*.md"); err != nil {
		return err
	}
	if err := clearDir(manDir, "*.1"); err != nil {
		return err
	}
	if err := doc.GenMarkdownTree(docsRoot(), mdDir); err != nil {
		return err
	}
	header := &doc.GenManHeader{Date: &manDate, Source: "kvctl", Manual: "kvctl Manual"}
	return doc.GenManTree(docsRoot(), header, manDir)
}

// docsRoot is the command tree the pages describe.
func docsRoot() *cobra.Command {
	ios, _, _ := NewTestIOStreams("")
	root := NewRootCmd(ios)
	disableAutoGen(root)
	return root
}

// clearDir removes dir's files that match pattern and creates dir if it is
// missing.
func clearDir(dir, pattern string) error {
	old, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}

func disableAutoGen(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGen(sub)
	}
}

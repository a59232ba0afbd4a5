// Command gendocs writes kvctl's command reference: one Markdown page per
// command into MDDIR (default docs/cli) and one man page per command into
// MANDIR (default: man beside MDDIR, docs/man). go generate ./cmd/ runs it.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kvctl/kvctl/cmd"
)

func main() {
	if len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: gendocs [MDDIR [MANDIR]]")
		os.Exit(2)
	}
	mdDir := filepath.Join("docs", "cli")
	if len(os.Args) > 1 {
		mdDir = os.Args[1]
	}
	manDir := filepath.Join(filepath.Dir(filepath.Clean(mdDir)), "man")
	if len(os.Args) > 2 {
		manDir = os.Args[2]
	}
	if err := cmd.GenerateDocs(mdDir, manDir); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

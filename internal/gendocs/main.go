// Command gendocs writes kvctl's command reference (one Markdown page per
// command) into the directory named by its argument: go generate ./cmd/.
package main

import (
	"fmt"
	"os"

	"github.com/kvctl/kvctl/cmd"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs DIR")
		os.Exit(2)
	}
	if err := cmd.GenerateDocs(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// Command chartdocs draws the figures of docs/report.md: one PNG per
// chart kind into OUTDIR (default docs/images), from the -o json fixtures
// in INDIR (default chart/testdata). go generate ./chart/ runs it, and a
// test fails when the images differ from what the code draws.
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: chartdocs [INDIR [OUTDIR]]")
		os.Exit(2)
	}
	in, out := filepath.Join("chart", "testdata"), filepath.Join("docs", "images")
	if len(os.Args) > 1 {
		in = os.Args[1]
	}
	if len(os.Args) > 2 {
		out = os.Args[2]
	}
	if err := writeFigures(in, out); err != nil {
		fmt.Fprintln(os.Stderr, "chartdocs:", err)
		os.Exit(1)
	}
}

// writeFigures renders every figure of in's fixtures into out.
func writeFigures(in, out string) error {
	figs, err := figures(in)
	if err != nil {
		return err
	}
	for _, f := range figs {
		b, err := f.png()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, f.file), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

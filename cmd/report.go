package cmd

import (
	"bytes"
	"fmt"
	"os"

	"github.com/kvctl/kvctl/report"
	"github.com/spf13/cobra"
)

// reportOptions are report's flags.
type reportOptions struct {
	To string // the page's file; stdout when empty
}

func newReportCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	o := &reportOptions{}
	c := &cobra.Command{
		Use:   "report FILE.json... [--to report.html]",
		Short: "Write one self-contained HTML page of figures and tables from kvctl's JSON outputs",
		Long: `Read the -o json outputs of holes (a probe, a simulation or a capacity sweep),
bench load|save (a run or a sweep) and serve, and write one HTML page with, for
each, its figures and a table of its numbers, naming the command and the kvctl
version that made it (the "kvctl" header at the head of each output). The page
is self-contained: figures are inline SVG, and it loads no script, style sheet
or font from elsewhere, so it reads offline. The page goes to stdout, or to
--to FILE. Figures: docs/report.md.

Exit codes: 2 when an input cannot be read, or is not the JSON of one of
those commands in a format this kvctl knows (the error names the file and
what it holds).`,
		Example: `$ kvctl holes --simulate --trace t.jsonl --layer-group 0:64KiB --sweep capacity=16GiB,64GiB -o json > sweep.json
$ kvctl bench load --sweep page-bytes=4KiB,64KiB,1MiB -o json > load.json
$ kvctl report sweep.json load.json --to report.html`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.checkOutput("table"); err != nil {
				return err
			}
			if len(args) == 0 {
				return usagef("give at least one kvctl -o json output")
			}
			return runReport(ios, o, args)
		},
	}
	c.Flags().StringVar(&o.To, "to", "", "write the page to FILE instead of stdout")
	return c
}

// runReport reads every input, then writes the page.
func runReport(ios *IOStreams, o *reportOptions, files []string) error {
	inputs := make([]report.Input, 0, len(files))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return usagef("%w", err)
		}
		in, err := report.Read(name, data)
		if err != nil {
			return usagef("%w", err)
		}
		inputs = append(inputs, in)
	}
	var page bytes.Buffer
	if err := report.Write(&page, inputs, readVersion().Version); err != nil {
		return err
	}
	if o.To == "" {
		_, err := page.WriteTo(ios.Out)
		return err
	}
	if err := os.WriteFile(o.To, page.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	return nil
}

package cmd

import (
	"context"

	"github.com/kvctl/kvctl/workload"
)

// countTrace is countSource for a Mooncake trace file: the records alone
// give the counts (a request's prompt is its input_length tokens), so it
// does not synthesise the tokens that Each would, most of the count's
// time. It reads and checks every record as Each does; ok is false for a
// source that is not a Mooncake trace file.
func countTrace(ctx context.Context, src workload.Source) (n sourceCount, ok bool, err error) {
	fs, isFile := src.(*workload.FileSource)
	if !isFile || fs.Format != workload.FormatMooncake {
		return sourceCount{}, false, nil
	}
	err = fs.EachTrace(func(_ int, rec workload.TraceRecord) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n.add(rec.InputLength, rec.OutputLength)
		return nil
	})
	return n, true, err
}

package cmd

import (
	"fmt"
	"io"
)

// diffWhat says in words what differs in the first block that does.
var diffWhat = map[string]string{
	"bounds": "the blocks cover other tokens (the block or chunk sizes differ)",
	"hash":   "the block hashes differ",
	"keys":   "the block hashes agree, the pool keys differ",
	"blocks": "one side has no such block (the block sizes differ)",
}

// printKeysDiff prints keys --diff for people: the sides, the inputs that
// differ, and the first block that differs with each side's hash and keys.
func printKeysDiff(ios *IOStreams, d keysDiff) error {
	w := ios.Out
	fmt.Fprintf(w, "A: %s (%s, %d blocks)\nB: %s (%s, %d blocks)\n", sideLabel(d.A), d.A.Engine, d.A.NumBlocks, sideLabel(d.B), d.B.Engine, d.B.NumBlocks)
	if len(d.Differences) == 0 {
		fmt.Fprintln(w, "no input differs")
	} else {
		tp := newTablePrinter(ios, "input that differs", "A", "B")
		for _, in := range d.Differences {
			tp.addRow(in.Input, in.A, in.B)
		}
		if err := tp.render(); err != nil {
			return err
		}
	}
	if d.FirstDiff == nil {
		_, err := fmt.Fprintf(w, "the keys are the same: all %d blocks are shared\n", d.SharedBlocks)
		return err
	}
	f := d.FirstDiff
	fmt.Fprintf(w, "first difference: block %d: %s (%d blocks shared before it)\n", f.Index, diffWhat[f.What], d.SharedBlocks)
	printDiffBlock(w, "A", f.A)
	printDiffBlock(w, "B", f.B)
	return nil
}

// printDiffBlock prints one side's block: its tokens, hash and keys.
func printDiffBlock(w io.Writer, side string, b *diffBlock) {
	if b == nil {
		fmt.Fprintf(w, "  %s: no block\n", side)
		return
	}
	fmt.Fprintf(w, "  %s: tokens %d-%d hash %s\n", side, b.Start, b.End, b.Hash)
	for _, k := range b.Keys {
		fmt.Fprintf(w, "     key %s\n", k)
	}
}

// sideLabel is a side's flags, or says it has none of its own.
func sideLabel(s diffSide) string {
	if s.Flags == "" {
		return "(the common flags only)"
	}
	return s.Flags
}

package cmd

// The printers every command shares: JSON writers and the table printer.

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
)

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// tablePrinter prints rows for people: a bordered lipgloss table on a
// terminal or wherever stdout gets colour (--color always, also when
// piped), else tab-aligned plain text (no colour, no box drawing).
type tablePrinter struct {
	ios     *IOStreams
	headers []string
	rows    [][]string
	// styleCell, when set, styles a cell on a terminal.
	styleCell func(r *lipgloss.Renderer, row, col int, s string) string
}

func newTablePrinter(ios *IOStreams, headers ...string) *tablePrinter {
	return &tablePrinter{ios: ios, headers: headers}
}

// addRow adds one row; cells may be any value printed with %v.
func (t *tablePrinter) addRow(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	t.rows = append(t.rows, row)
}

// render writes the table to stdout.
func (t *tablePrinter) render() error {
	if !t.ios.OutTTY && !t.ios.ColorOut() {
		return t.renderPlain()
	}
	r := t.ios.OutRenderer()
	rows := t.rows
	if t.styleCell != nil {
		rows = make([][]string, len(t.rows))
		for i, row := range t.rows {
			rows[i] = make([]string, len(row))
			for j, c := range row {
				rows[i][j] = t.styleCell(r, i, j, c)
			}
		}
	}
	tbl := table.New().
		Border(lipgloss.RoundedBorder()).
		BorderStyle(r.NewStyle().Faint(true)).
		Headers(t.headers...).
		Rows(rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			if row == table.HeaderRow {
				return r.NewStyle().Bold(true).Padding(0, 1)
			}
			return r.NewStyle().Padding(0, 1)
		})
	_, err := fmt.Fprintln(t.ios.Out, tbl.Render())
	return err
}

func (t *tablePrinter) renderPlain() error {
	tw := tabwriter.NewWriter(t.ios.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(t.headers, "\t")))
	for _, row := range t.rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

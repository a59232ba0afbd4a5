package report

import (
	"fmt"
	"html/template"
	"io"
)

// Write writes one self-contained HTML page of the inputs, in order: for
// each, the command and kvctl version that made it, its figures as inline
// SVG and its tables. version is the kvctl writing the page.
func Write(w io.Writer, inputs []Input, version string) error {
	sections := make([]section, 0, len(inputs))
	for _, in := range inputs {
		s, err := newSection(in)
		if err != nil {
			return err
		}
		sections = append(sections, s)
	}
	err := page.Execute(w, struct {
		Version  string
		Sections []section
	}{version, sections})
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kvctl report</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; }
h2 { font-size: 1.2em; border-top: 1px solid #ccc; padding-top: 1em; margin-top: 2em; }
.made { color: #555; margin-top: -0.5em; }
.body { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
figure { margin: 0; }
figure svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 0.9em; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.3em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td:first-child { text-align: left; }
</style>
</head>
<body>
<h1>kvctl report</h1>
<p>Written by kvctl {{.Version}} from {{len .Sections}} input{{if ne (len .Sections) 1}}s{{end}}.</p>
{{range .Sections}}
<section>
<h2>{{.Input.Name}}: {{.Input.Kind}}</h2>
<p class="made">made by <code>kvctl {{.Input.Header.Command}}</code>, kvctl {{.Input.Header.Version}}</p>
<div class="body">
{{range .Figures}}<figure>{{.}}</figure>
{{end}}{{range .Tables}}<table>
<caption>{{.Title}}</caption>
<thead><tr>{{range .Headers}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}</div>
</section>
{{end}}
</body>
</html>
`))

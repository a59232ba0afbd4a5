// Package chart draws kvctl's results as figures: hit rate against pool
// capacity for a simulated capacity sweep, GB/s against page size for a
// bench sweep, the hole map of probed or simulated requests, a serve
// replay's timeline, latency distributions and load phases, and a serve
// pool-size sweep's hit rate, TTFT, evictions and bursts against capacity.
//
// Figures are drawn with gonum.org/v1/plot and its bundled Liberation
// fonts, so that a figure's layout is the same on every machine, and
// rendered to an io.Writer as SVG or PNG (Chart.Render). The package never
// prints and never writes files.
package chart

//go:generate go run ../internal/chartdocs testdata ../docs/images

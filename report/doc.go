// Package report turns kvctl's -o json outputs (holes, bench load and
// save, serve) into one self-contained HTML page: for each input its
// figures as inline SVG (package chart) and a table of its numbers, and
// the command and kvctl version that made it, read from the "kvctl"
// header object at the head of each output (Header). The page loads
// nothing at view time: no script, no style sheet, no font from elsewhere.
package report

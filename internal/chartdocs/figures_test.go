package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestImagesUpToDate fails when an image of docs/images is not what the
// code draws from the fixtures: run go generate ./chart/.
func TestImagesUpToDate(t *testing.T) {
	figs, err := figures(filepath.Join("..", "..", "chart", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		want, err := f.png()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", "images", f.file))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/images/%s is stale: run go generate ./chart/", f.file)
		}
	}
}

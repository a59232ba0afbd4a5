package keys

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestAssemblyUpToDate regenerates blake2b8_amd64.s with its generator
// (go generate's command, in a scratch folder) and fails when the committed
// file differs: the assembly is generated, never edited by hand.
func TestAssemblyUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator with the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to regenerate the assembly: %v", err)
	}
	src, err := os.ReadFile("blake2b8_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "blake2b8_gen.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "run", "blake2b8_gen.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GO111MODULE=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run blake2b8_gen.go: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "blake2b8_amd64.s"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("blake2b8_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("blake2b8_amd64.s (%d bytes) differs from what blake2b8_gen.go writes (%d bytes): run go generate ./keys", len(want), len(got))
	}
}

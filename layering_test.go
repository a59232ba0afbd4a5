package main

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The layering of DESIGN.md, as import rules. Glue is cmd and the main
// packages (kvctl itself, internal/gendocs); every other package is
// "below cmd". Test files are exempt: a test may open any backend.
var (
	// backends are the pool backends; only glue links them, and the other
	// packages see pools through package pool's interfaces.
	backends = []string{"pool/mem", "pool/redis", "pool/mooncake", "pool/mooncakestore", "pool/keylist"}
	// cliOnly are the modules only glue may import: below cmd nothing
	// prints or parses flags.
	cliOnly = []string{"github.com/spf13/cobra", "github.com/charmbracelet/lipgloss"}
)

// fileImports is what one non-test Go file declares: its package clause's
// name and its imports.
type fileImports struct {
	pkg     string
	imports []string
}

// layeringViolations lists the imports of a file in directory rel
// (relative to the module root, "." for the root) that break the layering.
// A main package (a command, or a generator such as keys/blake2b8_gen.go,
// which a build constraint leaves out of its directory's package) is glue.
func layeringViolations(module, rel string, p fileImports) []string {
	if rel == "cmd" || strings.HasPrefix(rel, "cmd/") || p.pkg == "main" {
		return nil
	}
	var bad []string
	for _, imp := range p.imports {
		if slices.ContainsFunc(cliOnly, func(m string) bool { return within(imp, m) }) {
			bad = append(bad, imp+" (a CLI library: only cmd may import it)")
		}
		if slices.ContainsFunc(backends, func(b string) bool { return within(imp, module+"/"+b) }) {
			bad = append(bad, imp+" (a pool backend: use package pool's interfaces, and let cmd pick the backend)")
		}
	}
	return bad
}

// within reports whether import path imp is path p or below it.
func within(imp, p string) bool { return imp == p || strings.HasPrefix(imp, p+"/") }

func TestLayeringRules(t *testing.T) {
	const m = "github.com/kvctl/kvctl"
	tests := []struct {
		rel  string
		p    fileImports
		want []string
	}{
		{"engine", fileImports{"engine", []string{m + "/pool", m + "/keys"}}, nil},
		{"engine", fileImports{"engine", []string{m + "/pool/mem"}}, []string{m + "/pool/mem (a pool backend: use package pool's interfaces, and let cmd pick the backend)"}},
		{"server", fileImports{"server", []string{m + "/pool/mooncake"}}, []string{m + "/pool/mooncake (a pool backend: use package pool's interfaces, and let cmd pick the backend)"}},
		{"pool/pooltest", fileImports{"pooltest", []string{m + "/pool/redis"}}, []string{m + "/pool/redis (a pool backend: use package pool's interfaces, and let cmd pick the backend)"}},
		{"stats", fileImports{"stats", []string{"github.com/charmbracelet/lipgloss/table"}}, []string{"github.com/charmbracelet/lipgloss/table (a CLI library: only cmd may import it)"}},
		{"keys", fileImports{"keys", []string{"github.com/spf13/cobra"}}, []string{"github.com/spf13/cobra (a CLI library: only cmd may import it)"}},
		{"keys", fileImports{"keys", []string{m + "/pool/memory", "github.com/spf13/cobrax"}}, nil},
		{"cmd", fileImports{"cmd", []string{m + "/pool/mem", "github.com/spf13/cobra"}}, nil},
		{"internal/gendocs", fileImports{"main", []string{"github.com/spf13/cobra"}}, nil},
	}
	for _, tt := range tests {
		got := layeringViolations(m, tt.rel, tt.p)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("layeringViolations(%s, %v) mismatch (-want +got):\n%s", tt.rel, tt.p.imports, diff)
		}
	}
}

// TestLayering checks every package of the module against the rules.
func TestLayering(t *testing.T) {
	module := modulePath(t)
	files := parseImports(t)
	dirs := map[string]bool{}
	for file, f := range files {
		rel := path.Dir(file)
		dirs[rel] = true
		for _, bad := range layeringViolations(module, rel, f) {
			t.Errorf("%s (package %s) imports %s", file, path.Join(module, rel), bad)
		}
	}
	if len(dirs) < 10 {
		t.Fatalf("found %d package directories, want the whole module", len(dirs))
	}
}

// modulePath reads the module path from go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	f, err := os.Open("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(sc.Text(), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// parseImports reads the package clause and imports of every non-test Go
// file of the module, by slash-separated path; testdata and hidden
// directories are skipped, as the go command skips them.
func parseImports(t *testing.T) map[string]fileImports {
	t.Helper()
	files := map[string]fileImports{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		fi := fileImports{pkg: f.Name.Name}
		for _, imp := range f.Imports {
			s, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			fi.imports = append(fi.imports, s)
		}
		files[filepath.ToSlash(p)] = fi
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's imports: %v", err)
	}
	return files
}

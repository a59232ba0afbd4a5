package pool_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/keylist"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/kvctl/kvctl/pool/mooncake"
	"github.com/kvctl/kvctl/pool/mooncakestore"
	"github.com/kvctl/kvctl/pool/redis"
)

// abilities maps each optional ability's name to its interface.
var abilities = map[string]reflect.Type{
	"Lister":            reflect.TypeFor[pool.Lister](),
	"LeasingExister":    reflect.TypeFor[pool.LeasingExister](),
	"LeaseReporter":     reflect.TypeFor[pool.LeaseReporter](),
	"Sizer":             reflect.TypeFor[pool.Sizer](),
	"UsageReporter":     reflect.TypeFor[pool.UsageReporter](),
	"Locator":           reflect.TypeFor[pool.Locator](),
	"KeyCopier":         reflect.TypeFor[pool.KeyCopier](),
	"Snapshotter":       reflect.TypeFor[pool.Snapshotter](),
	"AllRemover":        reflect.TypeFor[pool.AllRemover](),
	"ReadOnly":          reflect.TypeFor[pool.ReadOnly](),
	"Evicter":           reflect.TypeFor[pool.Evicter](),
	"ArenaHolder":       reflect.TypeFor[pool.ArenaHolder](),
	"ArenaPinObserver":  reflect.TypeFor[pool.ArenaPinObserver](),
	"Viewer":            reflect.TypeFor[pool.Viewer](),
	"Reserver":          reflect.TypeFor[pool.Reserver](),
	"PartGetter":        reflect.TypeFor[pool.PartGetter](),
	"BufferRegistrar":   reflect.TypeFor[pool.BufferRegistrar](),
	"TransportReporter": reflect.TypeFor[pool.TransportReporter](),
}

// backendTypes are the backends' store types, in the doc table's order.
var backendTypes = []struct {
	name string
	typ  reflect.Type
}{
	{"mem", reflect.TypeFor[*mem.Store]()},
	{"redis", reflect.TypeFor[*redis.Store]()},
	{"mooncake", reflect.TypeFor[*mooncake.Store]()},
	{"mooncake-store", reflect.TypeFor[*mooncakestore.Store]()},
	{"keylist", reflect.TypeFor[*keylist.Store]()},
}

// TestAbilitiesTable checks the package doc's table of abilities against
// the backends' types: every ability is listed, and each "yes" is exactly
// an interface the backend's Store implements.
func TestAbilitiesTable(t *testing.T) {
	rows := docTable(t)
	want, got := map[string][]string{}, map[string][]string{}
	for name, iface := range abilities {
		for _, b := range backendTypes {
			if b.typ.Implements(iface) {
				want[name] = append(want[name], b.name)
			}
		}
		row, ok := rows[name]
		if !ok {
			t.Errorf("the package doc's table lists no ability %s", name)
		}
		for i, cell := range row {
			if cell == "yes" {
				got[name] = append(got[name], backendTypes[i].name)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("abilities by backend: the package doc's table differs from the types (-types +doc):\n%s", diff)
	}
}

// TestAbilitiesAllChecked: every ability declared in abilities.go is in
// the table test's map (Reservation is what Reserve returns, not an
// ability of a store).
func TestAbilitiesAllChecked(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "abilities.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if _, ok := ts.Type.(*ast.InterfaceType); ok && ts.Name.Name != "Reservation" {
				declared = append(declared, ts.Name.Name)
			}
		}
		return true
	})
	for _, name := range declared {
		if _, ok := abilities[name]; !ok {
			t.Errorf("ability %s of abilities.go is missing from the abilities map of this test (and maybe from the package doc)", name)
		}
	}
	if len(declared) != len(abilities) {
		t.Errorf("abilities.go declares %d abilities %v, the map of this test has %d", len(declared), declared, len(abilities))
	}
}

// docTable reads the abilities table of pool.go's package doc: for each
// ability, the cell under each backend's column.
func docTable(t *testing.T) map[string][]string {
	t.Helper()
	src, err := os.ReadFile("pool.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var header string
	rows := map[string][]string{}
	for _, l := range lines {
		l, ok := strings.CutPrefix(l, "//\t")
		switch {
		case !ok:
			header = ""
		case strings.HasPrefix(l, "ability "):
			header = l
		case header != "":
			rows[strings.Fields(l)[0]] = cells(header, l)
		}
	}
	if len(rows) == 0 {
		t.Fatal("pool.go's package doc has no abilities table")
	}
	return rows
}

// cells cuts a table row at the header's backend columns: each cell is the
// text under a backend's name, trimmed.
func cells(header, row string) []string {
	out := make([]string, len(backendTypes))
	for i, b := range backendTypes {
		at := strings.Index(header, " "+b.name) + 1
		end := at + len(b.name)
		if at+1 >= len(row) {
			continue
		}
		out[i] = strings.TrimSpace(row[at:min(end, len(row))])
	}
	return out
}

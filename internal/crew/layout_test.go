package crew

import (
	"reflect"
	"testing"

	"github.com/kvctl/kvctl/internal/linetest"
)

// TestTaskLayout checks that what every chunk reads, the next chunk to
// take and the counts of chunks finished lie on lines of their own.
func TestTaskLayout(t *testing.T) {
	err := linetest.Apart(reflect.TypeFor[Task](), []string{"after", "n", "fn", "errs"}, []string{"next"}, []string{"left", "cpu"})
	if err != nil {
		t.Error(err)
	}
}

package keys

import (
	"strconv"

	"github.com/kvctl/kvctl/size"
)

// DefaultPageBytes is the page size of the default layout's single layer
// group, wherever a command defaults one (keys, holes, pool exist, serve):
// one value, so that pages one command writes are the pages another looks
// up. Real pages are tens of KiB to MiB and real deployments pass their
// own layout (--layer-group, --llm-config); 4 KiB keeps a replay of a
// small trace fast and light (a 64 KiB default made serve's first example
// take seconds and gigabytes) while being a page size a model can have.
// docs/keys.md, "Default layout", says why.
const DefaultPageBytes = 4 << 10

// DefaultLayerGroup is the single layer group of the default layout:
// group 0 of DefaultPageBytes.
var DefaultLayerGroup = LayerGroup{ID: 0, BytesPerPage: DefaultPageBytes}

// String spells the layer group as --layer-group takes it: "ID:BYTES",
// with a binary unit where the size has an exact one ("0:4KiB").
func (lg LayerGroup) String() string {
	return strconv.Itoa(lg.ID) + ":" + size.Format(lg.BytesPerPage)
}

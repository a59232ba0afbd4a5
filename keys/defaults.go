package keys

import (
	"strconv"

	"github.com/kvctl/kvctl/size"
)

// DefaultPageBytes is the page size of the default layout's single layer
// group, wherever a command defaults one (keys, holes, pool exist, serve):
// one value, so that pages one command writes are the pages another looks
// up. Real pages are tens of KiB to MiB and real deployments pass their
// own layout (--layer-group, --llm-config); 128 B is serve's synthetic
// model, whose every page serve really stores and verifies: it keeps a
// replay of the whole 12,031-request trace in memory on a laptop, where
// 4 KiB pages took over 10 GB. Where the page size changes an answer
// (holes --simulate sizes its pool in pages) the command asks for it.
// docs/keys.md, "Default layout", says why.
const DefaultPageBytes = 128

// DefaultLayerGroup is the single layer group of the default layout:
// group 0 of DefaultPageBytes.
var DefaultLayerGroup = LayerGroup{ID: 0, BytesPerPage: DefaultPageBytes}

// String spells the layer group as --layer-group takes it: "ID:BYTES",
// with a binary unit where the size has an exact one ("0:4KiB", "0:128").
func (lg LayerGroup) String() string {
	return strconv.Itoa(lg.ID) + ":" + size.Format(lg.BytesPerPage)
}

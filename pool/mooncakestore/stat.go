package mooncakestore

import (
	"slices"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

// lostMetadataText is in the admin API's warning for segments mounted on
// a master that holds no keys (pool/mooncake), which a restarted master
// shows.
const lostMetadataText = "are mounted but the master holds no keys"

// withoutOwnSegmentWarning drops that warning when every mounted segment
// is this client's own (named self, its local hostname): a store that has
// just mounted its segment, or whose keys were removed, is no restarted
// master.
func withoutOwnSegmentWarning(st pool.Stat, self string) []string {
	if st.Keys != 0 || len(st.Segments) == 0 {
		return st.Warnings
	}
	for _, seg := range st.Segments {
		if seg.Name != self {
			return st.Warnings
		}
	}
	return slices.DeleteFunc(slices.Clone(st.Warnings), func(w string) bool {
		return strings.Contains(w, lostMetadataText)
	})
}

package mooncake

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/kvctl/kvctl/pool"
)

// What kvctl infers from a live master's answers beyond what they state.

// The master's PutStart counters (mooncake-store/src/rpc_service.cpp and
// master_service.cpp at 3b5a5941): every failed PutStart counts in
// master_put_start_failures_total, every failed key of a BatchPutStart in
// master_batch_put_start_failed_items_total, and every allocation failure
// of either in master_put_start_alloc_failures_total.
const (
	putStartFailuresMetric      = "master_put_start_failures_total"
	batchPutStartFailuresMetric = "master_batch_put_start_failed_items_total"
	putsExistingMetric          = "kvctl_puts_existing_total"
)

// approximatePutsExisting fills st.PutsExisting, on a master without
// kvctl's own counter, with the failed PutStarts that were not allocation
// failures: mostly OBJECT_ALREADY_EXISTS, but invalid parameters and
// quota refusals count too, so it is marked approximate.
func approximatePutsExisting(st *pool.Stat, sums map[string]float64) error {
	if _, own := sums[putsExistingMetric]; own {
		return nil
	}
	single, ok := sums[putStartFailuresMetric]
	if !ok {
		return nil
	}
	failed, err := count(putStartFailuresMetric, single+sums[batchPutStartFailuresMetric])
	if err != nil {
		return err
	}
	st.PutsExisting = max(failed-st.AllocationFailure, 0)
	st.PutsExistingApproximate = true
	return nil
}

// lostMetadataWarning is the warning for segments mounted on a master that
// holds no keys: what a master restarted under running clients shows,
// since it keeps its object metadata in memory only.
func lostMetadataWarning(st pool.Stat) (string, bool) {
	if len(st.Segments) == 0 || st.Keys != 0 {
		return "", false
	}
	return fmt.Sprintf("%d segment(s) are mounted but the master holds no keys: "+
		"if it was restarted while its clients ran, it lost its metadata and every object put before is unreachable", len(st.Segments)), true
}

// checkAdminAPI tells the master's admin API from Mooncake's HTTP metadata
// server, which also answers /health with a plain "OK" (as masters before
// 0.3.11 did) but has no /metrics: a 404 there is the wrong port, and the
// error (wrapping pool.ErrBadURL) names the right one. Other failures are
// left for the calls that need /metrics to report.
func (s *Store) checkAdminAPI(ctx context.Context) error {
	_, err := s.c.get(ctx, "/metrics", "")
	if !isNotFound(err) {
		return nil
	}
	return fmt.Errorf("%w: mooncake master at %s answers /health with a plain OK but has no /metrics: "+
		"it looks like Mooncake's HTTP metadata server (--http_metadata_server_port, 8080), "+
		"not the master's admin API; the admin API is --metrics_port, 9003", pool.ErrBadURL, s.c.addr)
}

// isNotFound reports whether err is a 404 answer.
func isNotFound(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.Status == http.StatusNotFound
}

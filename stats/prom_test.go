package stats

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// gather registers c on a fresh registry and returns its metric families
// by name.
func gather(t *testing.T, c prometheus.Collector) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatalf("Register = %v", err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("Gather = %v", err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

func TestHolesCollector(t *testing.T) {
	rec := NewHolesRecorder()
	for _, m := range []string{"####.##..#", "######", ".####", "......"} {
		rec.Add(Analyze(presence(m), 16))
	}
	mfs := gather(t, NewHolesCollector(rec.Total, prometheus.Labels{"pool": "mem"}))
	if len(mfs) != len(holesSeries) {
		t.Errorf("HolesCollector exposes %d families, want %d", len(mfs), len(holesSeries))
	}
	for name, want := range map[string]float64{
		"kvctl_prefix_hit_blocks_total": 10, "kvctl_prefix_holes_total": 3, "kvctl_prefix_recomputed_tokens_total": 112,
	} {
		mf := mfs[name]
		if mf == nil || mf.GetType() != dto.MetricType_COUNTER || mf.Metric[0].GetCounter().GetValue() != want {
			t.Errorf("%s = %v, want counter %v", name, mf, want)
		}
		if got := mf.GetMetric()[0].GetLabel(); len(got) != 1 || got[0].GetValue() != "mem" {
			t.Errorf("%s labels = %v, want pool=mem", name, got)
		}
	}
}

func TestLoadCollector(t *testing.T) {
	loads := NewLoadRecorder(OpLoad)
	loads.SetAsync(2)
	saves := NewLoadRecorder(OpSave)
	loads.AddCall(10, 1000, 1)
	loads.ObservePhase(PhaseGet, 3*time.Millisecond, time.Millisecond, true)
	loads.ObservePhase(PhaseGet, 20*time.Second, time.Millisecond, true)
	loads.ObserveAsync(time.Millisecond, 2*time.Millisecond)
	saves.AddCall(5, 500, 0)
	extra := Load{Op: OpSave}
	extra.AddCall(1, 1, 0)
	snapshot := func() []Load { return []Load{loads.Total(), saves.Total(), extra} }
	mfs := gather(t, NewLoadCollector(snapshot, nil))

	pages := map[string]float64{}
	for _, m := range mfs["kvctl_transfer_pages_total"].GetMetric() {
		pages[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
	}
	if pages["load"] != 10 || pages["save"] != 6 {
		t.Errorf("kvctl_transfer_pages_total = %v, want load 10, save 6", pages)
	}
	h := mfs["kvctl_transfer_phase_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 2 || h.GetSampleSum() < 20 || h.GetBucket()[5].GetCumulativeCount() != 1 ||
		h.GetBucket()[len(DurationBuckets)-1].GetCumulativeCount() != 1 {
		t.Errorf("kvctl_transfer_phase_seconds = %v, want 2 samples, one of them above the last bound", h)
	}
	if g := mfs["kvctl_async_load_workers"].GetMetric()[0].GetGauge().GetValue(); g != 2 {
		t.Errorf("kvctl_async_load_workers = %v, want 2", g)
	}
	if n := mfs["kvctl_async_load_wait_seconds"].GetMetric()[0].GetHistogram().GetSampleCount(); n != 1 {
		t.Errorf("kvctl_async_load_wait_seconds count = %v, want 1", n)
	}
}

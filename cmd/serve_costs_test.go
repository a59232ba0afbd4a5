package cmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/engine"
	"github.com/spf13/pflag"
)

func TestCostFlags(t *testing.T) {
	large, _ := engine.ModelCosts("llama-3-70b")
	withPrefill := large
	withPrefill.PrefillTokenMS = 0.5
	tests := []struct {
		args []string
		want engine.Costs
	}{
		{nil, engine.DefaultCosts()},
		{[]string{"--model", "llama-3-70b"}, large},
		{[]string{"--model", "llama-3-70b", "--prefill-ms-per-token", "0.5"}, withPrefill},
		{[]string{"--iteration-ms", "0", "--pool-link-gbps", "100"}, engine.Costs{PrefillTokenMS: 0.02, DecodeTokenMS: 0.05, TransferGBps: 100}},
	}
	for _, tt := range tests {
		var f costFlags
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		f.register(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		got, err := f.costs()
		if err != nil {
			t.Errorf("costs(%q) = %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("costs(%q) (-want +got):\n%s", tt.args, diff)
		}
	}
}

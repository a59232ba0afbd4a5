package cmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAttentionDPFlagSet(t *testing.T) {
	tests := []struct {
		in      string
		want    attentionDPFlag
		wantErr bool
	}{
		{"true", attentionDPFlag{on: true}, false},
		{"false", attentionDPFlag{}, false},
		{"1", attentionDPFlag{on: true}, false},
		{"0", attentionDPFlag{}, false},
		{"3", attentionDPFlag{on: true, owners: 3}, false},
		{"4096", attentionDPFlag{on: true, owners: 4096}, false},
		{"4097", attentionDPFlag{}, true},
		{"-2", attentionDPFlag{}, true},
		{"yes", attentionDPFlag{}, true},
	}
	for _, tt := range tests {
		var got attentionDPFlag
		err := got.Set(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("Set(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(attentionDPFlag{})); !tt.wantErr && diff != "" {
			t.Errorf("Set(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestAttentionDPFlagTakeOldCount(t *testing.T) {
	tests := []struct {
		name     string
		given    bool
		args     []string
		wantRest []string
		want     attentionDPFlag
		wantErr  bool
	}{
		{"old count", true, []string{"2"}, nil, attentionDPFlag{on: true, owners: 2}, false},
		{"old off", true, []string{"0"}, nil, attentionDPFlag{}, false},
		{"flag not given", false, []string{"2"}, []string{"2"}, attentionDPFlag{on: true}, false},
		{"not a number", true, []string{"x"}, []string{"x"}, attentionDPFlag{on: true}, false},
		{"two args", true, []string{"2", "3"}, []string{"2", "3"}, attentionDPFlag{on: true}, false},
		{"out of range", true, []string{"5000"}, nil, attentionDPFlag{on: true}, true},
	}
	for _, tt := range tests {
		got := attentionDPFlag{on: true}
		rest, err := got.takeOldCount(tt.given, tt.args)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: takeOldCount(%v, %q) error = %v, want error %v", tt.name, tt.given, tt.args, err, tt.wantErr)
			continue
		}
		if tt.wantErr {
			continue
		}
		if diff := cmp.Diff(tt.wantRest, rest); diff != "" {
			t.Errorf("%s: takeOldCount(%v, %q) rest mismatch (-want +got):\n%s", tt.name, tt.given, tt.args, diff)
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(attentionDPFlag{})); diff != "" {
			t.Errorf("%s: takeOldCount(%v, %q) flag mismatch (-want +got):\n%s", tt.name, tt.given, tt.args, diff)
		}
	}
}

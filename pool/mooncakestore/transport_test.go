package mooncakestore

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
)

// TestTransport checks that the transport report says what the library
// reports and "not known" for what it does not, and that Stat carries it.
func TestTransport(t *testing.T) {
	tests := []struct {
		name, hostname string
		want           pool.Transport
	}{
		{"library with get_hostname", "127.0.0.1:14080",
			pool.Transport{Protocol: "rdma", Devices: "mlx5_0", LocalHostname: "127.0.0.1:14080", DeviceMemory: pool.NotKnown}},
		{"library without it", "",
			pool.Transport{Protocol: "rdma", Devices: "mlx5_0", LocalHostname: pool.NotKnown, DeviceMemory: pool.NotKnown}},
	}
	for _, tt := range tests {
		f := newFakeClient(t)
		f.name = tt.hostname
		s, err := newStore(context.Background(), Config{MasterServerAddress: "fake:50051", Protocol: "rdma", DeviceName: "mlx5_0", StagingBytes: 64 << 10}, f)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, s.Transport()); diff != "" {
			t.Errorf("%s: Transport() (-want +got):\n%s", tt.name, diff)
		}
		st, err := s.Stat(context.Background())
		if err != nil || st.Transport == nil || *st.Transport != tt.want {
			t.Errorf("%s: Stat() transport = %v, %v; want %+v", tt.name, st.Transport, err, tt.want)
		}
		s.Close()
	}
}

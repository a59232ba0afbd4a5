package mooncakestore

import "github.com/kvctl/kvctl/pool"

// Transport is what the client's transfer engine does, as far as the
// library reports it (pool.TransportReporter): the protocol and devices
// mooncake_store_setup accepted, and the local hostname from
// mooncake_store_get_hostname. store_c.h has no call that says whether
// the transfer engine can register GPU memory (a build with CUDA, and a
// transport that reaches device memory), so DeviceMemory is
// pool.NotKnown: kvctl registers host memory only.
func (s *Store) Transport() pool.Transport {
	t := pool.Transport{Protocol: s.cfg.Protocol, Devices: s.cfg.DeviceName, LocalHostname: pool.NotKnown, DeviceMemory: pool.NotKnown}
	if name, ok := s.c.hostname(); ok {
		t.LocalHostname = name
	}
	return t
}

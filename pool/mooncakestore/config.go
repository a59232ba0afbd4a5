package mooncakestore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kvctl/kvctl/size"
)

// Config is what a Store opens with: the fields of the Mooncake client
// JSON that TensorRT-LLM, vLLM and SGLang read (MOONCAKE_CONFIG_PATH), the
// arguments of mooncake_store_setup (store_c.h), and kvctl's own.
type Config struct {
	// LocalHostname is local_hostname: this client's address as other
	// clients reach it (default: the machine's hostname).
	LocalHostname string `json:"local_hostname"`
	// MetadataServer is metadata_server: the transfer engine's metadata
	// service (http://..., etcd://..., redis://...) or P2PHANDSHAKE (the
	// default).
	MetadataServer string `json:"metadata_server"`
	// GlobalSegmentSize is global_segment_size: the bytes this process
	// mounts into the pool (0, the default: a pure client of segments
	// other processes mount).
	GlobalSegmentSize int64 `json:"global_segment_size"`
	// LocalBufferSize is local_buffer_size: the client's own transfer
	// buffer (default 64 MiB; kvctl transfers through its staging).
	LocalBufferSize int64 `json:"local_buffer_size"`
	// Protocol is protocol: tcp (the default) or rdma.
	Protocol string `json:"protocol"`
	// DeviceName is device_name: the RDMA devices, empty for tcp.
	DeviceName string `json:"device_name"`
	// MasterServerAddress is master_server_address: the master's RPC
	// address, host:port (port 50051 when left out).
	MasterServerAddress string `json:"master_server_address"`

	// Admin is the master's admin HTTP address (host:port, as
	// mooncake://), for Stat and lease-free Exist; empty for none.
	Admin string `json:"-"`
	// Library is the path or name of libmooncake_store.so.
	Library string `json:"-"`
	// StagingBytes is the size of one registered staging buffer (default
	// 64 MiB); a value larger than it travels through a buffer of its own.
	StagingBytes int64 `json:"-"`
}

// Defaults of the fields a configuration leaves out.
const (
	DefaultMasterPort      = "50051"
	DefaultMetadataServer  = "P2PHANDSHAKE"
	DefaultProtocol        = "tcp"
	DefaultLocalBufferSize = 64 << 20
	DefaultStagingBytes    = 64 << 20
)

// withDefaults fills the fields left out, except LocalHostname (Open asks
// the machine) and Library (Open asks the environment).
func (c Config) withDefaults() Config {
	if c.MetadataServer == "" {
		c.MetadataServer = DefaultMetadataServer
	}
	if c.Protocol == "" {
		c.Protocol = DefaultProtocol
	}
	if c.LocalBufferSize == 0 {
		c.LocalBufferSize = DefaultLocalBufferSize
	}
	if c.StagingBytes == 0 {
		c.StagingBytes = DefaultStagingBytes
	}
	if c.MasterServerAddress != "" && !strings.Contains(c.MasterServerAddress, ":") {
		c.MasterServerAddress += ":" + DefaultMasterPort
	}
	return c
}

// check refuses a configuration mooncake_store_setup cannot take.
func (c Config) check() error {
	switch {
	case c.MasterServerAddress == "":
		return fmt.Errorf("no master_server_address")
	case c.GlobalSegmentSize < 0 || c.LocalBufferSize < 0 || c.StagingBytes < 0:
		return fmt.Errorf("sizes must not be negative")
	case strings.ContainsRune(c.LocalHostname+c.MetadataServer+c.Protocol+c.DeviceName+c.MasterServerAddress, 0):
		return fmt.Errorf("a field contains a NUL byte")
	}
	return nil
}

// jsonConfig is the client JSON as users write it: sizes as numbers or as
// strings ("3.125GiB", "4294967296").
type jsonConfig struct {
	LocalHostname       string    `json:"local_hostname"`
	MetadataServer      string    `json:"metadata_server"`
	GlobalSegmentSize   jsonBytes `json:"global_segment_size"`
	LocalBufferSize     jsonBytes `json:"local_buffer_size"`
	Protocol            string    `json:"protocol"`
	DeviceName          string    `json:"device_name"`
	MasterServerAddress string    `json:"master_server_address"`
}

// jsonBytes is a size in bytes written as a JSON number or string.
type jsonBytes int64

// UnmarshalJSON reads a number of bytes or a size string.
func (b *jsonBytes) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		s = string(data)
	}
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	*b = jsonBytes(n)
	return nil
}

// parseBytes reads a size as size.Parse does: bytes, or a binary unit
// (64MiB, 3.125GiB).
func parseBytes(s string) (int64, error) {
	n, err := size.Parse(s)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("size %q is negative", s)
	}
	return n, nil
}

// ParseJSON reads the Mooncake client JSON. Fields kvctl does not use
// (TensorRT-LLM's, the connector's) are ignored.
func ParseJSON(data []byte) (Config, error) {
	var j jsonConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&j); err != nil {
		return Config{}, fmt.Errorf("reading the mooncake client JSON: %w", err)
	}
	return Config{
		LocalHostname: j.LocalHostname, MetadataServer: j.MetadataServer,
		GlobalSegmentSize: int64(j.GlobalSegmentSize), LocalBufferSize: int64(j.LocalBufferSize),
		Protocol: j.Protocol, DeviceName: j.DeviceName, MasterServerAddress: j.MasterServerAddress,
	}, nil
}

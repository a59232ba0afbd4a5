package mooncakestore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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

// ConfigEnv is the environment variable that names the Mooncake client
// JSON, as TensorRT-LLM, vLLM and SGLang read it, when the pool URL names
// none (config=).
const ConfigEnv = "MOONCAKE_CONFIG_PATH"

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

// jsonFields are the fields of the client JSON a Store reads, each with
// the function that sets it from its JSON value. Sizes are read as
// size.ParseJSON reads them (a whole number of bytes, or "3.125GiB"), the
// same rule as the connector's reading of the file; a null is an unset
// field.
func jsonFields(c *Config) map[string]func(json.RawMessage) error {
	return map[string]func(json.RawMessage) error{
		"local_hostname":        jsonString(&c.LocalHostname),
		"metadata_server":       jsonString(&c.MetadataServer),
		"global_segment_size":   jsonSize(&c.GlobalSegmentSize),
		"local_buffer_size":     jsonSize(&c.LocalBufferSize),
		"protocol":              jsonString(&c.Protocol),
		"device_name":           jsonString(&c.DeviceName),
		"master_server_address": jsonString(&c.MasterServerAddress),
	}
}

func jsonString(dst *string) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("want a string, got %s", v)
		}
		return nil
	}
}

func jsonSize(dst *int64) func(json.RawMessage) error {
	return func(v json.RawMessage) (err error) {
		*dst, err = size.ParseJSON(v)
		return err
	}
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

// ParseJSON reads the Mooncake client JSON, the one place that turns it
// into a Store's settings (the connector reads the same file for its keys
// and its own settings). Fields kvctl does not use (TensorRT-LLM's, the
// connector's) are ignored; a field it uses that holds the wrong kind of
// value is an error naming the field. A field left out keeps kvctl's
// default, which is not always TensorRT-LLM's: global_segment_size left out
// mounts nothing.
func ParseJSON(data []byte) (Config, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return Config{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if dec.More() {
		return Config{}, fmt.Errorf("not a JSON object: more data after the object")
	}
	var c Config
	fields := jsonFields(&c)
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		v, ok := raw[name]
		if !ok || string(v) == "null" {
			continue
		}
		if err := fields[name](v); err != nil {
			return Config{}, fmt.Errorf("field %s: %w", name, err)
		}
	}
	return c, nil
}

package connector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/size"
	"github.com/kvctl/kvctl/transfer"
)

// Defaults of the Mooncake client configuration (spec/mooncake-pool.md).
// Those of the transfer settings are package transfer's, which applies
// them to a loader or saver left at zero; they are named here so that the
// configuration's defaults read in one place.
const (
	DefaultMetadataServer     = "P2PHANDSHAKE"
	DefaultProtocol           = "rdma"
	DefaultGlobalSegmentSize  = 3355443200
	DefaultLocalBufferSize    = 1 << 30
	DefaultRole               = RoleBoth
	DefaultNamespace          = keys.DefaultNamespace
	DefaultCachePrefix        = keys.DefaultNamespace
	DefaultTransferBatchSize  = transfer.DefaultBatch
	DefaultStagingBufferBytes = transfer.DefaultStagingBytes
	DefaultAsyncLoadWorkers   = transfer.DefaultWorkers
)

// The store roles (role): which directions of traffic the connector drives.
const (
	RoleBoth     = "both"     // loads and saves
	RoleProducer = "producer" // saves only
	RoleConsumer = "consumer" // loads only
	RoleCapacity = "capacity" // mounts pool memory, moves nothing
)

// Roles lists the valid store roles.
var Roles = []string{RoleBoth, RoleProducer, RoleConsumer, RoleCapacity}

// ErrBadConfig is wrapped by the errors of CheckRole and Faults.Validate:
// a setting the connector cannot run with.
var ErrBadConfig = errors.New("bad connector config")

// CheckRole returns an error wrapping ErrBadConfig unless role is one of
// Roles.
func CheckRole(role string) error {
	if !slices.Contains(Roles, role) {
		return fmt.Errorf("%w: role %q is not one of %s", ErrBadConfig, role, strings.Join(Roles, ", "))
	}
	return nil
}

// MooncakeConfig is the Mooncake client configuration, the JSON file named
// by MOONCAKE_CONFIG_PATH that TensorRT-LLM's and vLLM's connectors read.
type MooncakeConfig struct {
	MasterServerAddress string `json:"master_server_address"`
	MetadataServer      string `json:"metadata_server"`
	Protocol            string `json:"protocol"`
	DeviceName          string `json:"device_name,omitempty"`
	LocalHostname       string `json:"local_hostname,omitempty"`
	TenantID            string `json:"tenant_id,omitempty"`
	GlobalSegmentSize   int64  `json:"global_segment_size"`
	LocalBufferSize     int64  `json:"local_buffer_size"`
	Role                string `json:"role"`
	// Namespace is the first segment of page keys as upstream's config.py
	// reads it: DefaultNamespace when the key is absent, "" when it is "",
	// "None" when it is null (Python's str(None)).
	Namespace string `json:"namespace"`
	// CachePrefix is cache_prefix, the first segment of page keys in the
	// builds of schemes trtllm-fork and trtllm-legacy, read the same way
	// (DefaultCachePrefix when absent, "None" when null). Those builds do
	// not read namespace; the current one does not read cache_prefix.
	CachePrefix       string `json:"cache_prefix,omitempty"`
	ModelKey          string `json:"model_key,omitempty"`
	TransferBatchSize int    `json:"transfer_batch_size"`
	// StageThroughHost is nil when the file does not say: the caller
	// decides (staging when GPU memory cannot be registered with the pool).
	StageThroughHost   *bool `json:"stage_through_host,omitempty"`
	StagingBufferBytes int64 `json:"staging_buffer_bytes"`
	AsyncLoad          bool  `json:"async_load"`
	AsyncLoadWorkers   int   `json:"async_load_workers"`
}

// LoadMooncakeConfig reads a Mooncake client JSON file. Keys other readers
// of the same file use are ignored; the keys kvctl knows are checked: sizes
// are a non-negative integer or a string with a binary unit ("3GiB"; decimal
// units such as "3GB" are refused, since other readers of the file take them
// as powers of 1024), role is one of
// Roles. Unset keys get the defaults of spec/mooncake-pool.md. A null is an
// unset key, except for namespace and cache_prefix, which upstream turns
// into the string "None".
func LoadMooncakeConfig(path string) (MooncakeConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return MooncakeConfig{}, fmt.Errorf("reading Mooncake config: %w", err)
	}
	c, err := ParseMooncakeConfig(data)
	if err != nil {
		return c, fmt.Errorf("reading Mooncake config %q: %w", path, err)
	}
	return c, nil
}

// ParseMooncakeConfig parses the contents of a Mooncake client JSON file,
// as LoadMooncakeConfig does.
func ParseMooncakeConfig(data []byte) (MooncakeConfig, error) {
	c := MooncakeConfig{
		MetadataServer: DefaultMetadataServer, Protocol: DefaultProtocol,
		GlobalSegmentSize: DefaultGlobalSegmentSize, LocalBufferSize: DefaultLocalBufferSize,
		Role: DefaultRole, Namespace: DefaultNamespace, CachePrefix: DefaultCachePrefix,
		TransferBatchSize:  DefaultTransferBatchSize,
		StagingBufferBytes: DefaultStagingBufferBytes, AsyncLoadWorkers: DefaultAsyncLoadWorkers,
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return c, jsonError(data, err)
	}
	if dec.More() {
		return c, errors.New("not a JSON object: more data after the object")
	}
	if raw == nil {
		return c, errors.New("not a JSON object: null")
	}
	for _, f := range mooncakeFields(&c) {
		v, ok := raw[f.name]
		if !ok || (string(v) == "null" && !nullIsValue(f.name)) {
			continue
		}
		if err := f.set(v); err != nil {
			return c, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	c.Role = strings.ToLower(strings.TrimSpace(c.Role))
	return c, c.Validate()
}

type configField struct {
	name string
	set  func(json.RawMessage) error
}

// nullIsValue reports the keys upstream reads with str(), so that a null
// is the string "None" rather than an unset key.
func nullIsValue(name string) bool { return name == "namespace" || name == "cache_prefix" }

func mooncakeFields(c *MooncakeConfig) []configField {
	return []configField{
		{"master_server_address", stringField(&c.MasterServerAddress, false)},
		{"metadata_server", stringField(&c.MetadataServer, true)},
		{"protocol", stringField(&c.Protocol, true)},
		{"device_name", stringField(&c.DeviceName, false)},
		{"local_hostname", stringField(&c.LocalHostname, false)},
		{"tenant_id", stringField(&c.TenantID, false)},
		{"global_segment_size", sizeField(&c.GlobalSegmentSize)},
		{"local_buffer_size", sizeField(&c.LocalBufferSize)},
		{"role", stringField(&c.Role, true)},
		{"namespace", pythonStrField(&c.Namespace)},
		{"cache_prefix", pythonStrField(&c.CachePrefix)},
		{"model_key", stringField(&c.ModelKey, false)},
		{"transfer_batch_size", intField(&c.TransferBatchSize)},
		{"stage_through_host", func(v json.RawMessage) error {
			var b bool
			if err := json.Unmarshal(v, &b); err != nil {
				return fmt.Errorf("want true or false, got %s", v)
			}
			c.StageThroughHost = &b
			return nil
		}},
		{"staging_buffer_bytes", sizeField(&c.StagingBufferBytes)},
		{"async_load", func(v json.RawMessage) error {
			if err := json.Unmarshal(v, &c.AsyncLoad); err != nil {
				return fmt.Errorf("want true or false, got %s", v)
			}
			return nil
		}},
		{"async_load_workers", intField(&c.AsyncLoadWorkers)},
	}
}

// stringField sets a string; with keepDefault an empty string leaves the
// default in place, as upstream reads `raw.get(key) or DEFAULT`.
func stringField(dst *string, keepDefault bool) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("want a string, got %s", v)
		}
		if s != "" || !keepDefault {
			*dst = s
		}
		return nil
	}
}

// pythonStrField sets a string as upstream's str(raw.get(key, default))
// does for a string or a null: a string as written, null as "None". Other
// JSON values are refused rather than spelled as Python would spell them.
func pythonStrField(dst *string) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		if string(v) == "null" {
			*dst = "None"
			return nil
		}
		return stringField(dst, false)(v)
	}
}

func intField(dst *int) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		var n json.Number
		if len(v) == 0 || v[0] == '"' || json.Unmarshal(v, &n) != nil {
			return fmt.Errorf("want an integer, got %s", v)
		}
		i, err := n.Int64()
		if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
			return fmt.Errorf("want an integer, got %s", v)
		}
		*dst = int(i)
		return nil
	}
}

// sizeField sets a byte size as size.ParseJSON reads it: an integer (a
// JSON number with no fraction) or a string with a binary unit.
func sizeField(dst *int64) func(json.RawMessage) error {
	return func(v json.RawMessage) error {
		n, err := size.ParseJSON(v)
		if err != nil {
			return err
		}
		*dst = n
		return nil
	}
}

// Validate checks what would otherwise fail later: a known role, positive
// buffer and batch sizes, at least one async worker. master_server_address
// is not required: kvctl reads the file for its keys and connector
// settings, and names a master with a pool URL (mooncake://HOST:PORT).
func (c MooncakeConfig) Validate() error {
	switch {
	case c.LocalBufferSize <= 0:
		return fmt.Errorf("local_buffer_size must be positive, got %d", c.LocalBufferSize)
	case c.TransferBatchSize <= 0:
		return fmt.Errorf("transfer_batch_size must be positive, got %d", c.TransferBatchSize)
	case c.StagingBufferBytes <= 0:
		return fmt.Errorf("staging_buffer_bytes must be positive, got %d", c.StagingBufferBytes)
	case c.AsyncLoadWorkers < 1:
		return fmt.Errorf("async_load_workers must be at least 1, got %d", c.AsyncLoadWorkers)
	}
	return CheckRole(c.Role)
}

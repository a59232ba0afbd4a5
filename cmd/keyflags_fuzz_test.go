package cmd

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/size"
)

// FuzzKeysNumericFlags feeds the keys command's numeric flags through run
// with a short prompt: it must answer within a bound, exit 0 or 2 only,
// and exit 0 only with every value inside its documented range.
func FuzzKeysNumericFlags(f *testing.F) {
	f.Add(int64(32), int64(0), int64(1), int64(0), "7", "64KiB")
	f.Add(int64(1<<61), int64(0), int64(1), int64(0), "0", "64KiB")
	f.Add(int64(32), int64(1<<62), int64(1), int64(0), "010", "100.7")
	f.Add(int64(16), int64(1), int64(4), int64(3), "0x10", "1.5KiB")
	f.Add(int64(-1), int64(-1), int64(1<<61), int64(-1), "-1", "0")
	f.Fuzz(func(t *testing.T, tpb, lookahead, tp, rank int64, lora, bytes string) {
		args := []string{"keys", "--tokens", "-", "--model-key", "m",
			"--tokens-per-block", strconv.FormatInt(tpb, 10),
			"--lookahead", strconv.FormatInt(lookahead, 10),
			"--tp", strconv.FormatInt(tp, 10), "--rank", strconv.FormatInt(rank, 10),
			"--lora-task-id=" + lora, "--layer-group", "0:" + bytes}
		code := runWithin(t, 30*time.Second, args)
		if code != ExitOK && code != ExitUsage {
			t.Fatalf("run(%q) = %d, want %d or %d", args, code, ExitOK, ExitUsage)
		}
		if code == ExitOK && !keysFlagsInRange(tpb, lookahead, tp, rank, lora, bytes) {
			t.Fatalf("run(%q) = %d, want %d: a value is outside its range", args, code, ExitUsage)
		}
	})
}

// runWithin runs args on a three-token prompt and fails t if it does not
// return within limit.
func runWithin(t *testing.T, limit time.Duration, args []string) int {
	t.Helper()
	done := make(chan int, 1)
	go func() {
		ios, _, _ := NewTestIOStreams("[1, 2, 3]")
		done <- run(context.Background(), ios, args)
	}()
	select {
	case code := <-done:
		return code
	case <-time.After(limit):
		t.Fatalf("run(%q) did not return within %v", args, limit)
		return 0
	}
}

// keysFlagsInRange reports whether every value is inside the range the
// flags' help documents.
func keysFlagsInRange(tpb, lookahead, tp, rank int64, lora, bytes string) bool {
	id, err := strconv.ParseInt(lora, 10, 64)
	if err != nil || id < 0 || strconv.FormatInt(id, 10) != lora {
		return false
	}
	n, err := size.Parse(bytes)
	if err != nil || n <= 0 || strings.Contains(bytes, ":") {
		return false
	}
	return tpb >= 1 && tpb <= keys.MaxTokensPerBlock &&
		lookahead >= 0 && lookahead <= keys.MaxLookahead &&
		tp >= 1 && tp <= keys.MaxWorld && rank >= 0 && rank < tp
}

// FuzzKeysFlagsAndConfigs feeds the flags and both configuration files
// (the TensorRT-LLM YAML and the Mooncake JSON) together, as a user
// combines them: whatever they hold, keys answers within a bound with exit
// 0 or 2, and with exit 0 its JSON is whole.
func FuzzKeysFlagsAndConfigs(f *testing.F) {
	f.Add("kv_cache_config:\n  tokens_per_block: 16\n", `{"namespace": "ns", "model_key": "m"}`, "32", "0")
	f.Add("enable_attention_dp: true\nspeculative_config:\n  decoding_type: MTP\n  max_draft_len: 3\n", `{"namespace": null}`, "", "1")
	f.Add("kv_cache_config: {tokens_per_blok: 16}\n", `{"model_key": 7}`, "16", "-1")
	f.Add("kv_cache_config:\n  tokens_per_block: 2305843009213693952\n", `{"namespace": ""`, "0x20", "1024")
	f.Add(": [\n", "[]", "", "")
	f.Fuzz(func(t *testing.T, yaml, mooncakeJSON, tpb, lookahead string) {
		dir := t.TempDir()
		llm, mc := dir+"/llm.yaml", dir+"/mooncake.json"
		if err := os.WriteFile(llm, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mc, []byte(mooncakeJSON), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"keys", "--tokens", "-", "--llm-config", llm, "--mooncake-config", mc, "-o", "json"}
		if tpb != "" {
			args = append(args, "--tokens-per-block="+tpb)
		}
		if lookahead != "" {
			args = append(args, "--lookahead="+lookahead)
		}
		code, out := runWithinOut(t, 30*time.Second, args)
		if code != ExitOK && code != ExitUsage {
			t.Fatalf("run(%q) with %q and %q = %d, want %d or %d", args, yaml, mooncakeJSON, code, ExitOK, ExitUsage)
		}
		if code == ExitOK && !json.Valid([]byte(out)) {
			t.Fatalf("run(%q) = 0 with output that is not JSON: %q", args, out)
		}
	})
}

// runWithinOut is runWithin that also returns stdout.
func runWithinOut(t *testing.T, limit time.Duration, args []string) (int, string) {
	t.Helper()
	type result struct {
		code int
		out  string
	}
	done := make(chan result, 1)
	go func() {
		ios, out, _ := NewTestIOStreams("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]")
		code := run(context.Background(), ios, args)
		done <- result{code, out.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.out
	case <-time.After(limit):
		t.Fatalf("run(%q) did not return within %v", args, limit)
		return 0, ""
	}
}

// FuzzEngineVersionFlags feeds --engine-version, --chunk-size and
// --tokens-per-block of each engine through run: it must exit 0 or 2
// only, and 0 only with a version the engine names and, for vLLM, chunks
// that are a multiple of the hash block.
func FuzzEngineVersionFlags(f *testing.F) {
	f.Add("vllm", "pr40900", int64(4), int64(4))
	f.Add("vllm", "current", int64(8), int64(4))
	f.Add("vllm", "", int64(6), int64(4))
	f.Add("vllm", "pr40900", int64(8), int64(4))
	f.Add("lmcache", "fmt", int64(256), int64(4))
	f.Add("dynamo", "tokens", int64(0), int64(2))
	f.Add("sglang", "router", int64(0), int64(0))
	f.Fuzz(func(t *testing.T, engine, version string, chunk, tpb int64) {
		args := []string{"keys", "--tokens", "-", "--engine", engine,
			"--engine-version=" + version, "--tokens-per-block", strconv.FormatInt(tpb, 10)}
		if engine == "vllm" || engine == "lmcache" {
			args = append(args, "--hash-seed", "0", "--chunk-size", strconv.FormatInt(chunk, 10))
		}
		code := runWithin(t, 30*time.Second, args)
		if code != ExitOK && code != ExitUsage {
			t.Fatalf("run(%q) = %d, want %d or %d", args, code, ExitOK, ExitUsage)
		}
		if code != ExitOK {
			return
		}
		info, err := keys.LookupEngineVersion(keys.Engine(engine), keys.EngineVersion(version))
		if err != nil || info.Engine != keys.Engine(engine) {
			t.Fatalf("run(%q) = 0 with a version %s does not name: %v", args, engine, err)
		}
		if engine == "vllm" && (tpb < 1 || chunk%tpb != 0) {
			t.Fatalf("run(%q) = 0 with chunks of %d tokens over hash blocks of %d", args, chunk, tpb)
		}
	})
}

package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kvctl": func() { os.Exit(Execute()) },
	})
}

// mooncakeReal is the folder of a real Mooncake master's recordings, which
// scripts read as $MOONCAKE_REAL.
var mooncakeReal, _ = filepath.Abs(filepath.Join("..", "testdata", "mooncake-real"))

// traceSmall is the repository's 901-request trace excerpt, which scripts
// read as $TRACE_SMALL.
var traceSmall, _ = filepath.Abs(filepath.Join("..", "testdata", "trace-small.jsonl"))

// TestScripts runs the end-to-end CLI scripts in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("MOONCAKE_REAL", mooncakeReal)
			env.Setenv("TRACE_SMALL", traceSmall)
			env.Setenv("MOONCAKE_CONFIG_PATH", "")
			env.Setenv("TRTLLM_MOONCAKE_STORE_PREFIX", "")
			for _, k := range []string{"KVCTL_TEST_REDIS_URL"} {
				env.Setenv(k, os.Getenv(k))
			}
			return nil
		},
		Cmds: scriptCmds(map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":             exitsCmd,
			"truncating-master": truncatingMasterCmd,
			"restarted-master":  restartedMasterCmd,
			"free-addr":         freeAddrCmd,
			"http":              httpCmd,
		}),
		RequireExplicitExec: false,
	})
}

// platformScriptCmds are the script commands only some systems offer
// (stderr-tty on Linux); scripts that use one skip elsewhere.
var platformScriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}

// scriptCmds is cmds with platformScriptCmds added.
func scriptCmds(cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	for name, cmd := range platformScriptCmds {
		cmds[name] = cmd
	}
	return cmds
}

// exitsCmd is the script command "exits CODE PROG [ARGS...]": it runs PROG
// as exec does and fails unless PROG exits with CODE.
func exitsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: code %q is not a number", args[0])
	}
	got := 0
	var ee *exec.ExitError
	switch err := ts.Exec(args[1], args[2:]...); {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// truncatingMasterCmd is the script command "truncating-master VAR": it
// starts a Mooncake master that is healthy but breaks off every other
// answer mid-body, for the rest of the script, and sets VAR to its
// host:port.
func truncatingMasterCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: truncating-master VAR")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			fmt.Fprint(w, `{"status":"ok","role":"leader","ha_state":"serving","service_ready":true}`)
			return
		}
		w.Header().Set("Content-Length", "100")
		fmt.Fprint(w, `{"success":true,"data":{`)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], strings.TrimPrefix(srv.URL, "http://"))
}

// restartedMasterCmd is the script command "restarted-master VAR": it
// starts a Mooncake master, for the rest of the script, that answers as a
// real one restarted under a running client does (a segment mounted, no
// keys, PutStart failures counted: 5 of them, 2 for want of room), and
// sets VAR to its host:port.
func restartedMasterCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: restarted-master VAR")
	}
	answers := map[string]string{
		"/health": `{"status":"ok","role":"leader","ha_state":"serving","service_ready":true,"leader_address":null,"view_version":null}`,
		"/metrics": "master_key_count 0\nmaster_put_start_failures_total 5\nmaster_put_start_alloc_failures_total 2\n" +
			"master_total_capacity_bytes 1073741824\n",
		"/get_segments_detail": `{"total_segments":1,"segments":[{"segment_name":"10.0.0.7:13001","size_bytes":1073741824,` +
			`"allocator_used_bytes":0,"allocator_capacity_bytes":1073741824,"allocator_usage_percent":0E0}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], strings.TrimPrefix(srv.URL, "http://"))
}

package cmd

import (
	"io"
	"os/exec"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { platformScriptCmds["stderr-tty"] = stderrTTYCmd }

// scriptTTYColumns is the width of the terminal stderr-tty gives its
// program.
const scriptTTYColumns = 100

// scriptTTYEnv are the variables of the script's environment that
// stderr-tty passes on (and TERM=xterm).
var scriptTTYEnv = []string{"PATH", "HOME", "TMPDIR", "WORK", "NO_COLOR", "MOONCAKE_REAL", "TRACE_SMALL",
	"MOONCAKE_CONFIG_PATH", "TRTLLM_MOONCAKE_STORE_PREFIX", "KVCTL_TEST_REDIS_URL"}

// stderrTTYCmd is the script command "stderr-tty PROG [ARGS...]": it runs
// PROG with its stderr on a pseudo-terminal 100 columns wide (stdout stays
// a pipe) and fails unless PROG exits 0 (with !, unless it fails). What
// the terminal received becomes the script's stderr, its line ends
// "\r\n" written as "\n" (the bar's own "\r" are kept).
func stderrTTYCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: stderr-tty PROG [ARGS...]")
	}
	ptmx, tty, err := openPTYPair(scriptTTYColumns)
	if err != nil {
		ts.Fatalf("stderr-tty: %v", err)
	}
	defer ptmx.Close()
	path, err := exec.LookPath(args[0])
	if err != nil {
		ts.Fatalf("stderr-tty: %v", err)
	}
	cmd := exec.Command(path, args[1:]...)
	cmd.Dir, cmd.Env = ts.MkAbs("."), []string{"TERM=xterm"}
	for _, k := range scriptTTYEnv {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	cmd.Stdout, cmd.Stderr = ts.Stdout(), tty
	var screen strings.Builder
	copied := make(chan struct{})
	go func() { io.Copy(&screen, ptmx); close(copied) }() // ends with EIO once no one holds tty
	err = cmd.Start()
	tty.Close()
	if err == nil {
		err = cmd.Wait()
	}
	<-copied
	io.WriteString(ts.Stderr(), strings.ReplaceAll(screen.String(), "\r\n", "\n"))
	if (err != nil) != neg {
		ts.Fatalf("stderr-tty %s: %v (want failure: %v)", args[0], err, neg)
	}
}

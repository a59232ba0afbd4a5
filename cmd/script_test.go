package cmd

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kvctl": func() { os.Exit(Execute()) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("MOONCAKE_CONFIG_PATH", "")
			for _, k := range []string{"KVCTL_TEST_REDIS_URL"} {
				env.Setenv(k, os.Getenv(k))
			}
			return nil
		},
		RequireExplicitExec: false,
	})
}

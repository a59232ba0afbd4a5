package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at link time: go build -ldflags "-X github.com/kvctl/kvctl/cmd.version=v1.2.3".
var (
	version = ""
	commit  = ""
)

// versionInfo is the JSON shape of kvctl version.
type versionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
	Modified  bool   `json:"modified"`
}

func newVersionCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print kvctl's version, commit and Go version",
		Example: "$ kvctl version\n$ kvctl version -o json",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			info := readVersion()
			if g.Output == "json" {
				return writeJSON(ios.Out, info)
			}
			dirty := ""
			if info.Modified {
				dirty = " (modified)"
			}
			_, err := fmt.Fprintf(ios.Out, "kvctl %s\ncommit %s%s\n%s\n", info.Version, info.Commit, dirty, info.GoVersion)
			return err
		},
	}
}

// readVersion takes the version from the link-time variables, else from
// the module build info (go install pkg@version), else "devel".
func readVersion() versionInfo {
	info := versionInfo{Version: version, Commit: commit, GoVersion: "unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Commit == "" {
					info.Commit = s.Value
				}
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	if info.Commit == "" {
		info.Commit = "unknown"
	}
	return info
}

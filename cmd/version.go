package cmd

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Set at link time: go build -ldflags "-X github.com/kvctl/kvctl/cmd.version=v1.2.3".
var (
	version = ""
	commit  = ""
)

// versionInfo is the JSON shape of kvctl version. Modified is nil (null)
// when the build does not say: built without version control information.
type versionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
	Modified  *bool  `json:"modified"`
}

func newVersionCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print kvctl's version, commit and Go version",
		Long: `Print kvctl's version, commit and Go version; kvctl --version prints the same.

The commit is "unknown" when the binary was built without version control
information (go run, -buildvcs=false in GOFLAGS, or a source tree that is
not a git checkout); whether the tree was modified is then unknown too.`,
		Example: "$ kvctl version\n$ kvctl version -o json\n$ kvctl --version",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			info := readVersion()
			if g.Output == "json" {
				return writeJSON(ios.Out, info)
			}
			return writeVersion(ios.Out, info)
		},
	}
}

// setVersionFlag gives root a --version flag (no shorthand) that prints
// what kvctl version prints.
func setVersionFlag(root *cobra.Command) {
	root.Flags().Bool("version", false, "print kvctl's version, commit and Go version (as kvctl version does)")
	var b strings.Builder
	_ = writeVersion(&b, readVersion()) // a strings.Builder does not fail
	root.Version = b.String()
	root.SetVersionTemplate("{{.Version}}")
}

// writeVersion writes info as kvctl version prints it: the version, the
// commit (and whether the tree was modified) and the Go version, a line
// each.
func writeVersion(w io.Writer, info versionInfo) error {
	commitLine := info.Commit
	switch {
	case info.Commit == unknownCommit:
		commitLine += " (built without version control information)"
	case info.Modified != nil && *info.Modified:
		commitLine += " (modified)"
	}
	_, err := fmt.Fprintf(w, "kvctl %s\ncommit %s\n%s\n", info.Version, commitLine, info.GoVersion)
	return err
}

// unknownCommit is the commit of a build without version control
// information.
const unknownCommit = "unknown"

// readVersion takes the version from the link-time variables, else from
// the module build info (go install pkg@version), else "devel".
func readVersion() versionInfo {
	info := versionInfo{Version: version, Commit: commit, GoVersion: "unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		readVCS(&info, bi.Settings)
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	if info.Commit == "" {
		info.Commit = unknownCommit
	}
	return info
}

// readVCS fills the commit (unless set at link time) and Modified from the
// build's version control settings, which -buildvcs=false leaves out.
func readVCS(info *versionInfo, settings []debug.BuildSetting) {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			if info.Commit == "" {
				info.Commit = s.Value
			}
		case "vcs.modified":
			modified := s.Value == "true"
			info.Modified = &modified
		}
	}
}

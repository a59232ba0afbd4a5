package report

// Header is the "kvctl" object at the head of the -o json output of the
// commands a report reads (holes, bench load and save, serve): what made
// the file.
type Header struct {
	// Command is the command that wrote the output, e.g. "holes" or
	// "bench load".
	Command string `json:"command"`
	// Version is the version of kvctl that wrote it.
	Version string `json:"version"`
	// Format is the version of the output's shape; Read accepts Format
	// up to CurrentFormat.
	Format int `json:"format"`
}

// CurrentFormat is the Format this build writes and the newest it reads.
const CurrentFormat = 1

// HeaderField is the name of the header object in an output.
const HeaderField = "kvctl"

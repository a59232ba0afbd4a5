package cmd

import (
	"runtime/debug"

	"github.com/kvctl/kvctl/engine"
)

// collectorOffToReport keeps the garbage collector off from a replay's run
// to its report when the run itself turns it off (Config.MemoryLimit): the
// engine restores GOGC as the run returns, and the collector would then
// mark the run's whole heap, about 1 GB for the whole conversation trace,
// while the report is written, a quarter of a second or more for memory
// the command is about to drop. The caller restores GOGC with the function
// returned once the report is out (before a chart is drawn, whose garbage
// is worth collecting, and again on the way out: a second call sets the
// same percentage).
func collectorOffToReport(cfg engine.Config) (restore func()) {
	if cfg.MemoryLimit <= 0 {
		return func() {}
	}
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}

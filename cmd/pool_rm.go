package cmd

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kvctl/kvctl/pool"
	"github.com/spf13/cobra"
)

// poolRmOptions are pool rm's flags and arguments.
type poolRmOptions struct {
	Pool  poolFlag
	Force bool
	All   bool
	Keys  []string // the arguments
}

// rmEntry is one key of pool rm -o json.
type rmEntry struct {
	Key     string `json:"key"`
	Removed bool   `json:"removed"`
	Code    int    `json:"code"`
	// LeasedUntil is when the lease that kept the key ends, where the pool
	// can tell.
	LeasedUntil *time.Time `json:"leased_until,omitempty"`
}

func newPoolRmCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolRmOptions{}
	c := &cobra.Command{
		Use:   "rm --pool URL (KEY... | --all) [--force]",
		Short: "Remove keys; leased keys only with --force",
		Long: "Remove keys. A key under an unexpired lease is refused (OBJECT_HAS_LEASE) unless --force, a key still being written always (REPLICA_IS_NOT_READY); a get leases the key it reads (10 s on mem://), and the refusal says when the lease ends where the pool can tell. Exits 1 when any key could not be removed.\n\n" +
			"--all removes every object whose lease has expired (every object with --force) but those still being written, as the Mooncake master's RemoveAll, and prints how many it removed; mem:// and mooncake-store:// (remove_all: every object in the pool, not only kvctl's) have it, other pools refuse it.\n\n" +
			"-o json prints [{\"key\", \"removed\", \"code\", \"leased_until\"}, ...], or {\"removed\": N} with --all." + poolExitCodes,
		Example: "$ kvctl pool rm --pool mem://?snapshot=pool.snap k1 k2 --force\n$ kvctl pool rm --pool mem://?snapshot=pool.snap --all",
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			switch {
			case opts.All && len(args) > 0:
				return usagef("give keys or --all, not both")
			case !opts.All && len(args) == 0:
				return usagef("give at least one key")
			}
			opts.Keys = args
			return runPoolRm(c.Context(), ios, g, opts)
		},
	}
	opts.Pool.register(c.Flags())
	c.Flags().BoolVar(&opts.Force, "force", false, "remove keys even under a lease")
	c.Flags().BoolVar(&opts.All, "all", false, "remove every object (Mooncake's RemoveAll)")
	return c
}

// runPoolRm removes the keys and names on stderr each one that stayed, or
// with --all runs the pool's RemoveAll.
func runPoolRm(ctx context.Context, ios *IOStreams, g *globalOptions, o *poolRmOptions) error {
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		if o.All {
			return removeAll(ctx, ios, g, o.Pool.URL, st, o.Force)
		}
		res := make([]pool.Code, len(o.Keys))
		if err := st.Remove(ctx, o.Keys, o.Force, res); err != nil {
			return err
		}
		entries := removedEntries(ctx, st, o.Keys, res)
		if g.Output == "json" {
			if err := writeJSON(ios.Out, entries); err != nil {
				return err
			}
		} else {
			explainKept(ios, leaseTTL(st), entries)
		}
		return keptError(entries)
	})
}

// removeAll runs the pool's RemoveAll and prints how many objects went.
func removeAll(ctx context.Context, ios *IOStreams, g *globalOptions, url string, st pool.Store, force bool) error {
	ra, ok := st.(pool.AllRemover)
	if !ok {
		return fmt.Errorf("pool %s cannot remove all keys (RemoveAll)", url)
	}
	n, err := ra.RemoveAll(ctx, force)
	if err != nil {
		return err
	}
	if g.Output == "json" {
		return writeJSON(ios.Out, struct {
			Removed int64 `json:"removed"`
		}{n})
	}
	fmt.Fprintf(ios.Out, "%d removed\n", n)
	return nil
}

// removedEntries spells Remove's results, with each leased key's lease
// deadline where the pool can tell it (pool.LeaseReporter).
func removedEntries(ctx context.Context, st pool.Store, keyList []string, res []pool.Code) []rmEntry {
	out := make([]rmEntry, len(keyList))
	var leased []int
	for i, k := range keyList {
		out[i] = rmEntry{Key: k, Removed: res[i] == pool.OK, Code: int(res[i])}
		if res[i] == pool.ObjectHasLease {
			leased = append(leased, i)
		}
	}
	lr, ok := st.(pool.LeaseReporter)
	if !ok || len(leased) == 0 {
		return out
	}
	ks := make([]string, len(leased))
	for j, i := range leased {
		ks[j] = keyList[i]
	}
	until := make([]time.Time, len(ks))
	if lr.Leases(ctx, ks, until) != nil {
		return out // the refusal stands; only its explanation is lost
	}
	for j, i := range leased {
		if !until[j].IsZero() {
			out[i].LeasedUntil = &until[j]
		}
	}
	return out
}

// leaseTTL is how long the pool's gets lease a key, 0 when it cannot say.
func leaseTTL(st pool.Store) time.Duration {
	if lr, ok := st.(pool.LeaseReporter); ok {
		return lr.LeaseTTL()
	}
	return 0
}

// explainKept names on stderr each key that stayed, and why.
func explainKept(ios *IOStreams, ttl time.Duration, entries []rmEntry) {
	for _, e := range entries {
		if !e.Removed {
			fmt.Fprintf(ios.ErrOut, "%s: %s\n", e.Key, keptReason(e, ttl, ios.Now()))
		}
	}
}

// keptReason says why a key was not removed: for a leased key, until when
// and what to do, e.g. "leased until 12:03:04 (a get leases for 10 s);
// retry in 9 s or pass --force".
func keptReason(e rmEntry, ttl time.Duration, now time.Time) string {
	code := pool.Code(e.Code)
	if code != pool.ObjectHasLease {
		return fmt.Sprintf("%s (%d)", code, e.Code)
	}
	why := "a get or a leasing probe leases a key"
	if ttl > 0 {
		why = fmt.Sprintf("a get leases for %s", secondsText(ttl))
	}
	if e.LeasedUntil == nil {
		return fmt.Sprintf("leased or being read (%s); retry later or pass --force", why)
	}
	return fmt.Sprintf("leased until %s (%s); retry in %s or pass --force",
		e.LeasedUntil.Local().Format(time.TimeOnly), why, secondsText(e.LeasedUntil.Sub(now)))
}

// secondsText spells d in whole seconds, rounded up: "10 s".
func secondsText(d time.Duration) string {
	return fmt.Sprintf("%d s", int64(math.Ceil(max(d, 0).Seconds())))
}

// keptError is the error for the keys that stayed, nil when none did.
func keptError(entries []rmEntry) error {
	kept := 0
	for _, e := range entries {
		if !e.Removed {
			kept++
		}
	}
	if kept > 0 {
		return fmt.Errorf("%d of %d keys not removed", kept, len(entries))
	}
	return nil
}

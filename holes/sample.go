package holes

import (
	"context"
	"errors"
	"slices"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
)

// SampleKeys is the most keys Sample reads.
const SampleKeys = 4096

// ErrNoListing is returned by Sample for a pool that cannot list its keys.
var ErrNoListing = errors.New("the pool cannot list its keys")

// errSampleFull ends a listing once the sample is full.
var errSampleFull = errors.New("sample full")

// PoolSample is what a sample of a pool's keys under one namespace shows.
type PoolSample struct {
	// Layouts are the layouts of the model's page keys (keys.LayoutsOf).
	Layouts []keys.Layout
	// OtherPrefixes are the key prefixes ("{namespace}/{model_key}/") of
	// other models found under the namespace, sorted.
	OtherPrefixes []string
}

// Sample reads up to SampleKeys keys of st under ns's namespace (a
// pool.Lister) and reports the layouts of ns's model and the other models
// it found. It returns ErrNoListing for a pool that cannot list.
func Sample(ctx context.Context, st pool.Store, ns keys.Namespace) (PoolSample, error) {
	l, ok := st.(pool.Lister)
	if !ok {
		return PoolSample{}, ErrNoListing
	}
	var mine []keys.ParsedKey
	var out PoolSample
	fill := func(prefix string) error {
		n := 0
		err := l.List(ctx, prefix, func(key string) error {
			if n++; n > SampleKeys {
				return errSampleFull
			}
			k, err := keys.ParseKey(key)
			switch {
			case err != nil:
			case k.Prefix == ns.KeyPrefix():
				mine = append(mine, k)
			case !slices.Contains(out.OtherPrefixes, k.Prefix):
				out.OtherPrefixes = append(out.OtherPrefixes, k.Prefix)
			}
			return nil
		})
		if errors.Is(err, errSampleFull) {
			return nil
		}
		return err
	}
	if err := fill(ns.KeyPrefix()); err != nil {
		return out, err
	}
	if len(mine) == 0 {
		if err := fill(ns.Name + "/"); err != nil {
			return out, err
		}
	}
	out.Layouts = keys.LayoutsOf(mine)
	slices.Sort(out.OtherPrefixes)
	return out, nil
}

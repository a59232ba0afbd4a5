// Package keylist is a read-only pool made of a captured key listing: a file
// with one key per line, such as the output of a Mooncake master's
// GET /get_all_keys. It answers Exist from an in-memory set and List in file
// order, so a hole analysis can run offline against a snapshot of a real
// pool's keys.
//
// File format: one key per line, verbatim. A trailing \r (CRLF files) is
// dropped, empty lines are skipped, a last line without a newline is a key,
// and a key listed twice counts once. Nothing else is trimmed: spaces are
// part of a key.
//
// URL: keylist:PATH (an opaque URL: keylist:keys.txt, keylist:dir/keys.txt)
// or keylist:///abs/path (also keylist:/abs/path). There are no options.
//
// A listing holds no values and takes no writes: Get writes TransferFail
// for every key and fails with an error wrapping errors.ErrUnsupported; Put
// and Remove fail with an error wrapping pool.ErrReadOnly.
package keylist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

// Store is a captured key listing. It is safe for concurrent use (it never
// changes after Load).
type Store struct {
	name string              // the file's path, or the name given to Read
	keys []string            // distinct keys in file order
	set  map[string]struct{} // the same keys
}

var (
	_ pool.Store    = (*Store)(nil)
	_ pool.Lister   = (*Store)(nil)
	_ pool.ReadOnly = (*Store)(nil)
)

func init() {
	pool.Register("keylist", openURL)
}

// openURL is the pool.Opener for keylist:PATH and keylist:///abs/path.
func openURL(ctx context.Context, u *url.URL) (pool.Store, error) {
	path, err := PathOf(u)
	if err != nil {
		return nil, err
	}
	return Load(path)
}

// PathOf returns the file a keylist URL names.
func PathOf(u *url.URL) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w %q: %s (want keylist:PATH or keylist:///abs/path)", pool.ErrBadURL, u.String(), why)
	}
	switch {
	case u.RawQuery != "" || u.ForceQuery:
		return bad("keylist takes no options")
	case u.Fragment != "":
		return bad("unexpected #fragment")
	case u.User != nil || (u.Host != "" && u.Host != "localhost"):
		return bad("a key list is a local file, not a host")
	}
	path := u.Opaque
	if path == "" {
		path = u.Path
	}
	if path == "" {
		return bad("no file path")
	}
	return path, nil
}

// Load reads the key listing at path. A file that cannot be read fails with
// an error that names it and wraps both the os error (fs.ErrNotExist for a
// missing file) and pool.ErrUnreachable.
func Load(path string) (*Store, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("keylist %q: %w: %w", path, pool.ErrUnreachable, err)
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		b.Grow(int(fi.Size()))
	}
	if _, err := io.Copy(&b, f); err != nil {
		return nil, fmt.Errorf("keylist %q: reading: %w: %w", path, pool.ErrUnreachable, err)
	}
	return parse(path, b.String()), nil
}

// Read reads a key listing from r; name stands for it in messages and in
// Stat.Address.
func Read(name string, r io.Reader) (*Store, error) {
	var b strings.Builder
	if _, err := io.Copy(&b, r); err != nil {
		return nil, fmt.Errorf("keylist %q: reading: %w", name, err)
	}
	return parse(name, b.String()), nil
}

// parse splits a listing into its distinct keys. The keys are substrings of
// text, so the listing costs one allocation plus the set.
func parse(name, text string) *Store {
	s := &Store{name: name, set: make(map[string]struct{}, strings.Count(text, "\n")+1)}
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			continue
		}
		if _, dup := s.set[line]; !dup {
			s.set[line] = struct{}{}
			s.keys = append(s.keys, line)
		}
	}
	return s
}

// Len is the number of distinct keys.
func (s *Store) Len() int { return len(s.keys) }

// Exist writes 1 for each listed key and 0 for the others.
func (s *Store) Exist(ctx context.Context, keys []string, status []int) error {
	if len(status) != len(keys) {
		return fmt.Errorf("keylist %q: exist: %d statuses for %d keys", s.name, len(status), len(keys))
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("keylist %q: exist: %w", s.name, err)
	}
	for i, k := range keys {
		if _, ok := s.set[k]; ok {
			status[i] = 1
		} else {
			status[i] = 0
		}
	}
	return nil
}

// List calls fn for every listed key that starts with prefix, in file order.
func (s *Store) List(ctx context.Context, prefix string, fn func(key string) error) error {
	for i, k := range s.keys {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("keylist %q: list: %w", s.name, err)
			}
		}
		if strings.HasPrefix(k, prefix) {
			if err := fn(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// Get cannot read values: a listing holds none. It writes TransferFail into
// every n[i], leaves bufs untouched and returns an error wrapping
// errors.ErrUnsupported.
func (s *Store) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	if len(bufs) != len(keys) || len(n) != len(keys) {
		return fmt.Errorf("keylist %q: get: %d keys, %d buffers, %d sizes: lengths differ", s.name, len(keys), len(bufs), len(n))
	}
	for i := range n {
		n[i] = int64(pool.TransferFail)
	}
	return fmt.Errorf("keylist %q: get: a key listing holds no values: %w", s.name, errors.ErrUnsupported)
}

// Put fails with an error wrapping pool.ErrReadOnly.
func (s *Store) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	return fmt.Errorf("keylist %q: put: a captured key listing is read-only: %w", s.name, pool.ErrReadOnly)
}

// Remove fails with an error wrapping pool.ErrReadOnly.
func (s *Store) Remove(ctx context.Context, keys []string, force bool, results []pool.Code) error {
	return fmt.Errorf("keylist %q: remove: a captured key listing is read-only: %w", s.name, pool.ErrReadOnly)
}

// Stat reports the number of distinct keys; a listing knows nothing else.
func (s *Store) Stat(ctx context.Context) (pool.Stat, error) {
	return pool.Stat{Backend: "keylist", Address: s.name, ReadOnly: true, Keys: int64(len(s.keys))}, nil
}

// ReadOnly reports true.
func (s *Store) ReadOnly() bool { return true }

// Close does nothing: the listing lives in memory until it is dropped.
func (s *Store) Close() error { return nil }

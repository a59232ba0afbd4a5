package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kvctl/kvctl/pool"
)

// registerValue registers b with st's client where it takes buffer
// registrations (pool.BufferRegistrar: mooncake-store), so that a put from
// b or a get into it moves the bytes in place, without a copy through the
// store's own staging. The returned function undoes it; on other stores it
// does nothing.
func registerValue(st pool.Store, b []byte) (unregister func() error, err error) {
	r, ok := st.(pool.BufferRegistrar)
	if !ok || len(b) == 0 {
		return func() error { return nil }, nil
	}
	unregister, err = r.RegisterBuffer(b)
	if err != nil {
		return nil, fmt.Errorf("registering the value's %d bytes with the pool: %w", len(b), err)
	}
	return unregister, nil
}

// withRegistered runs fn with b registered with st (registerValue) and
// unregisters it after.
func withRegistered(st pool.Store, b []byte, fn func() error) (err error) {
	unregister, err := registerValue(st, b)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unregister()) }()
	return fn()
}

// readValue reads all of r, at once into a buffer of the file's size when
// r is a regular file (a value of 64 MiB is read once, not grown through
// doubling copies).
func readValue(r io.Reader) ([]byte, error) {
	f, ok := r.(*os.File)
	if !ok {
		return io.ReadAll(r)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= 0 {
		return io.ReadAll(r)
	}
	buf := make([]byte, fi.Size())
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return buf[:n], nil // the file shrank since Stat
	}
	if err != nil {
		return nil, err
	}
	rest, err := io.ReadAll(f) // the file grew since Stat
	return append(buf, rest...), err
}

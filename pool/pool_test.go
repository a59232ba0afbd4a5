package pool_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

func TestOpenRefusesUnknownURLs(t *testing.T) {
	pool.Register("kvctl-test", func(context.Context, *url.URL) (pool.Store, error) {
		return nil, errors.New("opened")
	})
	for _, u := range []string{"", "nosuch://x", "::bad", "/just/a/path"} {
		_, err := pool.Open(context.Background(), u)
		if !errors.Is(err, pool.ErrBadURL) {
			t.Errorf("Open(%q) = %v, want an error wrapping ErrBadURL", u, err)
		}
	}
	if _, err := pool.Open(context.Background(), "KVCTL-TEST://h"); err == nil || err.Error() != "opened" {
		t.Errorf("Open(registered scheme) = %v, want the opener's error", err)
	}
	if !strings.Contains(strings.Join(pool.Schemes(), ","), "kvctl-test") {
		t.Errorf("Schemes() = %v, want kvctl-test listed", pool.Schemes())
	}
}

func TestOpenNamesAMissingScheme(t *testing.T) {
	for _, u := range []string{"127.0.0.1:6499", "localhost:6379", "[::1]:6379"} {
		_, err := pool.Open(context.Background(), u)
		if !errors.Is(err, pool.ErrBadURL) || !strings.Contains(err.Error(), "missing scheme, e.g. redis://"+u+"/0") {
			t.Errorf("Open(%q) = %v, want ErrBadURL saying the scheme is missing", u, err)
		}
	}
}

func TestCodes(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &pool.Error{Code: pool.ObjectHasLease, Op: "remove", Key: "k"})
	if got := pool.CodeOf(err); got != pool.ObjectHasLease {
		t.Errorf("CodeOf(%v) = %v, want %v", err, got, pool.ObjectHasLease)
	}
	if got := pool.CodeOf(nil); got != pool.OK {
		t.Errorf("CodeOf(nil) = %v, want OK", got)
	}
	if got := pool.CodeOf(errors.New("x")); got != pool.RPCFail {
		t.Errorf("CodeOf(plain) = %v, want RPC_FAIL", got)
	}
	if want := `remove "k": OBJECT_HAS_LEASE (-706)`; !strings.Contains(err.Error(), want) {
		t.Errorf("Error() = %q, want it to contain %q", err.Error(), want)
	}
	if c, ok := pool.CodeByName("OBJECT_NOT_FOUND"); !ok || c != pool.ObjectNotFound {
		t.Errorf("CodeByName(OBJECT_NOT_FOUND) = %v, %v", c, ok)
	}
	if pool.Code(-1234).String() != "code -1234" {
		t.Errorf("unknown code spelled %q", pool.Code(-1234).String())
	}
	if got := (pool.PutItem{Size: 7}).SizeOf(); got != 7 {
		t.Errorf("SizeOf(metadata item) = %d, want 7", got)
	}
}

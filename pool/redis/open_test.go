package redis

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/kvctl/kvctl/pool"
)

// closedPort is a 127.0.0.1 address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestOpenUnreachable(t *testing.T) {
	addr := closedPort(t)
	for _, raw := range []string{"redis://" + addr, "valkey://" + addr + "/2", "redis://" + addr + "?addr=" + closedPort(t)} {
		start := time.Now()
		s, err := pool.Open(context.Background(), raw)
		if err == nil {
			s.Close()
			t.Fatalf("Open(%q) = nil error, want ErrUnreachable", raw)
		}
		if !errors.Is(err, pool.ErrUnreachable) || !strings.Contains(err.Error(), addr) {
			t.Errorf("Open(%q) = %v, want an error wrapping ErrUnreachable naming %s", raw, err, addr)
		}
		if d := time.Since(start); d > DefaultDialTimeout+time.Second {
			t.Errorf("Open(%q) took %v, want a fast failure", raw, d)
		}
	}
}

func TestOpenRegistered(t *testing.T) {
	m := miniredis.RunT(t)
	for _, scheme := range []string{"redis", "valkey", "REDIS"} {
		s, err := pool.Open(context.Background(), scheme+"://"+m.Addr())
		if err != nil {
			t.Fatalf("pool.Open(%s://...) = %v", scheme, err)
		}
		if _, ok := s.(pool.Lister); !ok {
			t.Errorf("pool.Open(%s://...) store is not a pool.Lister", scheme)
		}
		if _, ok := s.(pool.LeasingExister); ok {
			t.Errorf("pool.Open(%s://...) store is a pool.LeasingExister; Redis has no leases", scheme)
		}
		s.Close()
	}
}

func TestOpenAuth(t *testing.T) {
	m := miniredis.RunT(t)
	m.RequireUserAuth("kv", "secret")
	s, err := pool.Open(context.Background(), "redis://kv:secret@"+m.Addr())
	if err != nil {
		t.Fatalf("Open with the right password = %v", err)
	}
	s.Close()
	_, err = pool.Open(context.Background(), "redis://kv:wrong@"+m.Addr())
	if !errors.Is(err, pool.ErrUnreachable) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("Open with a wrong password = %v, want ErrUnreachable without the password", err)
	}
}

func TestOpenClusterWithDatabase(t *testing.T) {
	// rueidis sees miniredis as a one-node cluster (it answers CLUSTER SLOTS).
	m := miniredis.RunT(t)
	_, err := pool.Open(context.Background(), "redis://"+m.Addr()+"/3")
	if !errors.Is(err, pool.ErrBadURL) {
		t.Errorf("Open(cluster with db 3) = %v, want ErrBadURL", err)
	}
}

func TestOpenTLS(t *testing.T) {
	m, err := miniredis.RunTLS(&tls.Config{Certificates: []tls.Certificate{selfSigned(t)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	s, err := pool.Open(context.Background(), "rediss://"+m.Addr()+"?skip_verify=true")
	if err != nil {
		t.Fatalf("Open(rediss, skip_verify) = %v", err)
	}
	defer s.Close()
	res := make([]pool.Code, 1)
	if err := s.Put(context.Background(), []pool.PutItem{{Key: "k", Value: []byte("v")}}, res); err != nil || res[0] != pool.OK {
		t.Errorf("Put over TLS = %v, %v, want OK", res[0], err)
	}
	if _, err := pool.Open(context.Background(), "rediss://"+m.Addr()); !errors.Is(err, pool.ErrUnreachable) {
		t.Errorf("Open(rediss, self-signed, verified) = %v, want ErrUnreachable", err)
	}
}

// selfSigned makes a certificate for 127.0.0.1.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "kvctl test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestOpenRESP2(t *testing.T) {
	m := miniredis.RunT(t)
	s := mustOpen(t, "redis://"+m.Addr()+"?protocol=2&client_name=resp2test")
	res := make([]pool.Code, 2)
	items := []pool.PutItem{{Key: "a/b", Value: []byte("v")}, {Key: "a/b", Value: []byte("w")}}
	if err := s.Put(context.Background(), items, res); err != nil || res[0] != pool.OK || res[1] != pool.ObjectAlreadyExists {
		t.Fatalf("Put over RESP2 = %v, %v, want [OK OBJECT_ALREADY_EXISTS]", res, err)
	}
	if v := mustGet(t, s, "a/b", 8); string(v) != "v" {
		t.Errorf("Get over RESP2 = %q, want %q", v, "v")
	}
	n := make([]int64, 1)
	if err := s.Get(context.Background(), []string{"missing"}, [][]byte{nil}, n); err != nil || n[0] != int64(pool.ObjectNotFound) {
		t.Errorf("Get(missing) over RESP2 = %d, %v, want OBJECT_NOT_FOUND", n[0], err)
	}
}

// TestOpenHTTPPort: a redis:// URL at an HTTP server's port says the
// server is not a Redis server.
func TestOpenHTTPPort(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	raw := "redis://" + addr
	s, err := pool.Open(context.Background(), raw)
	if err == nil {
		_, err = s.Stat(context.Background())
		s.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "does not speak the Redis protocol (is it an HTTP port?") || !strings.Contains(err.Error(), addr) {
		t.Errorf("Open(%q), Stat = %v, want an error saying %s is not a Redis server", raw, err, addr)
	}
}

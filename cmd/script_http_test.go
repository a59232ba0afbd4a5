package cmd

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// freeAddrCmd is the script command "free-addr VAR": it sets VAR to a
// 127.0.0.1:PORT nothing listens on now.
func freeAddrCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: free-addr VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	addr := ln.Addr().String()
	ts.Check(ln.Close())
	ts.Setenv(args[0], addr)
}

// httpCmd is the script command "http [-key KEY] METHOD URL [BODY]": it
// sends the request (with "Authorization: Bearer KEY"), waiting up to
// 10 s for the server to listen, and writes "HTTP STATUS" and the body
// to stdout.
func httpCmd(ts *testscript.TestScript, neg bool, args []string) {
	var key string
	if len(args) > 1 && args[0] == "-key" {
		key, args = args[1], args[2:]
	}
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: http [-key KEY] METHOD URL [BODY]")
	}
	body := ""
	if len(args) == 3 {
		body = args[2]
	}
	resp, err := sendRetrying(args[0], args[1], body, key)
	ts.Check(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "HTTP %d\n%s", resp.StatusCode, b)
}

// sendRetrying sends a request, again while the connection is refused,
// for up to 10 s.
func sendRetrying(method, url, body, key string) (*http.Response, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || time.Now().After(deadline) {
			return resp, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package redis

import (
	"fmt"
	"strings"
)

// notRedisHint is what an error says when the server answered, but not in
// Redis's protocol (RESP): an HTTP port, a Mooncake master, another
// service.
const notRedisHint = "the server at %s does not speak the Redis protocol (is it an HTTP port? a Mooncake master is mooncake://HOST:PORT)"

// explainProtocol adds notRedisHint to err when rueidis could not read the
// server's answer as RESP; other errors come back as they are. rueidis
// reports it only in its text ("received unknown message type: 72", 72
// being the 'H' of "HTTP/1.1").
func explainProtocol(addr string, err error) error {
	if err == nil || !strings.Contains(err.Error(), "received unknown message type") {
		return err
	}
	return fmt.Errorf(notRedisHint+": %w", addr, err)
}

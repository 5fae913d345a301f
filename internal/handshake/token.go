package handshake

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// MinTokenSize is the shortest pre-shared token accepted, in bytes. The
// token is the key of HMAC-SHA256 proofs that a peer may observe, so it must
// be high-entropy: generate one with, for example, `openssl rand -hex 32`.
const MinTokenSize = 16

// CheckToken checks a pre-shared token for either side: it is required
// unless the connection is mutual TLS, and has at least MinTokenSize bytes.
func CheckToken(token []byte, mutualTLS bool) error {
	switch {
	case len(token) == 0 && !mutualTLS:
		return errors.New("remote runner: a token is required unless mutual TLS is configured")
	case len(token) > 0 && len(token) < MinTokenSize:
		return fmt.Errorf("remote runner: the token has %d bytes; at least %d are required", len(token), MinTokenSize)
	}
	return nil
}

// SplitAddress returns the network ("tcp" or "unix") and address of a
// runner host address: "host:port" for TCP, "unix:/path" for a unix socket.
func SplitAddress(addr string) (network, address string, err error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if path == "" {
			return "", "", errors.New("remote runner: empty unix socket path in address \"unix:\"")
		}
		return "unix", path, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", "", fmt.Errorf("remote runner: address %q is neither host:port nor unix:/path: %w", addr, err)
	}
	return "tcp", addr, nil
}

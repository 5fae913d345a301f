//go:build unix && !linux

package quickjs

import "os"

// newRawSocket returns f: elsewhere than on Linux the file's own system
// calls are used (sock_linux.go says what the Linux version spares).
func newRawSocket(f *os.File) (*os.File, error) { return f, nil }

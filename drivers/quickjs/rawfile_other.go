//go:build unix && !linux

package quickjs

import "os"

// newRawFile returns f: elsewhere than on Linux the file's own system calls
// are used (rawfile_linux.go says what the Linux version spares).
func newRawFile(f *os.File) (*os.File, error) { return f, nil }

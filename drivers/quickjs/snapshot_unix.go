//go:build unix

package quickjs

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a symbolic link
// and without blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// inode is the file's inode number, part of a template file's key.
func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}

//go:build unix

package quickjs

import (
	"os"
	"syscall"
)

// inode is the file's inode number, part of a template file's key.
func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}

//go:build !linux

package cloexec

// MarkFrom does nothing on this system: the QuickJS sandbox, which needs it
// most, is Linux-only, and elsewhere a process's inherited descriptors are
// left as they are.
func MarkFrom(from int) {}

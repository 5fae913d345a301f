// Package cloexec marks the file descriptors a process inherited without
// the close-on-exec flag, so that the programs it starts do not inherit
// them in turn. Go sets the flag on every file it opens itself, but a
// descriptor its parent passed down without it (a shell's `exec 7<file`,
// a supervisor's socket) reaches every child the process starts: an MCP
// server, a tool command, the QuickJS sandbox.
package cloexec

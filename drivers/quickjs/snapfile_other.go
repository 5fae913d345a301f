//go:build !linux

package quickjs

import "errors"

// snapshotFile is a template's snapshot in a memory file that new engines
// map (Linux only: snapfile_linux.go); elsewhere they copy the snapshot.
type snapshotFile struct{}

var errNoSnapshotFile = errors.New("quickjs: snapshot files need Linux")

func newSnapshotFile([]byte) (*snapshotFile, error) { return nil, errNoSnapshotFile }

func (s *snapshotFile) mapOnto([]byte) error { return errNoSnapshotFile }

func (s *snapshotFile) close() {}

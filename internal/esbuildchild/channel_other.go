//go:build !unix

package esbuildchild

import (
	"io"
	"os"
	"os/exec"
)

// connect gives the child its standard input and output as the request
// and answer channels (a system without inherited descriptors beyond
// them); see channel_unix.go.
func connect(cmd *exec.Cmd) (w io.WriteCloser, r io.ReadCloser, childEnds []*os.File, err error) {
	w, err = cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	r, err = cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	return w, r, nil, nil
}

// channel returns the child's standard input and output.
func channel() (io.Reader, io.Writer, bool) { return os.Stdin, os.Stdout, true }

//go:build unix

package esbuildchild

import (
	"io"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// The child reads requests on file descriptor 3 and writes answers on 4,
// both pipes. Its standard input and output stay the program's: an init
// function of another package runs in the child before the hook does, and
// one that printed to standard output corrupted the first frame (a new
// user's finding, 2026-12-06).
const (
	requestFD = 3
	answerFD  = 4
)

// connect gives cmd the child's ends of two pipes, and returns the
// parent's ends (requests are written to w, answers read from r) and the
// child's, which the parent closes once the child has started.
func connect(cmd *exec.Cmd) (w io.WriteCloser, r io.ReadCloser, childEnds []*os.File, err error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	ansR, ansW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, nil, nil, err
	}
	cmd.ExtraFiles = []*os.File{reqR, ansW}
	return reqW, ansR, []*os.File{reqR, ansW}, nil
}

// channel returns the child's request and answer pipes, or false when
// descriptors 3 and 4 are not pipes (markers without a Session).
func channel() (io.Reader, io.Writer, bool) {
	for _, fd := range []int{requestFD, answerFD} {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			return nil, nil, false
		}
	}
	return os.NewFile(requestFD, "esbuild-requests"), os.NewFile(answerFD, "esbuild-answers"), true
}

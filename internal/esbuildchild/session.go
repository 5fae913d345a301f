package esbuildchild

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/internal/tail"
	"github.com/evanw/esbuild/pkg/api"
)

// ErrEnded is returned, wrapped, when the child process ended before it
// answered and the Session's context had not ended: it crashed (esbuild
// ran out of stack on a deeply nested text, or of memory) or was killed
// from outside. The error's text holds the end of the child's standard
// error.
var ErrEnded = errors.New("esbuild's process ended before it answered")

// Session is one child process serving transforms in order, started on the
// first Transform (a Session that is never asked starts nothing). When its
// context ends the process is killed, and Transform returns an error
// wrapping context.Cause of the context. After any error the Session
// answers every later Transform with the same error. Close it when done. A
// Session is safe for concurrent use; transforms run one at a time.
type Session struct {
	ctx       context.Context
	maxMemory uint64 // bytes the child may hold; DefaultMaxMemory
	limit     *Limit // nil: no bound
	holds     bool   // the session holds a slot of limit

	mu      sync.Mutex
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	outFile io.Closer // out's pipe, closed once the child is gone
	stderr  *tail.Buffer
	err     error // set once: why no further transform can run
	closed  bool
}

// New returns a Session whose child process (once started) lives until ctx
// ends or the Session is closed. Its child counts against limit (nil: no
// bound): the first Transform waits for a slot, or for ctx to end.
func New(ctx context.Context, limit *Limit) *Session {
	return &Session{ctx: ctx, maxMemory: DefaultMaxMemory, limit: limit}
}

// Limit bounds how many children the Sessions made with it have at once,
// so that many hostile programs at once hold at most that many cores and
// times DefaultMaxMemory of memory. It is safe for concurrent use.
type Limit struct {
	slots chan struct{}
}

// NewLimit returns a Limit of n children (at least 1).
func NewLimit(n int) *Limit {
	return &Limit{slots: make(chan struct{}, max(n, 1))}
}

// DefaultMaxMemory is the memory a Session's child may hold, in bytes:
// past it the child exits and the Session fails with ErrEnded. esbuild
// needs about 430 MB for a megabyte of object literal with its source map.
const DefaultMaxMemory = 1 << 30

// Transform returns api.Transform(code, opts) as the child computed it:
// esbuild's own errors are in the result's Errors, as in process (its
// warnings are left out). The error is for a Session that cannot answer:
// its context ended (wrapping context.Cause), its child ended (ErrEnded),
// the executable could not be started again, or it is closed.
func (s *Session) Transform(code string, opts api.TransformOptions) (api.TransformResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && s.closed {
		s.err = errors.New("esbuildchild: the session is closed")
	}
	if s.err == nil && s.ctx.Err() != nil {
		s.err = s.stopped()
	}
	if s.err == nil && s.cmd == nil {
		s.err = s.acquire()
	}
	if s.err == nil && s.cmd == nil {
		s.err = s.start()
	}
	if s.err != nil {
		s.stop() // the child, if any, is gone and its slot free
		return api.TransformResult{}, s.err
	}
	res, err := s.roundTrip(code, opts)
	if err != nil {
		s.err = s.explain(err)
		s.stop()
		return api.TransformResult{}, s.err
	}
	return res, nil
}

// Err returns the error that ended the Session, or nil while it can still
// answer.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the child process (its standard input closes and it exits;
// one that does not within waitDelay is killed) and waits for it. It
// returns nil; closing twice is harmless.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.stop()
	return nil
}

// acquire takes a slot of the session's limit, waiting for one or for the
// context to end.
func (s *Session) acquire() error {
	if s.limit == nil || s.holds {
		return nil
	}
	select {
	case s.limit.slots <- struct{}{}:
		s.holds = true
		return nil
	case <-s.ctx.Done():
		return s.stopped()
	}
}

// Release ends the session's child, if it has one, and gives back its
// slot of the limit; a later Transform starts another. A run releases its
// session once its program is erased, so that the child's memory and slot
// are not held while the program runs.
func (s *Session) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop()
	if s.err == nil {
		s.cmd, s.in, s.out, s.outFile = nil, nil, nil, nil
	}
}

// waitDelay is how long Close and an error wait for the child to exit
// after its input closed (or it was killed) before killing it.
const waitDelay = 2 * time.Second

// start starts the child and sends it the token.
func (s *Session) start() error {
	exe, err := executable()
	if err != nil {
		return fmt.Errorf("esbuildchild: esbuild runs in a child of this executable, which could not be found: %w", err)
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return fmt.Errorf("esbuildchild: making a token: %w", err)
	}
	token := hex.EncodeToString(raw[:])
	cmd := exec.CommandContext(s.ctx, exe)
	cmd.Env = []string{tokenEnv + "=" + token, parentEnv + "=" + strconv.Itoa(os.Getpid()), "GOMAXPROCS=1"}
	cmd.WaitDelay = waitDelay
	s.stderr = tail.New(tailSize)
	cmd.Stderr = s.stderr
	in, out, childEnds, err := connect(cmd)
	if err != nil {
		return fmt.Errorf("esbuildchild: %w", err)
	}
	if cmd.Stdout == nil {
		cmd.Stdout = s.stderr // what the program's own init functions print
	}
	err = cmd.Start()
	for _, f := range childEnds {
		_ = f.Close()
	}
	if err != nil {
		_ = in.Close()
		_ = out.Close()
		return fmt.Errorf("esbuildchild: starting %s again: %w", exe, err)
	}
	s.cmd, s.in, s.outFile, s.out = cmd, in, out, bufio.NewReader(out)
	if err := writeJSON(in, hello{Token: token, MaxMemory: s.maxMemory}); err != nil {
		s.stop()
		return s.explain(err)
	}
	return nil
}

// executable is the program's own executable: on Linux /proc/self/exe,
// the file this process runs even when an upgrade replaced the path;
// elsewhere os.Executable.
func executable() (string, error) {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	return os.Executable()
}

// roundTrip sends one request and reads its response.
func (s *Session) roundTrip(code string, opts api.TransformOptions) (api.TransformResult, error) {
	if err := writeJSON(s.in, request{Code: code, Options: opts}); err != nil {
		return api.TransformResult{}, err
	}
	frame, err := readFrame(s.out)
	if err != nil {
		return api.TransformResult{}, noEOF(err)
	}
	var resp response
	if err := json.Unmarshal(frame, &resp); err != nil {
		return api.TransformResult{}, fmt.Errorf("decoding esbuild's answer: %w", err)
	}
	res := api.TransformResult{Errors: resp.Errors}
	if resp.Code != "" || len(resp.Errors) == 0 {
		res.Code = []byte(resp.Code)
	}
	if resp.Map != "" {
		res.Map = []byte(resp.Map)
	}
	return res, nil
}

// explain turns a failed exchange with the child into the Session's error:
// the context's end when it ended, else the child's.
func (s *Session) explain(err error) error {
	if s.ctx.Err() != nil {
		return s.stopped()
	}
	s.stop()
	msg := strings.TrimSpace(s.stderr.String())
	if s.cmd != nil && s.cmd.ProcessState != nil {
		msg = strings.TrimSpace(s.cmd.ProcessState.String() + ": " + msg)
	}
	return fmt.Errorf("esbuildchild: %w (%v): %s", ErrEnded, err, msg)
}

// stopped is the error for a Session whose context ended.
func (s *Session) stopped() error {
	return fmt.Errorf("esbuildchild: esbuild was stopped before it finished: %w", context.Cause(s.ctx))
}

// stop closes the child's input and waits for it to exit (killed after
// waitDelay, or at once when the context has ended: exec.CommandContext).
// The child is gone when stop returns.
func (s *Session) stop() {
	defer s.release()
	if s.cmd == nil || s.cmd.ProcessState != nil {
		return
	}
	_ = s.in.Close()
	kill := time.AfterFunc(waitDelay, func() { _ = s.cmd.Process.Kill() })
	defer kill.Stop()
	_ = s.cmd.Wait()
	_ = s.outFile.Close()
}

// release gives back the session's slot, once its child is gone.
func (s *Session) release() {
	if s.holds {
		s.holds = false
		<-s.limit.slots
	}
}

// tailSize is how much of the child's standard error (and output) a
// Session keeps, in bytes, for ErrEnded's message.
const tailSize = 2 << 10

package esbuildchild

import (
	"bufio"
	"crypto/subtle"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"time"

	"github.com/evanw/esbuild/pkg/api"
)

// The child's markers: a Session sets both in the child's environment. The
// hook serves only when the parent's process ID matches os.Getppid and the
// first frame on standard input carries the token, so a marker inherited
// or set by hand does nothing but be cleared.
const (
	tokenEnv  = "CODEMODE_ESBUILD_CHILD"        // a random token
	parentEnv = "CODEMODE_ESBUILD_CHILD_PARENT" // the parent's process ID, decimal
)

// maxFrame bounds a frame in either direction, in bytes: a program's text
// and what esbuild prints for it (its JavaScript and source map).
const maxFrame = 256 << 20

// hello is the first frame a Session sends: the token, and the memory
// the child may use.
type hello struct {
	Token     string `json:"token"`
	MaxMemory uint64 `json:"maxMemory"` // bytes
}

// request is one transform: the text and esbuild's options.
type request struct {
	Code    string               `json:"code"`
	Options api.TransformOptions `json:"options"`
}

// response is what api.Transform returned for a request: its JavaScript,
// its source map (when asked for) and its errors (warnings are not kept).
type response struct {
	Code   []byte        `json:"code,omitempty"`
	Map    []byte        `json:"map,omitempty"`
	Errors []api.Message `json:"errors,omitempty"`
}

func init() {
	token, ok := os.LookupEnv(tokenEnv)
	if !ok {
		return
	}
	parent := os.Getenv(parentEnv)
	_ = os.Unsetenv(tokenEnv)
	_ = os.Unsetenv(parentEnv)
	if token == "" || parent != strconv.Itoa(os.Getppid()) {
		return
	}
	if err := serve(os.Stdin, os.Stdout, token); err != nil {
		fmt.Fprintf(os.Stderr, "esbuildchild: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// errWrongToken is serve's error when the first frame does not carry the
// token.
var errWrongToken = errors.New("the first frame does not carry the session's token")

// serve answers requests from r on w until r ends: first the hello, then
// one response per request, in order. From the hello on, the process
// exits when its memory passes the hello's bound (watchMemory).
func serve(r io.Reader, w io.Writer, token string) error {
	in := bufio.NewReader(r)
	first, err := readFrame(in)
	if err != nil {
		return fmt.Errorf("reading the token: %w", err)
	}
	var h hello
	if json.Unmarshal(first, &h) != nil || subtle.ConstantTimeCompare([]byte(h.Token), []byte(token)) != 1 {
		return errWrongToken
	}
	if h.MaxMemory > 0 {
		go watchMemory(h.MaxMemory)
	}
	for {
		frame, err := readFrame(in)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading a request: %w", err)
		}
		var req request
		if err := json.Unmarshal(frame, &req); err != nil {
			return fmt.Errorf("decoding a request: %w", err)
		}
		if err := writeJSON(w, transform(req)); err != nil {
			return fmt.Errorf("writing a response: %w", err)
		}
	}
}

// transform runs esbuild for req.
func transform(req request) response {
	res := api.Transform(req.Code, req.Options)
	for i := range res.Errors {
		res.Errors[i].Detail = nil // a Go value of esbuild's, not for JSON
	}
	return response{Code: res.Code, Map: res.Map, Errors: res.Errors}
}

// memoryCheckInterval is how often watchMemory looks.
const memoryCheckInterval = 5 * time.Millisecond

// watchMemory ends the process when the memory the Go runtime holds from
// the system (less what it gave back) passes limit bytes: esbuild's
// printer took 24 GB in 79 s for 600 KB of template literals joined by
// "+" (2026-12-06). The runtime's own limit (debug.SetMemoryLimit) makes
// the collector work harder first, so garbage does not count. It runs for
// the process's life, which ends with it.
func watchMemory(limit uint64) {
	debug.SetMemoryLimit(int64(limit))
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	for {
		time.Sleep(memoryCheckInterval)
		metrics.Read(samples)
		if used := samples[0].Value.Uint64() - samples[1].Value.Uint64(); used > limit {
			fmt.Fprintf(os.Stderr, "esbuild held %d MiB, more than the %d MiB allowed\n", used>>20, limit>>20)
			os.Exit(3)
		}
	}
}

// readFrame reads a 4-byte big-endian length and that many bytes. A
// reader that ends before the length returns io.EOF.
func readFrame(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("a frame's length was cut short: %w", err)
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame {
		return nil, fmt.Errorf("a frame of %d bytes is larger than the %d allowed", n, maxFrame)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("a frame of %d bytes was cut short: %w", n, noEOF(err))
	}
	return buf, nil
}

// noEOF turns io.EOF inside a frame into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// writeFrame writes p as one frame.
func writeFrame(w io.Writer, p []byte) error {
	if len(p) > maxFrame {
		return fmt.Errorf("a frame of %d bytes is larger than the %d allowed", len(p), maxFrame)
	}
	buf := make([]byte, 4, 4+len(p))
	binary.BigEndian.PutUint32(buf, uint32(len(p)))
	_, err := w.Write(append(buf, p...))
	return err
}

// writeJSON writes v as one frame of JSON.
func writeJSON(w io.Writer, v any) error {
	p, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFrame(w, p)
}

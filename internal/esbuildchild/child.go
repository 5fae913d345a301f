package esbuildchild

import (
	"bufio"
	"bytes"
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
	Code   string        `json:"code,omitempty"`
	Map    string        `json:"map,omitempty"`
	Errors []api.Message `json:"errors,omitempty"`
}

// maxAnswer bounds what one transform answers, in bytes of JavaScript and
// source map: past it the answer is an error (383 bytes of enum members
// each twice the last printed 100 MB; no runner takes a program past 16
// MiB). maxErrors bounds the errors it carries, each without its line's
// text or notes (106 KB of redeclarations made 262 MB of them).
const (
	maxAnswer = 32 << 20
	maxErrors = 10
)

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
	r, w, ok := channel()
	if !ok {
		return
	}
	if err := serve(r, w, token, os.Getppid()); err != nil {
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
func serve(r io.Reader, w io.Writer, token string, parent int) error {
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
		go watch(h.MaxMemory, parent)
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
	if len(res.Errors) > 0 {
		errs := res.Errors[:min(len(res.Errors), maxErrors)]
		for i := range errs {
			errs[i].Detail, errs[i].Notes = nil, nil // Detail is a Go value of esbuild's
			if errs[i].Location != nil {
				errs[i].Location.LineText = ""
			}
		}
		return response{Errors: errs}
	}
	if n := len(res.Code) + len(res.Map); n > maxAnswer {
		return response{Errors: []api.Message{{Text: fmt.Sprintf("esbuild's output is %d bytes, more than the %d allowed", n, maxAnswer)}}}
	}
	return response{Code: string(res.Code), Map: string(res.Map)}
}

// memoryCheckInterval is how often watch looks.
const memoryCheckInterval = 5 * time.Millisecond

// watch ends the process when the memory the Go runtime holds from the
// system (less what it gave back) passes limit bytes (esbuild's printer
// took 24 GB in 79 s for 600 KB of template literals joined by "+",
// 2026-12-06), or when the process's parent is no longer parent (it died,
// and the child would parse on for hours with nobody to answer; review
// of 2026-12-06). The runtime's own limit (debug.SetMemoryLimit) makes the
// collector work harder first, so garbage does not count. It runs for the
// process's life, which ends with it.
func watch(limit uint64, parent int) {
	debug.SetMemoryLimit(int64(limit))
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	for {
		time.Sleep(memoryCheckInterval)
		if os.Getppid() != parent {
			os.Exit(4)
		}
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
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // '<' as itself, not six bytes
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeFrame(w, b.Bytes())
}

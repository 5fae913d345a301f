// Package memtest measures the host's memory under a flood of tool calls:
// a driver whose runner makes many calls at once and drops the answers
// unread, and a meter of the Go heap's peak. The client's and the OpenAPI
// connector's memory tests use it to check that Limits.MaxInFlightBytes
// bounds what the host holds.
package memtest

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
)

// Flood is a runner that answers an execute with Calls tool calls of
// Namespace.Tool made at once, each with Input, and ends the execution once
// every call is answered or the host cancels it. Its side adds nothing to
// the heap it measures: the calls are written from one encoding, their seq
// patched in, and the host's answers are read without being kept (a large
// frame is skipped unread). Calls is at most 255.
type Flood struct {
	Calls           int
	Namespace, Tool string
	Input           []byte
}

// Driver returns a driver whose runtimes run f. Answers receives, for each
// call answered, the error ("Name: message") or "" for a success, and is
// closed when the runner ends.
func (f Flood) Driver(answers chan<- string) drivers.Driver {
	return &floodDriver{f: f, answers: answers}
}

type floodDriver struct {
	f       Flood
	answers chan<- string
}

func (d *floodDriver) Description() string { return "a runner that floods the host with tool calls" }

func (d *floodDriver) TypeDefinitionFiles(context.Context) ([]drivers.TypeDefinitionFile, error) {
	return nil, nil
}

func (d *floodDriver) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	host, runner := net.Pipe()
	c := &floodConn{host: host, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer runner.Close()
		w := wire.NewWriter(runner)
		if err := w.Write(&wire.Message{Kind: wire.KindReady, Version: wire.ProtocolVersion, Versions: &wire.Supported, Runner: "flood"}); err != nil {
			return
		}
		d.f.serve(runner, w, d.answers)
	}()
	return c, nil
}

type floodConn struct {
	host net.Conn
	done chan struct{}
	once sync.Once
}

func (c *floodConn) Channel() io.ReadWriteCloser { return c.host }
func (c *floodConn) Done() <-chan struct{}       { return c.done }
func (c *floodConn) Err() error                  { return nil }

// Close closes the channel and waits for the runner's goroutine.
func (c *floodConn) Close() error {
	c.once.Do(func() { _ = c.host.Close() })
	<-c.done
	return nil
}

// serve runs one execution, then returns.
func (f Flood) serve(conn net.Conn, w *wire.Writer, answers chan<- string) {
	defer close(answers)
	payload, err := wire.ReadFrame(conn, wire.MaxFrameSize)
	if err != nil {
		return
	}
	m, err := wire.Unmarshal(payload)
	if err != nil || m.Kind != wire.KindExecute {
		return
	}
	if f.writeCalls(conn, m.Execution) != nil {
		return
	}
	for answered := 0; answered < f.Calls; {
		a, skipped, err := readAnswer(conn)
		if err != nil || (a != nil && a.Kind == wire.KindCancel) {
			return
		}
		switch {
		case skipped:
			answers <- ""
			answered++
		case a.Kind == wire.KindToolResult && a.Error != nil:
			answers <- a.Error.Name + ": " + a.Error.Message
			answered++
		case a.Kind == wire.KindToolResult:
			answers <- ""
			answered++
		}
	}
	_ = w.Write(&wire.Message{Kind: wire.KindResult, Execution: m.Execution, Outcome: wire.OutcomeSuccess, Value: []byte(`null`)})
}

// writeCalls writes the tool calls. A seq of 1 to 23 is one byte of CBOR
// and one of 24 to 255 two, the second the seq itself (RFC 8949 §3.1): two
// encodings, each made twice to find the seq's byte, serve every call.
func (f Flood) writeCalls(conn net.Conn, execution uint64) error {
	encode := func(seq uint64) []byte {
		b, err := wire.Marshal(&wire.Message{Kind: wire.KindToolCall, Execution: execution, Seq: seq, Namespace: f.Namespace, Tool: f.Tool, Input: f.Input})
		if err != nil {
			panic(err)
		}
		return b
	}
	type template struct {
		b  []byte
		at int // the seq's byte
	}
	var templates []template
	for _, seq := range []uint64{1, 24} {
		a, b := encode(seq), encode(seq+1)
		at := 0
		for a[at] == b[at] {
			at++
		}
		templates = append(templates, template{a, at})
	}
	for seq := 1; seq <= f.Calls; seq++ {
		t := templates[0]
		if seq >= 24 {
			t = templates[1]
		}
		var hdr [4]byte
		binary.BigEndian.PutUint32(hdr[:], uint32(len(t.b)))
		for _, part := range [][]byte{hdr[:], t.b[:t.at], {byte(seq)}, t.b[t.at+1:]} {
			if _, err := conn.Write(part); err != nil {
				return err
			}
		}
	}
	return nil
}

// readAnswer reads one frame: a large one (a tool's output) is skipped,
// and skipped is true; a small one is decoded.
func readAnswer(conn net.Conn) (m *wire.Message, skipped bool, err error) {
	var hdr [4]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return nil, false, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > 64<<10 {
		_, err := io.CopyN(io.Discard, conn, int64(n))
		return nil, true, err
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(conn, payload); err != nil {
		return nil, false, err
	}
	m, err = wire.Unmarshal(payload)
	return m, false, err
}

// HeapGrowth runs run and returns how far the Go heap's objects rose above
// what was live before it, at the highest of samples taken every
// millisecond. The collector runs at GOGC=10 meanwhile, so that the samples
// measure what the host holds, not the garbage the default pacing (GOGC=100)
// lets grow to as much again before a collection: bounding that is GOGC's and
// GOMEMLIMIT's work. A peak between two samples is missed: on a loaded
// machine the measure errs low, never high.
func HeapGrowth(run func()) int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	run()
	close(done)
	wg.Wait()
	return int64(peak) - int64(base)
}

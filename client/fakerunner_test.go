package client_test

import (
	"context"
	"io"
	"net"
	"sync"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
)

// pipeDriver is a driver whose runner is a Go function on the far end of a
// net.Pipe, so a test can play a runner that misbehaves in a precise way.
type pipeDriver struct {
	serve      func(r *wire.Reader, w *wire.Writer, conn net.Conn)
	typeScript bool               // the ready message offers to strip TypeScript (wire 1.4)
	versions   *wire.VersionRange // the ready message's range; nil: wire.Supported
	wg         sync.WaitGroup
}

func (d *pipeDriver) Description() string { return "a test runner on a net.Pipe" }

func (d *pipeDriver) TypeDefinitionFiles(context.Context) ([]drivers.TypeDefinitionFile, error) {
	return nil, nil
}

func (d *pipeDriver) Connect(ctx context.Context, req drivers.ConnectRequest) (drivers.Connection, error) {
	host, runner := net.Pipe()
	c := &pipeConn{host: host, done: make(chan struct{})}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer close(c.done)
		defer runner.Close()
		w := wire.NewWriter(runner)
		versions := &wire.Supported
		if d.versions != nil {
			versions = d.versions
		}
		if err := w.Write(&wire.Message{Kind: wire.KindReady, Version: wire.ProtocolVersion, Versions: versions, Runner: "test", TypeScript: d.typeScript}); err != nil {
			return
		}
		d.serve(wire.NewReader(runner), w, runner)
	}()
	return c, nil
}

type pipeConn struct {
	host net.Conn
	done chan struct{}
	once sync.Once
}

func (c *pipeConn) Channel() io.ReadWriteCloser { return c.host }
func (c *pipeConn) Done() <-chan struct{}       { return c.done }
func (c *pipeConn) Err() error                  { return nil }
func (c *pipeConn) Close() error {
	c.once.Do(func() { _ = c.host.Close() })
	<-c.done
	return nil
}

// answerExecutes is a runner that reads the host's messages and calls
// answer for each execute message, until the channel ends or answer fails.
func answerExecutes(answer func(m *wire.Message, w *wire.Writer, conn net.Conn) error) func(r *wire.Reader, w *wire.Writer, conn net.Conn) {
	return func(r *wire.Reader, w *wire.Writer, conn net.Conn) {
		for {
			m, err := r.Read()
			if err != nil {
				return
			}
			if m.Kind != wire.KindExecute {
				continue
			}
			if err := answer(m, w, conn); err != nil {
				return
			}
		}
	}
}

package mcpconnector

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP tasks (SEP-1686, https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks):
// a tool whose execution.taskSupport is "required" can only be called as a
// task (tools/call with a task member, then tasks/get, tasks/result,
// tasks/cancel). The go-sdk (v1.8.0) implements no part of tasks, and
// its Tool type drops the execution member when it decodes tools/list
// (https://github.com/modelcontextprotocol/go-sdk/issues/942). So the
// connector reads taskSupport from the raw tools/list results, as they
// pass through the transport, and leaves "required" tools out of the
// contract with a warning naming them: declared, they could never be
// called. "optional" tools are called the ordinary way, which the
// specification allows.

// taskNotes records the taskSupport each tool declared, by MCP tool name.
type taskNotes struct {
	mu      sync.Mutex
	support map[string]string
}

// required reports whether the tool name must be called as a task.
func (n *taskNotes) required(name string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.support[name] == "required"
}

// noteResult records the taskSupport of each tool in a tools/list result;
// any other result is ignored.
func (n *taskNotes) noteResult(result json.RawMessage) {
	if !bytes.Contains(result, []byte(`"taskSupport"`)) {
		return
	}
	var list struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &list) != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.support == nil {
		n.support = map[string]string{}
	}
	for _, t := range list.Tools {
		if t.Execution != nil {
			n.support[t.Name] = t.Execution.TaskSupport
		}
	}
}

// noteMessage records from a whole JSON-RPC message (an HTTP body or an
// event's data).
func (n *taskNotes) noteMessage(msg []byte) {
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	if bytes.Contains(msg, []byte(`"taskSupport"`)) && json.Unmarshal(msg, &m) == nil {
		n.noteResult(m.Result)
	}
}

// noteTransport wraps a stdio transport so that the tools/list results it
// reads are noted. (Not the streamable HTTP transport: its connection
// implements an unexported interface of the go-sdk that a wrapper would
// hide; headerTransport notes its results instead.)
type noteTransport struct {
	mcp.Transport
	notes *taskNotes
}

func (t noteTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return noteConn{Connection: c, notes: t.notes}, nil
}

type noteConn struct {
	mcp.Connection
	notes *taskNotes
}

// Read reads a message and notes it when it is a result.
func (c noteConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.notes.noteResult(r.Result)
	}
	return msg, err
}

// listsTools reports whether an HTTP request carries a tools/list request.
func listsTools(req *http.Request) bool {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	head, _ := io.ReadAll(io.LimitReader(body, 64<<10))
	return bytes.Contains(head, []byte(`"tools/list"`))
}

// noteBody passes a response body through, noting the JSON-RPC messages
// it holds: the whole body as one message, or each event's data in a
// server-sent event stream (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream).
// It keeps at most maxResponse bytes and stops noting past them.
type noteBody struct {
	io.ReadCloser
	notes *taskNotes
	sse   bool
	buf   []byte // unread lines (events) or the body so far (JSON)
	data  []byte // the current event's data
	over  bool
}

// Read reads from the body and notes the messages completed.
func (b *noteBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.over {
		return n, err
	}
	b.buf = append(b.buf, p[:n]...)
	if len(b.buf)+len(b.data) > maxResponse {
		b.over, b.buf, b.data = true, nil, nil
		return n, err
	}
	if b.sse {
		b.lines()
	}
	if err == io.EOF {
		if b.sse {
			b.buf = append(b.buf, '\n', '\n')
			b.lines()
		} else {
			b.notes.noteMessage(b.buf)
		}
		b.buf = nil
	}
	return n, err
}

// lines consumes the complete lines of an event stream: data lines are
// gathered and a blank line ends an event.
func (b *noteBody) lines() {
	for {
		i := bytes.IndexByte(b.buf, '\n')
		if i < 0 {
			return
		}
		line := strings.TrimSuffix(string(b.buf[:i]), "\r")
		b.buf = b.buf[i+1:]
		switch {
		case line == "":
			if len(b.data) > 0 {
				b.notes.noteMessage(b.data)
			}
			b.data = b.data[:0]
		case strings.HasPrefix(line, "data:"):
			if len(b.data) > 0 {
				b.data = append(b.data, '\n')
			}
			b.data = append(b.data, strings.TrimPrefix(line[len("data:"):], " ")...)
		}
	}
}

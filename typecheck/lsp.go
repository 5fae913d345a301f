package typecheck

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// server is one running `tsc --lsp --stdio` and the JSON-RPC session with it
// (LSP base protocol: Content-Length framed JSON).
type server struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	wmu  sync.Mutex
	mu   sync.Mutex
	next int
	wait map[int]chan response
	done chan struct{}
	err  error
}

type response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type message struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	response
}

func startServer(tsc, root string) (*server, error) {
	cmd := exec.Command(tsc, "--lsp", "--stdio")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("typecheck: starting %s: %w", tsc, err)
	}
	s := &server{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), wait: map[int]chan response{}, done: make(chan struct{})}
	go s.readLoop()
	uri := fileURI(root)
	_, err = s.call(context.Background(), "initialize", map[string]any{
		"processId":        nil,
		"rootUri":          uri,
		"capabilities":     map[string]any{"textDocument": map[string]any{"diagnostic": map[string]any{}}},
		"workspaceFolders": []map[string]any{{"uri": uri, "name": "codemode"}},
	})
	if err != nil {
		s.close()
		return nil, fmt.Errorf("typecheck: initialising the TypeScript server: %w", err)
	}
	if err := s.notify("initialized", map[string]any{}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *server) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := fmt.Fprintf(s.in, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
		return err
	}
	_, err = s.in.Write(b)
	return err
}

func (s *server) notify(method string, params any) error {
	return s.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request and waits for its response; ctx cancels the wait
// (and tells the server with $/cancelRequest).
func (s *server) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.mu.Lock()
	s.next++
	id := s.next
	ch := make(chan response, 1)
	s.wait[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.wait, id)
		s.mu.Unlock()
	}()
	if err := s.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("typecheck: sending %s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("typecheck: %s: %s (code %d)", method, r.Error.Message, r.Error.Code)
		}
		return r.Result, nil
	case <-ctx.Done():
		_ = s.notify("$/cancelRequest", map[string]any{"id": id})
		return nil, context.Cause(ctx)
	case <-s.done:
		return nil, fmt.Errorf("typecheck: the TypeScript server ended: %v", s.err)
	}
}

func (s *server) readLoop() {
	var err error
	defer func() {
		s.err = err
		close(s.done)
	}()
	for {
		var n int
		for {
			line, e := s.out.ReadString('\n')
			if e != nil {
				err = e
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if n <= 0 || n > 64<<20 {
			err = fmt.Errorf("bad Content-Length %d", n)
			return
		}
		body := make([]byte, n)
		if _, e := io.ReadFull(s.out, body); e != nil {
			err = e
			return
		}
		var m message
		if e := json.Unmarshal(body, &m); e != nil {
			continue
		}
		switch {
		case m.Method != "" && m.ID != nil:
			// A request from the server (registerCapability, configuration):
			// accept it with an empty result.
			_ = s.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		case m.Method == "" && m.ID != nil:
			id, e := strconv.Atoi(string(*m.ID))
			if e != nil {
				continue
			}
			s.mu.Lock()
			ch := s.wait[id]
			s.mu.Unlock()
			if ch != nil {
				ch <- m.response
			}
		}
	}
}

func (s *server) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

func (s *server) close() {
	_ = s.in.Close()
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	_ = s.cmd.Wait()
	<-s.done
}

func fileURI(path string) string { return "file://" + path }

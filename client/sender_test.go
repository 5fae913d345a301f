package client

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/internal/wire"
)

// frameRecorder records the frames written to it.
type frameRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (g *frameRecorder) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func (g *frameRecorder) seqs(t *testing.T) []uint64 {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	r := wire.NewReader(bytes.NewReader(g.buf.Bytes()))
	var out []uint64
	for {
		m, err := r.Read()
		if err != nil {
			return out
		}
		out = append(out, m.Seq)
	}
}

func result(seq uint64) *wire.Message {
	return &wire.Message{Kind: wire.KindToolResult, Execution: 1, Seq: seq, Output: []byte(`{}`)}
}

// TestSendNowWritesOnTheCallersGoroutine: with nothing queued, sendNow
// writes without the writer goroutine (which this test never starts).
func TestSendNowWritesOnTheCallersGoroutine(t *testing.T) {
	g := &frameRecorder{}
	s := newSender(wire.NewWriter(g))
	written, err := s.sendNow(context.Background(), nil, result(7))
	if err != nil || !written {
		t.Fatalf("sendNow = %v, %v", written, err)
	}
	if got := g.seqs(t); len(got) != 1 || got[0] != 7 {
		t.Fatalf("frames written: seqs %v, want [7]", got)
	}
}

// TestSendNowKeepsOrder: a message sendNow gets while others are queued
// goes after them.
func TestSendNowKeepsOrder(t *testing.T) {
	g := &frameRecorder{}
	s := newSender(wire.NewWriter(g))
	defer s.close()
	ctx := context.Background()
	first, second := s.post(result(1)), s.post(result(2)) // queued; no writer runs yet
	third := make(chan error, 1)
	go func() {
		_, err := s.sendNow(ctx, nil, result(3))
		third <- err
	}()
	// Give sendNow the chance to jump the queue, then start the writer.
	time.Sleep(20 * time.Millisecond)
	go s.run()
	for i, o := range []*outgoing{first, second} {
		if err := <-o.sent; err != nil {
			t.Fatalf("message %d: %v", i+1, err)
		}
	}
	if err := <-third; err != nil {
		t.Fatalf("message 3: %v", err)
	}
	if got := g.seqs(t); len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("frames written: seqs %v, want [1 2 3]", got)
	}
}

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// lineLogger is a logger that writes each record of level info and up as
// one line on w: "codemode: MESSAGE", or "codemode: warning: MESSAGE" for
// a warning, control characters escaped. Attributes are left out: the
// records it is given (the MCP connector's) say it all in their message.
func lineLogger(w io.Writer) *slog.Logger { return slog.New(lineHandler{w: w}) }

type lineHandler struct{ w io.Writer }

func (lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h lineHandler) Handle(_ context.Context, r slog.Record) error {
	prefix := "codemode: "
	if r.Level >= slog.LevelWarn {
		prefix += "warning: "
	}
	_, err := fmt.Fprintln(h.w, prefix+escapeControls(oneLine(r.Message)))
	return err
}

func (h lineHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h lineHandler) WithGroup(string) slog.Handler      { return h }

// lockedWriter serialises writes to w: the commands' stderr is written
// from more than one goroutine (an MCP server that joins late is reported
// while a program runs).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Package loglines collects a program's console output as lines, the form
// answers and the journal keep it in.
package loglines

import (
	"strings"
	"sync"
)

// Lines collects console output by stream ("stdout", "stderr") and splits
// it into lines; stderr's start with "[stderr] ". The zero value is ready;
// it is safe for concurrent use.
type Lines struct {
	mu    sync.Mutex
	lines []string
	part  map[string]string
}

// Add appends text written to stream.
func (l *Lines) Add(stream, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.part == nil {
		l.part = map[string]string{}
	}
	text = l.part[stream] + text
	parts := strings.Split(text, "\n")
	l.part[stream] = parts[len(parts)-1]
	for _, p := range parts[:len(parts)-1] {
		l.lines = append(l.lines, prefixed(stream, p))
	}
}

// All returns the lines so far, each stream's unfinished line last; nil
// when nothing was written.
func (l *Lines) All() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.lines...)
	for _, s := range []string{"stdout", "stderr"} {
		if p := l.part[s]; p != "" {
			out = append(out, prefixed(s, p))
		}
	}
	return out
}

func prefixed(stream, line string) string {
	if stream == "stderr" {
		return "[stderr] " + line
	}
	return line
}

package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/client"
)

// liveOutput prints a plain run's console output on w as the program
// writes it, line by line as an answer's logs hold it ("[stderr] " before
// the lines of its stderr), control characters escaped: a long program
// shows its progress, and one interrupted (Ctrl-C) keeps what it printed,
// which an answer, made when the program ends, would have dropped.
type liveOutput struct {
	mu   sync.Mutex
	w    io.Writer
	part map[string]string // each stream's unfinished line
}

func newLiveOutput(w io.Writer) *liveOutput {
	return &liveOutput{w: w, part: map[string]string{}}
}

// observe is the run's OnTelemetry: it prints each finished line of
// program output.
func (o *liveOutput) observe(e client.Event) {
	if e.Kind != client.EventProgramOutput {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	lines := strings.Split(o.part[e.Stream]+e.Text, "\n")
	o.part[e.Stream] = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		o.print(e.Stream, l)
	}
}

// flush prints each stream's unfinished line, when a run has ended.
func (o *liveOutput) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, stream := range []string{"stdout", "stderr"} {
		if p := o.part[stream]; p != "" {
			o.print(stream, p)
		}
	}
	clear(o.part)
}

func (o *liveOutput) print(stream, line string) {
	if stream == "stderr" {
		line = "[stderr] " + line
	}
	fmt.Fprintln(o.w, escapeControls(line))
}

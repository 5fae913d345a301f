package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunShowsOutputAsTheProgramWritesIt: a plain run prints the
// program's console output on stderr as the program writes it ("[stderr] "
// before the lines of its stderr, as an answer's logs), so a long program
// shows its progress, and one interrupted (Ctrl-C ends the command's
// context) keeps what it printed. The output was printed once the program
// ended, and not at all when it was interrupted.
func TestRunShowsOutputAsTheProgramWritesIt(t *testing.T) {
	tools := writeFile(t, "tools.json", `{"tools": [{"name": "hang", "description": "Hangs.", "inputSchema": {"type": "object"}, "outputSchema": {}, "command": ["sh", "-c", "sleep 60"]}]}`)
	program := writeFile(t, "program.ts", "console.log(\"started\");\nconsole.error(\"on stderr\");\nawait codemode.hang({});\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- cli(ctx, []string{"run", "--timeout", "20s", "--tools", tools, program}, &stdout, &stderr)
	}()
	for !strings.Contains(stderr.String(), "[stderr] on stderr\n") {
		select {
		case code := <-exit:
			t.Fatalf("exit %d before the program's output was shown; stderr:\n%s", code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if code := <-exit; code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	got := stderr.String()
	if strings.Contains(got, "deadline") {
		t.Fatalf("the output was shown only when the program ended, at its deadline:\n%s", got)
	}
	if !strings.Contains(got, "started\n[stderr] on stderr\n") || strings.Count(got, "started") != 1 {
		t.Errorf("stderr does not hold the program's output once, in order:\n%s", got)
	}
}

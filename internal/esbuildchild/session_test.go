package esbuildchild

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"
)

var tsOptions = api.TransformOptions{Loader: api.LoaderTS, Target: api.ESNext, Sourcefile: "agent.ts", Charset: api.CharsetUTF8}

func withMap(o api.TransformOptions) api.TransformOptions {
	o.Sourcemap = api.SourceMapExternal
	return o
}

// TestTransformAnswersAsInProcess holds the child's answers to esbuild's
// own, in process: the JavaScript, the map and the errors with their
// positions.
func TestTransformAnswersAsInProcess(t *testing.T) {
	s := New(context.Background(), nil)
	defer s.Close()
	cases := []struct {
		name string
		code string
		opts api.TransformOptions
	}{
		{"enum", "enum Color { Red, Green = 4 }\nexport default async () => Color.Green as number;\n", tsOptions},
		{"with a map", "namespace N { export const x: number = 1 }\nconsole.log(N.x)\n", withMap(tsOptions)},
		{"syntax error", "const x: number = ;\nlet y = {\n", tsOptions},
		{"empty", "", tsOptions},
		{"unicode", "const s: string = \"żółw 🐢\"; export default s;", tsOptions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := api.Transform(c.code, c.opts)
			got, err := s.Transform(c.code, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Code, want.Code) || !bytes.Equal(got.Map, want.Map) {
				t.Fatalf("child printed\n%s\n%s\nin process\n%s\n%s", got.Code, got.Map, want.Code, want.Map)
			}
			if len(got.Errors) != len(want.Errors) {
				t.Fatalf("child: %d errors, in process: %d (%v)", len(got.Errors), len(want.Errors), want.Errors)
			}
			for i := range want.Errors {
				g, w := got.Errors[i], want.Errors[i]
				if g.Text != w.Text || (w.Location == nil) != (g.Location == nil) ||
					(w.Location != nil && (g.Location.Line != w.Location.Line || g.Location.Column != w.Location.Column)) {
					t.Fatalf("error %d: child %+v at %+v, in process %+v at %+v", i, g, g.Location, w, w.Location)
				}
			}
		})
	}
	if s.cmd == nil || s.cmd.ProcessState != nil {
		t.Fatal("the session should have one live child after its transforms")
	}
}

// slowForEsbuild is a short text esbuild takes hours on: each `a ? (b): c
// =>` doubles the speculative parsing of an arrow's return type (20 took
// 14 s with esbuild 0.28.2).
var slowForEsbuild = strings.Repeat("a ? (b): c => ", 40)

// TestContextKillsTheChild: a transform esbuild would take hours on ends
// when the context does, with an error wrapping its cause, and the session
// then refuses further work with the same error. The test would hang (and
// the test binary's timeout fail it) if the child were not killed.
func TestContextKillsTheChild(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	s := New(ctx, nil)
	defer s.Close()
	if _, err := s.Transform("const warm: number = 1", tsOptions); err != nil {
		t.Fatal(err)
	}
	_, err := s.Transform(slowForEsbuild, tsOptions)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want one wrapping context.DeadlineExceeded", err)
	}
	if s.cmd.ProcessState == nil {
		t.Fatal("the child is still running")
	}
	if _, again := s.Transform("1", tsOptions); !errors.Is(again, context.DeadlineExceeded) || s.Err() == nil {
		t.Fatalf("after the deadline: %v (Err %v), want the same error", again, s.Err())
	}
}

// TestCancelledBeforeStartStartsNothing: a session whose context ended
// before its first transform starts no process.
func TestCancelledBeforeStartStartsNothing(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("the run was abandoned")
	cancel(cause)
	s := New(ctx, nil)
	defer s.Close()
	if _, err := s.Transform("1", tsOptions); !errors.Is(err, cause) {
		t.Fatalf("err = %v, want one wrapping the cause", err)
	}
	if s.cmd != nil {
		t.Fatal("a process was started")
	}
}

// TestChildEndedIsErrEnded: a child killed from outside ends the session
// with ErrEnded, not a context error.
func TestChildEndedIsErrEnded(t *testing.T) {
	s := New(context.Background(), nil)
	defer s.Close()
	if _, err := s.Transform("let a: string", tsOptions); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Transform("let b: string", tsOptions)
	if !errors.Is(err, ErrEnded) || errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrEnded", err)
	}
	if !strings.Contains(err.Error(), "killed") {
		t.Fatalf("err = %v, want the child's end named", err)
	}
}

// TestMemoryBoundEndsTheChild: a text esbuild prints into gigabytes
// (template literals joined by "+": 24 GB for 600 KB) ends the child at
// the session's memory bound, with ErrEnded naming it.
func TestMemoryBoundEndsTheChild(t *testing.T) {
	s := New(context.Background(), nil)
	s.maxMemory = 64 << 20
	defer s.Close()
	_, err := s.Transform("enum E {}\nconst x = "+strings.Repeat("`${a}`+", 100_000)+"1", withMap(tsOptions))
	if !errors.Is(err, ErrEnded) || !strings.Contains(err.Error(), "MiB allowed") {
		t.Fatalf("err = %v, want ErrEnded naming the memory bound", err)
	}
}

// TestLimitBoundsLiveChildren: with a limit of one, a second session
// waits for the first's child to end, or for its own context.
func TestLimitBoundsLiveChildren(t *testing.T) {
	lim := NewLimit(1)
	first := New(context.Background(), lim)
	if _, err := first.Transform("let a: number", tsOptions); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	waiting := New(ctx, lim)
	if _, err := waiting.Transform("let b: number", tsOptions); !errors.Is(err, context.DeadlineExceeded) || waiting.cmd != nil {
		t.Fatalf("a second child while the first lives: %v", err)
	}
	waiting.Close()
	first.Close()
	next := New(context.Background(), lim)
	defer next.Close()
	if _, err := next.Transform("let c: number", tsOptions); err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
}

// TestReleaseEndsTheChildAndKeepsTheSession: a released session's child
// is gone and its slot free; the next transform starts another.
func TestReleaseEndsTheChildAndKeepsTheSession(t *testing.T) {
	lim := NewLimit(1)
	s := New(context.Background(), lim)
	defer s.Close()
	if _, err := s.Transform("let a: number", tsOptions); err != nil {
		t.Fatal(err)
	}
	first := s.cmd
	s.Release()
	if first.ProcessState == nil || s.cmd != nil || len(lim.slots) != 0 {
		t.Fatalf("after Release: child state %v, slots held %d", first.ProcessState, len(lim.slots))
	}
	if _, err := s.Transform("let b: number", tsOptions); err != nil || s.cmd == first {
		t.Fatalf("after Release: %v (same child %v)", err, s.cmd == first)
	}
}

// TestClosedSessionRefuses: Close ends the child; a later transform is
// refused.
func TestClosedSessionRefuses(t *testing.T) {
	s := New(context.Background(), nil)
	if _, err := s.Transform("let a: string", tsOptions); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.cmd.ProcessState == nil || !s.cmd.ProcessState.Success() {
		t.Fatalf("the child did not exit cleanly on Close: %v", s.cmd.ProcessState)
	}
	if _, err := s.Transform("1", tsOptions); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("err = %v, want the session named closed", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMarkersAloneDoNothing: the test binary started with the markers but
// another parent's process ID runs as itself (its tests), and so does one
// with the right parent but a wrong token: it exits with an error rather
// than serving.
func TestMarkersAloneDoNothing(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestNothing$")
	cmd.Env = append(os.Environ(), tokenEnv+"=abc", parentEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "no tests to run") {
		t.Fatalf("with a foreign parent the binary did not run as itself: %v\n%s", err, out)
	}
	cmd = exec.Command(exe, "-test.run=^TestNothing$")
	cmd.Env = append(os.Environ(), tokenEnv+"=abc", parentEnv+"="+strconv.Itoa(os.Getpid()))
	w, r, ends, err := connect(cmd)
	if err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, f := range ends {
		f.Close()
	}
	_ = writeFrame(w, []byte("not the token"))
	w.Close()
	_, _ = io.Copy(io.Discard, r)
	err = cmd.Wait()
	r.Close()
	if err == nil || !strings.Contains(errs.String(), errWrongToken.Error()) {
		t.Fatalf("a wrong token was not refused: %v\n%s", err, errs.String())
	}
}

// TestInitOutputDoesNotReachTheChannel: what the executable prints to
// standard output before the hook runs (an init function of another
// package) does not corrupt a frame: the channel is its own pipes.
func TestInitOutputDoesNotReachTheChannel(t *testing.T) {
	if printedBeforeTheHook {
		t.Fatal("the test process itself carries a child's marker")
	}
	s := New(context.Background(), nil)
	defer s.Close()
	if _, err := s.Transform("let a: number", tsOptions); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.stderr.String(), "init output") {
		t.Fatalf("the child's standard output was %q, not the line its initializer printed", s.stderr.String())
	}
}

// TestServeReadsFrames: serve answers requests in order and stops at the
// end of its input; a bad frame is an error naming it.
func TestServeReadsFrames(t *testing.T) {
	var in, out bytes.Buffer
	_ = writeJSON(&in, hello{Token: "tok"})
	_ = writeJSON(&in, request{Code: "let a: number = 1", Options: tsOptions})
	_ = writeJSON(&in, request{Code: "let = ;", Options: tsOptions})
	if err := serve(&in, &out, "tok", os.Getppid()); err != nil {
		t.Fatal(err)
	}
	var answers []string
	for {
		f, err := readFrame(&out)
		if err != nil {
			break
		}
		answers = append(answers, string(f))
	}
	if len(answers) != 2 || !strings.Contains(answers[0], `"code"`) || !strings.Contains(answers[1], `"errors"`) {
		t.Fatalf("answers: %q", answers)
	}
	in.Reset()
	_ = writeJSON(&in, hello{Token: "tok"})
	in.Write([]byte{0, 0, 0, 9, '{'})
	if err := serve(&in, &out, "tok", os.Getppid()); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("err = %v, want a frame cut short", err)
	}
}

// FuzzReadFrame: any input is read as frames or refused with an error,
// never more than maxFrame bytes taken.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 'a', 'b', 'c'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		for {
			p, err := readFrame(r)
			if err != nil {
				return
			}
			if len(p) > maxFrame {
				t.Fatalf("a frame of %d bytes", len(p))
			}
		}
	})
}

// BenchmarkFirstTransform is what a program esbuild erases pays: a session
// started, one small transform, closed; against the same transform in
// process.
func BenchmarkFirstTransform(b *testing.B) {
	const code = "enum Color { Red, Green = 4 }\nexport default async () => Color.Green as number;\n"
	b.Run("child", func(b *testing.B) {
		for range b.N {
			s := New(context.Background(), nil)
			if _, err := s.Transform(code, tsOptions); err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("in-process", func(b *testing.B) {
		for range b.N {
			api.Transform(code, tsOptions)
		}
	})
}

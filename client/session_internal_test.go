package client

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSessionIdleExpiry: a session idle past its IdleTimeout ends on its
// next use with an error naming the bound and the bindings lost, then
// starts empty; the sessions of a table idle past twice their timeout are
// swept.
func TestSessionIdleExpiry(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		idle  time.Duration
		after time.Duration
		want  string // "" for no error
	}{
		{"within the default", 0, 29 * time.Minute, ""},
		{"past the default", 0, 31 * time.Minute, "idle for more than 30m0s, its IdleTimeout); these bindings were lost: a, f"},
		{"past a set timeout", time.Minute, 2 * time.Minute, "idle for more than 1m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Session{IdleTimeout: tc.idle}
			s.finish(start, &capturedSession{Values: map[string]string{"a": "1"}, Functions: map[string]string{"f": "function f() {}"}, Lost: map[string]string{}}, nil)
			got, err := s.begin(start.Add(tc.after))
			if tc.want == "" {
				if err != nil || len(got) != 2 {
					t.Fatalf("begin = %v, %v; want the two bindings", got, err)
				}
				return
			}
			if !errors.Is(err, ErrSessionEnded) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("begin: %v; want ErrSessionEnded with %q", err, tc.want)
			}
			if got, err := s.begin(start.Add(tc.after)); err != nil || len(got) != 0 {
				t.Fatalf("after the error: %v, %v; want an empty session", got, err)
			}
		})
	}
	var table sessionTable
	a := table.get("a", &Session{IdleTimeout: time.Minute}, start, nil)
	a.finish(start, &capturedSession{Values: map[string]string{"x": "1"}, Lost: map[string]string{}}, nil)
	if table.get("a", nil, start.Add(90*time.Second), nil) != a {
		t.Fatal("an expired session must stay to report what was lost")
	}
	// Past twice its timeout the sweep ends it (its bindings freed), but
	// its key still says what was lost until forgetAfter timeouts.
	table.get("b", nil, start.Add(3*time.Minute), nil)
	if got, ok := table.m["a"]; !ok || got.bindings != nil || got.ended == "" {
		t.Fatalf("a session idle past twice its timeout: %+v, %v; want it ended and kept", got, ok)
	}
	if _, err := table.get("a", nil, start.Add(4*time.Minute), nil).begin(start.Add(4 * time.Minute)); !errors.Is(err, ErrSessionEnded) || !strings.Contains(err.Error(), "lost: x") {
		t.Fatalf("the swept session's key used again: %v; want ErrSessionEnded naming x", err)
	}
	b := table.get("b", nil, start.Add(3*time.Minute), nil)
	b.finish(start.Add(3*time.Minute), nil, nil)
	table.get("d", nil, start.Add(3*time.Minute+(forgetAfter+1)*defaultSessionIdle), nil)
	if _, ok := table.m["b"]; ok {
		t.Fatal("a session idle past forgetAfter timeouts was not forgotten")
	}
	// A key nobody holds any more (a closed MCP session) is dropped on the
	// next use of another.
	table.get("c", nil, start.Add(3*time.Minute), func(k string) bool { return k != "b" })
	if _, ok := table.m["b"]; ok {
		t.Fatal("the session of a closed key was not dropped")
	}
	if _, ok := table.m["c"]; !ok {
		t.Fatal("the session in use was dropped")
	}
}

// TestSessionFunctionsThatCannotComeBack: a method's or a native
// function's source is not an expression, and a class's definition runs
// code, so these bindings are lost.
func TestSessionFunctionsThatCannotComeBack(t *testing.T) {
	c := &capturedSession{Functions: map[string]string{
		"ok": "(a) => a", "m": "m() { return 1 }", "n": "function push() { [native code] }", "k": "class K {}",
	}, Lost: map[string]string{}}
	next, lost := c.bindings(nil, nil)
	var names []string
	for _, b := range next {
		names = append(names, b.Name)
	}
	if strings.Join(names, ",") != "ok" || len(lost) != 3 || !strings.HasPrefix(lost[0], "k (a class") || !strings.HasPrefix(lost[1], "m (") || !strings.HasPrefix(lost[2], "n (") {
		t.Fatalf("kept %v, lost %v", names, lost)
	}
}

package esbuildchild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// children are this process's child process IDs (Linux's /proc).
func children() []string {
	tasks, _ := os.ReadDir("/proc/self/task")
	var pids []string
	for _, task := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		pids = append(pids, strings.Fields(string(b))...)
	}
	return pids
}

// TestChildEndsWithItsParent: a host that ends while its child parses (a
// crash, an out-of-memory kill, a deploy) does not leave the child
// parsing for hours: the child sees its parent gone and exits. The test
// binary plays the host in a process of its own.
func TestChildEndsWithItsParent(t *testing.T) {
	if os.Getenv("ESBUILDCHILD_TEST_HOST") != "" {
		s := New(context.Background(), nil)
		go func() { _, _ = s.Transform(slowForEsbuild, tsOptions) }()
		for len(children()) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		fmt.Println("child", children()[0])
		os.Exit(0)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestChildEndsWithItsParent$")
	cmd.Env = append(os.Environ(), "ESBUILDCHILD_TEST_HOST=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err, string(out))
	}
	f := strings.Fields(string(out))
	pid, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		t.Fatalf("the host printed %q", out)
	}
	// Orphaned, the child is adopted by init (or a subreaper), which reaps
	// it once it exits. Wait for that, and kill it if it never comes.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return
		}
		if stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(stat), ") Z ") {
			return // exited; its new parent has not reaped it yet
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("the child %d was still parsing 30 s after its host ended", pid)
}

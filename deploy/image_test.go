package deploy_test

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction: its keyword and its
// arguments, continuation lines joined.
type instruction struct {
	cmd, args string
}

// readDockerfile returns the repository's Dockerfile's instructions.
func readDockerfile(t *testing.T) []instruction {
	t.Helper()
	f, err := os.Open("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []instruction
	var cur string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cur == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if rest, ok := strings.CutSuffix(line, `\`); ok {
			cur += rest + " "
			continue
		}
		cur += line
		cmd, args, _ := strings.Cut(cur, " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// finalStage returns the instructions after the last FROM.
func finalStage(ins []instruction) []instruction {
	last := 0
	for i, in := range ins {
		if in.cmd == "FROM" {
			last = i
		}
	}
	return ins[last:]
}

// TestDockerfileFinalStage checks the image's facts that need no builder:
// a minimal base, a non-root user, the entry point is the binary the build
// stage made, and the compilation cache lands where the binary looks for
// it.
func TestDockerfileFinalStage(t *testing.T) {
	final := finalStage(readDockerfile(t))
	if !strings.HasPrefix(final[0].args, "gcr.io/distroless/static") {
		t.Errorf("the final base is %q, not distroless/static", final[0].args)
	}
	var user, entry, cacheEnv string
	copies := map[string]string{} // destination by source
	for _, in := range final {
		f := strings.Fields(in.args)
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			entry = in.args
		case "ENV":
			if v, ok := strings.CutPrefix(in.args, "XDG_CACHE_HOME="); ok {
				cacheEnv = v
			}
		case "COPY":
			copies[f[len(f)-2]] = f[len(f)-1]
		}
	}
	if user == "" || strings.HasPrefix(user, "0") || strings.HasPrefix(user, "root") {
		t.Errorf("USER is %q: the image must run as a non-root user", user)
	}
	if bin := copies["/out/codemode"]; bin == "" || entry != `["`+bin+`"]` {
		t.Errorf("ENTRYPOINT %s does not run the copied binary %q", entry, bin)
	}
	if c := copies["/out/cache"]; c == "" || c != cacheEnv {
		t.Errorf("the cache is copied to %q but XDG_CACHE_HOME is %q", c, cacheEnv)
	}
}

// buildLine returns the environment and arguments of the build stage's
// go build command.
func buildLine(t *testing.T) (env, args []string) {
	t.Helper()
	for _, in := range readDockerfile(t) {
		if in.cmd != "RUN" || !strings.Contains(in.args, "go build") {
			continue
		}
		for _, f := range shellFields(in.args) {
			switch {
			case args == nil && strings.Contains(f, "="):
				env = append(env, f)
			case args == nil && f == "go":
				args = []string{}
			case args != nil:
				args = append(args, f)
			}
		}
		return env, args
	}
	t.Fatal("the Dockerfile has no go build step")
	return nil, nil
}

// shellFields splits a command line into words, as a shell does for
// double quotes (the only quoting the Dockerfile uses): -ldflags="-s -w"
// is one word, -ldflags=-s -w.
func shellFields(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// TestDockerfileBuildFlags builds the binary with the Dockerfile's own
// environment and flags and checks that it is static (no ELF interpreter:
// it runs on distroless/static) and that the warm-up step fills the
// compilation cache.
func TestDockerfileBuildFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole CLI")
	}
	env, args := buildLine(t)
	if len(args) < 2 || args[0] != "build" {
		t.Fatalf("go build line: %v", args)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "codemode")
	for i, a := range args {
		switch {
		case a == "-o":
			args[i+1] = bin
		case strings.HasPrefix(a, "./"):
			args[i] = "../" + a[2:]
		}
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s with %v: %v\n%s", strings.Join(args, " "), env, err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary built with %v has an ELF interpreter: it is not static", env)
		}
	}
	f.Close()
	prog := filepath.Join(dir, "warm.ts")
	if err := os.WriteFile(prog, []byte("return 1;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	warm := exec.Command(bin, "run", prog)
	warm.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	if out, err := warm.CombinedOutput(); err != nil {
		t.Fatalf("the warm-up run: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(filepath.Join(cache, "codemode", "quickjs"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("the warm-up left no compilation cache (%v)", err)
	}
}

// TestDockerImage builds the image and runs a program in a container,
// under the container runtime's default seccomp profile, where a builder
// exists.
func TestDockerImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the image")
	}
	builder := ""
	for _, b := range []string{"docker", "podman"} {
		if _, err := exec.LookPath(b); err == nil {
			builder = b
			break
		}
	}
	if builder == "" {
		t.Skip("no container builder (docker or podman) on PATH: the image is not built here")
	}
	if err := exec.Command(builder, "info").Run(); err != nil {
		t.Skipf("%s is installed but its engine does not answer (%v): the image is not built here", builder, err)
	}
	tag := "codemode-test:" + filepath.Base(t.TempDir())
	if out, err := exec.Command(builder, "build", "-t", tag, "..").CombinedOutput(); err != nil {
		t.Fatalf("%s build: %v\n%s", builder, err, out)
	}
	t.Cleanup(func() { _ = exec.Command(builder, "rmi", "-f", tag).Run() })
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.ts"), []byte("return 6 * 7;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The image's user (65532) reads the program through the mount.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(builder, "run", "--rm", "-v", dir+":/w:ro", tag, "run", "/w/p.ts")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "42") {
		t.Fatalf("running a program in the image: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "less confinement") {
		t.Errorf("the sandbox is not fully confined under the default seccomp profile:\n%s", out)
	}
}

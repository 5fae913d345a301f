package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/handshake"
	"github.com/codemode-go/codemode/internal/runnerhost"
)

// tokenEnv names the environment variable that holds a runner host's
// pre-shared token.
const tokenEnv = "CODEMODE_RUNNER_TOKEN"

const runnerUsage = `usage: codemode runner serve --listen ADDR [--runtime quickjs|node] [flags]

Serves runtimes to remote clients (drivers/remote), one runtime per connection.
ADDR is host:port or unix:/path. The pre-shared token comes from $CODEMODE_RUNNER_TOKEN
(at least 16 bytes); it may be unset only with mutual TLS (--tls-cert, --tls-key, --tls-client-ca).
SIGTERM or SIGINT drains (in-flight executions finish, new ones are refused), then exits 0;
a second signal closes the remaining connections at once.

flags:
`

// runnerCommand runs `codemode runner serve`. ctx ends on the first SIGTERM
// or SIGINT, which starts the drain.
func runnerCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "serve" {
		return usageError{"runner: the only subcommand is serve (see codemode runner serve --help)"}
	}
	f, err := parseRunnerServe(args[1:], stdout)
	if err != nil {
		return err
	}
	tlsConfig, err := serverTLS(f.tlsCert, f.tlsKey, f.tlsClientCA)
	if err != nil {
		return err
	}
	token := []byte(os.Getenv(tokenEnv))
	if len(token) == 0 && f.tlsClientCA == "" {
		return fmt.Errorf("runner serve: set %s to a random token of at least %d bytes (for example: openssl rand -hex 32), or configure mutual TLS with --tls-cert, --tls-key and --tls-client-ca", tokenEnv, handshake.MinTokenSize)
	}
	local, closeLocal := f.driver()
	defer closeLocal()
	log := stderrLogger(stderr)
	srv, err := runnerhost.NewServer(runnerhost.ServerOptions{
		Driver: local, Token: token, TLS: tlsConfig,
		MaxConnections: f.maxConns, IdleTimeout: f.idle, HandshakeTimeout: f.handshake,
		AuthTimeout: f.authTimeout, MaxHandshakesPerAddress: f.perAddress, MaxHandshakesPerNetwork: f.perNetwork,
		Logger: log,
	})
	if err != nil {
		return fmt.Errorf("runner serve: %w", err)
	}
	// Listen first, so that a bad or busy address fails at once; clients
	// that connect meanwhile wait in the backlog.
	l, err := runnerhost.Listen(f.listen)
	if err != nil {
		return fmt.Errorf("runner serve: %w", err)
	}
	defer l.Close()
	if err := warmUp(ctx, local, f.runtime, log); err != nil {
		return err
	}
	stopAdmin, err := f.admin.serveRunner(ctx, srv, f.maxConns, func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) })
	if err != nil {
		return err
	}
	defer stopAdmin()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	log.Info("codemode runner: serving", "listen", l.Addr().String(), "runtime", f.runtime, "tls", tlsConfig != nil, "mutual-tls", f.tlsClientCA != "", "max-connections", f.maxConns)
	select {
	case err := <-served:
		_ = srv.Close()
		return fmt.Errorf("runner serve: %w", err)
	case <-ctx.Done():
	}
	return drain(srv, served, f.drainTimeout, log)
}

// runnerFlags are runner serve's flags.
type runnerFlags struct {
	listen, runtime, cacheDir    string
	tlsCert, tlsKey, tlsClientCA string
	maxConns, maxEngines         int
	perAddress, perNetwork       int
	idle, handshake, timeout     time.Duration
	authTimeout, drainTimeout    time.Duration
	admin                        adminFlags
}

// parseRunnerServe parses and checks runner serve's flags.
func parseRunnerServe(args []string, stdout io.Writer) (*runnerFlags, error) {
	f := &runnerFlags{}
	fs := flag.NewFlagSet("runner serve", flag.ContinueOnError)
	fs.StringVar(&f.listen, "listen", "", "address to listen on: host:port or unix:/path (required)")
	fs.StringVar(&f.runtime, "runtime", "quickjs", "local runtime for each connection: quickjs or node")
	f.admin.register(fs)
	fs.IntVar(&f.maxConns, "max-connections", 64, "connections with a runtime at once; more are refused")
	fs.DurationVar(&f.idle, "idle-timeout", 0, "close a connection with nothing in flight and no traffic for this long (0: never)")
	fs.DurationVar(&f.handshake, "handshake-timeout", 10*time.Second, "bound on TLS, authentication and a runtime's boot")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "per-execution deadline (quickjs)")
	fs.StringVar(&f.cacheDir, "cache-dir", defaultCacheDir(), "folder for compiled QuickJS machine code (empty: no disk cache)")
	fs.IntVar(&f.maxEngines, "max-engines", defaultMaxEngines(), "quickjs: executions running at once across all connections; more wait for a free engine (0: no cap). Default: half the memory (the smaller of MemTotal and the cgroup's memory.max) over 80 MiB an engine (its 64 MiB memory limit and the engine's own), at least 1")
	fs.DurationVar(&f.authTimeout, "auth-timeout", 3*time.Second, "bound on TLS and authentication (a silent peer holds a slot at most this long)")
	fs.IntVar(&f.perAddress, "max-handshakes-per-address", 8, "connections authenticating at once from one source IP address; more are refused")
	fs.IntVar(&f.perNetwork, "max-handshakes-per-network", 16, "connections authenticating at once from one network (an IPv4 /24, an IPv6 /64); more are refused, and the last quarter of the 64 slots is kept for networks holding none")
	fs.DurationVar(&f.drainTimeout, "drain-timeout", 5*time.Minute, "after SIGTERM, how long executions in flight may take before the remaining connections are closed")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate of this host (enables TLS, with --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
	fs.StringVar(&f.tlsClientCA, "tls-client-ca", "", "PEM CA bundle that client certificates must chain to (mutual TLS)")
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, runnerUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil, errHelp
		}
	}
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return nil, err
	}
	if len(positional) > 0 {
		return nil, usageError{fmt.Sprintf("runner serve: unexpected argument %q", positional[0])}
	}
	return f, f.check()
}

// check validates the flags.
func (f *runnerFlags) check() error {
	switch {
	case f.listen == "":
		return usageError{"runner serve: --listen is required"}
	case f.maxConns < 1:
		return usageError{"runner serve: --max-connections must be at least 1"}
	case f.maxEngines < 0:
		return usageError{"runner serve: --max-engines must be 0 (no cap) or more"}
	case f.idle < 0 || f.handshake <= 0 || f.timeout <= 0 || f.authTimeout <= 0:
		return usageError{"runner serve: --idle-timeout must not be negative; --handshake-timeout, --auth-timeout and --timeout must be positive"}
	case f.perAddress < 1 || f.perNetwork < 1:
		return usageError{"runner serve: --max-handshakes-per-address and --max-handshakes-per-network must be at least 1"}
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return usageError{"runner serve: --tls-cert and --tls-key go together"}
	case f.tlsClientCA != "" && f.tlsCert == "":
		return usageError{"runner serve: --tls-client-ca needs --tls-cert and --tls-key"}
	case f.runtime != "quickjs" && f.runtime != "node":
		return usageError{fmt.Sprintf("runner serve: --runtime %q is neither quickjs nor node", f.runtime)}
	}
	return nil
}

// driver is the local driver each connection's runtime runs on, and how
// to close it.
func (f *runnerFlags) driver() (drivers.Driver, func()) {
	if f.runtime == "node" {
		// Programs can read a Node.js child's environment: leave the
		// token out of it.
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, tokenEnv+"=") {
				env = append(env, kv)
			}
		}
		return node.New(node.Options{Env: env}), func() {}
	}
	d := quickjs.New(quickjs.Options{Timeout: f.timeout, CacheDir: f.cacheDir, MaxEngines: f.maxEngines})
	return d, func() { d.Close() }
}

// warmUp boots one runtime before serving: QuickJS compiles (or loads its
// cache) and Node.js's version is checked, so that a broken set-up fails
// here and the first client does not wait.
func warmUp(ctx context.Context, local drivers.Driver, name string, log *slog.Logger) error {
	warm, err := client.NewRuntime(ctx, local)
	if fault := nodeVersionFault(err); fault != nil {
		return fmt.Errorf("runner serve: %w", fault)
	}
	if err != nil {
		return fmt.Errorf("runner serve: starting a %s runtime: %w", name, err)
	}
	_ = warm.Close()
	if _, err := local.TypeDefinitionFiles(ctx); err != nil {
		log.Warn("codemode runner: clients cannot type-check programs against this host (running them works)", "reason", err.Error())
	}
	return nil
}

// drain lets executions in flight finish, for at most timeout or until a
// second signal, then closes the remaining connections.
func drain(srv *runnerhost.Server, served <-chan error, timeout time.Duration, log *slog.Logger) error {
	log.Info("codemode runner: draining; a second signal closes the remaining connections", "drain-timeout", timeout.String())
	force, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	force, cancel := context.WithTimeout(force, timeout)
	defer cancel()
	err := srv.Shutdown(force)
	<-served
	if err != nil {
		return fmt.Errorf("runner serve: %w", err)
	}
	log.Info("codemode runner: drained; exiting")
	return nil
}

// serverTLS builds the host's TLS configuration from PEM files, or returns
// nil without a certificate.
func serverTLS(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	if certFile == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("runner serve: loading --tls-cert and --tls-key: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13}
	if clientCAFile != "" {
		pem, err := os.ReadFile(clientCAFile)
		if err != nil {
			return nil, fmt.Errorf("runner serve: --tls-client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New("runner serve: --tls-client-ca holds no PEM certificate")
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// engineBytes is what one QuickJS execution may hold, in bytes: its default
// memory limit (64 MiB) and the engine's own memory outside it (a review
// measured 24 programs at 1.75 GB, about 73 MB each).
const engineBytes = 80 << 20

// defaultMaxEngines is --max-engines' default: half the memory this process
// may use (the smaller of /proc/meminfo's MemTotal and the cgroup v2
// memory.max) divided by engineBytes, at least 1; 0 (no cap) when neither
// can be read.
func defaultMaxEngines() int {
	return maxEnginesFor(readMemTotal("/proc/meminfo"), readCgroupMax("/sys/fs/cgroup/memory.max"))
}

// maxEnginesFor applies defaultMaxEngines' formula to a machine's memory
// and a cgroup limit, in bytes (0: unknown or unlimited).
func maxEnginesFor(memTotal, cgroupMax uint64) int {
	mem := memTotal
	if cgroupMax > 0 && (mem == 0 || cgroupMax < mem) {
		mem = cgroupMax
	}
	if mem == 0 {
		return 0
	}
	return int(max(1, mem/2/engineBytes))
}

// readMemTotal returns MemTotal of a /proc/meminfo file in bytes, or 0.
func readMemTotal(path string) uint64 {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// readCgroupMax returns a cgroup v2 memory.max in bytes, or 0 when it is
// "max" (no limit) or cannot be read.
func readCgroupMax(path string) uint64 {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// stderrLogger is the servers' logger: text records on stderr, for an
// operator.
func stderrLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, nil))
}

// cmdRunner is `codemode runner serve` (runnerCommand).
func cmdRunner(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	return 0, runnerCommand(ctx, args, stdout, stderr)
}

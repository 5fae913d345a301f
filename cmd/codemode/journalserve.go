package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/internal/ops"
	"github.com/codemode-go/codemode/journalui"
)

// uiTokenEnv names the variable holding the journal page's login token.
const uiTokenEnv = "CODEMODE_UI_TOKEN"

const journalServeUsage = `usage: codemode journal serve --journal FILE.db [--tools FILE | --mcp CMD|URL | --config FILE | --openapi NAME=SPEC] [--listen 127.0.0.1:7312] [flags]

Serves the journal's web page: executions, their code and tool log, the actions
awaiting approval (approve, reject) and rollback of ended runs, updated live.
Approving replays the program and rolling back calls reverts, so give the tools
the runs were started with (the same --tools, --mcp, --config and --openapi).
--name takes several runtime names, comma-separated.
On a loopback address the page needs no login; any other address needs a token
in $CODEMODE_UI_TOKEN, asked for once by a login form. With OTEL_EXPORTER_OTLP_ENDPOINT
set, approvals, replays and rollbacks are exported as OpenTelemetry spans.

flags:
`

// cmdJournal is `codemode journal serve`: the journal page of --journal's
// runtime names. Approving and rolling back need the tools the runs were
// started with.
func cmdJournal(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	args, err := subcommand("journal", "serve", args, stdout)
	if err != nil {
		return 0, err
	}
	fs := flag.NewFlagSet("journal serve", flag.ContinueOnError)
	var cf contractFlags
	cf.serving = true
	cf.register(fs)
	var jf journalFlags
	jf.register(fs)
	jf.registerRuns(fs)
	listen := fs.String("listen", "127.0.0.1:7312", "address to serve the page on; a non-loopback one needs $"+uiTokenEnv)
	timeout := fs.Duration("timeout", 30*time.Second, "a replay's deadline")
	var rf runtimeFlags
	rf.register(fs)
	var af adminFlags
	af.register(fs)
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, journalServeUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0, errHelp
		}
	}
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return 0, err
	}
	jf.parsed(fs, stderr)
	switch {
	case len(positional) > 0:
		return 0, usageError{fmt.Sprintf("journal serve: unexpected argument %q", positional[0])}
	case jf.path == "":
		return 0, usageError{"journal serve: --journal FILE.db is required (or set $" + journalEnv + ")"}
	}
	if err := rf.check("journal serve"); err != nil {
		return 0, err
	}
	token, err := uiToken("journal serve: --listen", *listen)
	if err != nil {
		return 0, err
	}
	cf.noTools = "no tools: the page can show the journal, reject and expire, but not approve or roll back (give --tools FILE, --mcp CMD|URL, --config FILE or --openapi NAME=SPEC)"
	names := strings.Split(jf.name, ",")
	jf.name = strings.TrimSpace(names[0])
	stopMetrics, err := af.start(ctx)
	if err != nil {
		return 0, err
	}
	defer stopMetrics()
	s, err := openSession(ctx, sessionOptions{command: "journal serve", cf: &cf, jf: &jf, rf: &rf, timeout: *timeout, run: af.withMetrics(client.RunOptions{})}, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "codemode: "+format+"\n", args...) }
	stopAdmin, err := af.serve([]ops.Check{runtimeCheck(s.ex), journalCheck(s.handle)}, logf)
	if err != nil {
		return 0, err
	}
	defer stopAdmin()
	handles := []*durable.Handle{s.handle}
	for _, n := range names[1:] {
		h, err := s.handleFor(strings.TrimSpace(n))
		if err != nil {
			return 0, usageError{"journal serve: --name: " + strings.TrimPrefix(err.Error(), "durable: ")}
		}
		handles = append(handles, h)
	}
	if cf.any() {
		s.watchOrphans(handles...) // without tools it could run nothing
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return 0, fmt.Errorf("journal serve: %w", err)
	}
	fmt.Fprintf(stderr, "codemode: journal page on http://%s/ (%s)\n", l.Addr(), redactDSN(jf.path))
	return 0, serveJournalUI(ctx, l, handles, token)
}

// uiListener opens --ui's listener and its token, or nothing without --ui.
func uiListener(addr string) (net.Listener, string, error) {
	if addr == "" {
		return nil, "", nil
	}
	token, err := uiToken("--ui", addr)
	if err != nil {
		return nil, "", err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", usageError{"--ui: " + err.Error()}
	}
	return l, token, nil
}

// startJournalUI serves the journal page of handles on l until the
// returned stop is called (or ctx ends).
func startJournalUI(ctx context.Context, l net.Listener, handles []*durable.Handle, token string, logf func(string, ...any)) (stop func()) {
	uictx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- serveJournalUI(uictx, l, handles, token) }()
	logf("journal page on http://%s/", l.Addr())
	return func() {
		cancel()
		if err := <-done; err != nil {
			logf("journal page: %v", err)
		}
	}
}

// uiToken returns the page's login token ($CODEMODE_UI_TOKEN) for a
// listen address: none is needed on loopback, any other address needs one
// of at least 16 characters.
func uiToken(command, listen string) (string, error) {
	token := os.Getenv(uiTokenEnv)
	loopback, err := loopbackListen(listen)
	if err != nil {
		return "", usageError{command + ": " + err.Error()}
	}
	if !loopback && token == "" {
		return "", usageError{fmt.Sprintf("%s: %s is not a loopback address: set $%s to a secret the journal page will ask for", command, listen, uiTokenEnv)}
	}
	if token != "" && len(token) < 16 {
		return "", usageError{fmt.Sprintf("%s: $%s is shorter than 16 characters", command, uiTokenEnv)}
	}
	return token, nil
}

// serveJournalUI serves the journal page of handles on l until ctx ends,
// then shuts the server down.
func serveJournalUI(ctx context.Context, l net.Listener, handles []*durable.Handle, token string) error {
	ui, err := journalui.New(handles, journalui.Options{Token: token})
	if err != nil {
		l.Close()
		return err
	}
	defer ui.Close()
	srv := &http.Server{Handler: ui, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	srv.RegisterOnShutdown(ui.Close)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return fmt.Errorf("journal page: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loopbackListen reports whether a listen address is on a loopback
// interface: 127.0.0.0/8, ::1 or localhost. An empty host (all interfaces)
// is not.
func loopbackListen(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

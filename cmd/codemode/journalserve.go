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

	"github.com/codemode-go/codemode/durable"
	journalstore "github.com/codemode-go/codemode/durable/journal"
	"github.com/codemode-go/codemode/journalui"
)

// uiTokenEnv names the variable holding the journal page's login token.
const uiTokenEnv = "CODEMODE_UI_TOKEN"

const journalServeUsage = `usage: codemode journal serve --journal FILE.db [--tools FILE] [--listen 127.0.0.1:7312] [flags]

Serves the journal's web page: executions, their code and tool log, the actions
awaiting approval (approve, reject) and rollback of ended runs, updated live.
Approving replays the program and rolling back calls reverts, so give the tools
the runs were started with (--tools FILE, with requiresApproval/replay/revert).
On a loopback address the page needs no login; any other address needs a token
in $CODEMODE_UI_TOKEN, asked for once by a login form. With OTEL_EXPORTER_OTLP_ENDPOINT
set, approvals, replays and rollbacks are exported as OpenTelemetry spans.

flags:
`

// journalUICommand runs `codemode journal serve`.
func journalUICommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "serve" {
		return usageError{"journal: the only subcommand is serve (see codemode journal serve --help)"}
	}
	fs := flag.NewFlagSet("journal serve", flag.ContinueOnError)
	journal := fs.String("journal", os.Getenv("CODEMODE_JOURNAL"), "the journal: a SQLite file (default $CODEMODE_JOURNAL)")
	name := fs.String("name", durable.DefaultName, "runtime names to show, comma-separated (each is a separate history in the journal)")
	tools := fs.String("tools", "", "tools file of the runs (needed to approve and roll back)")
	listen := fs.String("listen", "127.0.0.1:7312", "address to serve the page on; a non-loopback one needs $"+uiTokenEnv)
	timeout := fs.Duration("timeout", 30*time.Second, "per-execution deadline of a replay (quickjs)")
	var rf runtimeFlags
	rf.register(fs)
	for _, a := range args[1:] {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, journalServeUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return errHelp
		}
	}
	positional, err := parse(fs, args[1:], stdout)
	if err != nil {
		return err
	}
	switch {
	case len(positional) > 0:
		return usageError{fmt.Sprintf("journal serve: unexpected argument %q", positional[0])}
	case *journal == "":
		return usageError{"journal serve: --journal FILE.db is required (or set $CODEMODE_JOURNAL)"}
	}
	if err := rf.check("journal serve"); err != nil {
		return err
	}
	token, err := uiToken("journal serve: --listen", *listen)
	if err != nil {
		return err
	}
	var connectors []durable.Connector
	if *tools != "" {
		c, err := loadDurableTools(*tools, defaultMaxCommands())
		if err != nil {
			return fmt.Errorf("--tools: %w", err)
		}
		connectors = append(connectors, c)
	} else {
		fmt.Fprintln(stderr, "codemode: warning: no --tools: the page can show the journal, reject and expire, but not approve or roll back")
	}

	tp, stopTracing, err := startTracing(ctx, stderr)
	if err != nil {
		return err
	}
	defer stopTracing()
	st, err := journalstore.OpenStore(ctx, *journal)
	if err != nil {
		return fmt.Errorf("--journal %s: %w", *journal, err)
	}
	defer st.Close()
	ex, closeRuntime, err := rf.open(ctx, *timeout)
	if err != nil {
		return err
	}
	defer closeRuntime()
	var handles []*durable.Handle
	for _, n := range strings.Split(*name, ",") {
		h, err := durable.New(st, ex, connectors, durable.Options{Name: strings.TrimSpace(n), TracerProvider: tp})
		if err != nil {
			return usageError{"journal serve: " + strings.TrimPrefix(err.Error(), "durable: ")}
		}
		handles = append(handles, h)
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("journal serve: %w", err)
	}
	fmt.Fprintf(stderr, "codemode: journal page on http://%s/ (%s)\n", l.Addr(), *journal)
	return serveJournalUI(ctx, l, handles, token)
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

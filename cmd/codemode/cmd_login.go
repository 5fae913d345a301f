package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/oauthlogin"
	"github.com/codemode-go/codemode/internal/termtext"
	"github.com/codemode-go/codemode/internal/toolname"
)

// cmdLogin is `codemode login`: signs in to a remote MCP server that asks
// for OAuth (the MCP authorization specification), so that later runs and
// mcp serve reach it with the saved token.
func cmdLogin(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("login", flag.ContinueOnError)
	config := fs.String("config", "", "MCP client configuration file (mcpServers JSON): sign in to its server NAME")
	target := fs.String("mcp", "", "the MCP server's http(s) URL")
	clientID := fs.String("client-id", "", "a client registered with the server's authorization server beforehand (default: codemode registers itself)")
	secretEnv := fs.String("client-secret-env", "", "environment variable holding that client's secret (never the secret itself)")
	wait := fs.Duration("wait", 5*time.Minute, "how long to wait for the sign-in in the browser")
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return 0, err
	}
	name, endpoint, err := loginTarget(*config, *target, positional)
	if err != nil {
		return 0, err
	}
	opts := oauthlogin.Options{ClientID: *clientID, Wait: *wait, Open: announceSignIn(name, stderr)}
	if *secretEnv != "" {
		if opts.ClientSecret = os.Getenv(*secretEnv); opts.ClientSecret == "" {
			return 0, usageError{fmt.Sprintf("login: --client-secret-env: $%s is not set", *secretEnv)}
		}
	}
	store, err := tokenStore()
	if err != nil {
		return 1, err
	}
	h, err := store.Handler(endpoint, opts)
	if err != nil {
		return 1, err
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "codemode", Version: "0.1.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, OAuthHandler: h, MaxRetries: -1}, nil)
	if err != nil {
		return 1, fmt.Errorf("login: %s: %w", name, err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		return 1, fmt.Errorf("login: %s: listing tools: %w", name, err)
	}
	fmt.Fprintf(stdout, "signed in to %s (%d tools); the token is kept in %s\n", name, len(tools.Tools), store.Path())
	return 0, nil
}

// loginTarget is the server login names: --config's entry NAME, or --mcp's
// URL.
func loginTarget(config, target string, positional []string) (name, endpoint string, err error) {
	switch {
	case config != "" && target != "", config == "" && target == "":
		return "", "", usageError{"login: give either --config FILE NAME or --mcp URL"}
	case target != "":
		if len(positional) > 0 {
			return "", "", usageError{fmt.Sprintf("login: unexpected argument %q", positional[0])}
		}
		s, err := parseTarget(target)
		if err != nil || s.URL == "" {
			return "", "", usageError{"login: --mcp must be the server's http(s) URL"}
		}
		return s.String(), s.URL, nil
	case len(positional) != 1:
		return "", "", usageError{"login: give the server's NAME in --config"}
	}
	servers, err := mcpconnector.LoadConfig(config)
	if err != nil {
		return "", "", usageError{"login: --config: " + err.Error()}
	}
	for _, s := range servers {
		if s.Name == positional[0] || s.Name == toolname.Sanitize(positional[0]) {
			if s.URL == "" {
				return "", "", usageError{fmt.Sprintf("login: %s is a command, not a remote server: it needs no sign-in", positional[0])}
			}
			return positional[0], s.URL, nil
		}
	}
	return "", "", usageError{fmt.Sprintf("login: %s has no server %q", config, positional[0])}
}

// tokenStore is the OAuth token file (oauthlogin.DefaultPath).
func tokenStore() (*oauthlogin.Store, error) {
	path, err := oauthlogin.DefaultPath()
	if err != nil {
		return nil, err
	}
	return oauthlogin.Open(path), nil
}

// announceSignIn shows the person the authorization URL of the server
// name: on stderr, and in a browser when one can be started ($BROWSER, or
// xdg-open on a desktop). The browser is left running, not waited for.
func announceSignIn(name string, stderr io.Writer) func(string) error {
	return func(u string) error {
		fmt.Fprintf(stderr, "codemode: sign in to %s: open %s\n", termtext.Escape(name), termtext.Escape(u))
		browser := os.Getenv("BROWSER")
		if browser == "" && (os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "") {
			browser, _ = exec.LookPath("xdg-open")
		}
		if browser == "" {
			return nil
		}
		words := strings.Fields(browser)
		cmd := exec.Command(words[0], append(words[1:], u)...)
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(stderr, "codemode: could not start the browser (%v); open the URL yourself\n", err)
			return nil
		}
		return cmd.Process.Release()
	}
}

// withSignIn gives each remote server without an Authorization header an
// OAuth handler over the token file: it sends the saved token (refreshed
// when it expires). When the server asks for a sign-in, a command run by a
// person signs in at once (announceSignIn: a browser, or the URL on
// stderr); one that serves (serving) never opens a browser by itself (it
// retries a server in the background, and nobody may be at the terminal):
// the server is down with the codemode login command to run.
func withSignIn(servers []mcpconnector.Server, config string, serving bool, stderr io.Writer) error {
	var store *oauthlogin.Store
	for i, s := range servers {
		if s.URL == "" || s.OAuth != nil || hasHeader(s.Headers, "Authorization") {
			continue
		}
		if store == nil {
			var err error
			if store, err = tokenStore(); err != nil {
				return err
			}
		}
		open := announceSignIn(s.String(), stderr)
		if serving {
			hint := "codemode login --mcp " + shellQuote(mcpconnector.Server{URL: s.URL}.String())
			if config != "" && s.Name != contract.DefaultNamespace && s.Name != "mcp" {
				hint = "codemode login --config " + shellQuote(config) + " " + s.Name
			}
			open = func(string) error { return fmt.Errorf("not signed in (the server asks for OAuth): run %s", hint) }
		}
		h, err := store.Handler(s.URL, oauthlogin.Options{Open: open})
		if err != nil {
			return fmt.Errorf("MCP server %s: %w", s, err)
		}
		servers[i].OAuth = h
	}
	return nil
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if http.CanonicalHeaderKey(k) == http.CanonicalHeaderKey(name) {
			return true
		}
	}
	return false
}

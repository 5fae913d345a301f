package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/codemode-go/codemode/client"
)

// fetchFlags are --allow-fetch, --fetch-header and --max-fetches (run, mcp
// serve): the host's fetch policy (client.FetchPolicy). Without
// --allow-fetch, fetch is off.
type fetchFlags struct {
	allow       string
	headers     headerFlags
	maxRequests int
}

// headerFlags collects repeated --fetch-header HOST=Name:ENVVAR values.
type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ",") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

func (f *fetchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.allow, "allow-fetch", "", "let programs fetch these origins through the host: HOST[:PORT][,HOST[:PORT]…] (HTTPS; HTTP too for loopback hosts; http://HOST[:PORT] for plain HTTP)")
	fs.IntVar(&f.maxRequests, "max-fetches", 100, "the most requests one program may fetch (with --allow-fetch)")
	fs.Var(&f.headers, "fetch-header", "HOST=Name:ENVVAR: the host adds header Name, valued $ENVVAR, to fetches to HOST (an --allow-fetch entry) and to no other origin, redirects included, and redacts the value from responses (repeatable)")
}

// policy returns the fetch policy, or nil when fetch stays off.
func (f *fetchFlags) policy() (*client.FetchPolicy, error) {
	if f.allow == "" {
		if len(f.headers) > 0 {
			return nil, usageError{"--fetch-header needs --allow-fetch"}
		}
		return nil, nil
	}
	if f.maxRequests < 1 {
		return nil, usageError{fmt.Sprintf("--max-fetches %d: want at least 1", f.maxRequests)}
	}
	p := &client.FetchPolicy{MaxRequests: f.maxRequests}
	for _, o := range strings.Split(f.allow, ",") {
		if o = strings.TrimSpace(o); o != "" {
			p.Allow = append(p.Allow, o)
		}
	}
	for _, h := range f.headers {
		host, rest, ok := strings.Cut(h, "=")
		name, env, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 || host == "" || name == "" || env == "" {
			return nil, usageError{fmt.Sprintf("--fetch-header %q: want HOST=Name:ENVVAR", h)}
		}
		value, set := os.LookupEnv(env)
		if !set {
			return nil, fmt.Errorf("--fetch-header %s: the environment variable %s is not set", h, env)
		}
		if p.Headers == nil {
			p.Headers = map[string]http.Header{}
		}
		if p.Headers[host] == nil {
			p.Headers[host] = http.Header{}
		}
		p.Headers[host].Add(name, value)
	}
	return p, nil
}

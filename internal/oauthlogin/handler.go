package oauthlogin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/codemode-go/codemode/internal/termtext"
)

// Options configure the sign-in to one server.
type Options struct {
	// ClientID and ClientSecret name a client registered with the
	// server's authorization server beforehand; without ClientID, codemode
	// registers itself (dynamic client registration, RFC 7591).
	ClientID, ClientSecret string
	// Open shows the person the authorization URL: it opens a browser, or
	// prints the URL, and returns at once. Required.
	Open func(url string) error
	// Wait bounds how long the person has to consent; default 5 minutes.
	Wait time.Duration
}

// Handler returns the OAuth handler for server (its MCP endpoint URL),
// for mcp.StreamableClientTransport.OAuthHandler. It starts from the token
// stored for server, refreshed when it expires and saved again. When the
// server asks for authorization (no token yet, a refused one, a scope
// step-up), it runs the authorization code flow with PKCE: opts.Open shows
// the person the authorization URL, the authorization server redirects to
// a listener on 127.0.0.1, and the new token is saved. It returns an error
// for an unreadable token file or a missing Open.
func (s *Store) Handler(server string, opts Options) (auth.OAuthHandler, error) {
	if opts.Open == nil {
		return nil, errors.New("oauthlogin: Options.Open is required")
	}
	if opts.Wait <= 0 {
		opts.Wait = 5 * time.Minute
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", port)
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: fetcher(port, opts),
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "codemode",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}},
		RequestRefreshToken: true,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			e := entry{ClientID: c.ClientID, ClientSecret: c.ClientSecret, AuthStyle: c.Endpoint.AuthStyle, AuthURL: c.Endpoint.AuthURL,
				TokenURL: c.Endpoint.TokenURL, Scopes: c.Scopes, Token: tok}
			if err := s.put(server, e); err != nil {
				return nil, err
			}
			return &saving{base: c.TokenSource(ctx, tok), store: s, server: server, e: e, last: tok.AccessToken}, nil
		},
	}
	if opts.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: opts.ClientID}
		if opts.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: opts.ClientSecret}
		}
	}
	e, ok, err := s.get(server)
	if err != nil {
		return nil, err
	}
	if ok {
		// The refresh outlives any one request: it runs on the background
		// context, as oauth2.Config.TokenSource keeps the context it is given.
		cfg.InitialTokenSource = &saving{base: e.config().TokenSource(context.Background(), e.Token), store: s, server: server, e: e, last: e.Token.AccessToken}
	}
	return auth.NewAuthorizationCodeHandler(cfg)
}

// freePort is a loopback port free now, for the redirect listener (the
// redirect URL is registered before the listener is needed).
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("oauthlogin: a loopback port for the redirect: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// fetcher shows the person the authorization URL and waits, on
// 127.0.0.1:port, for the authorization server's redirect with the code.
func fetcher(port int, opts Options) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return nil, fmt.Errorf("oauthlogin: listening for the redirect: %w", err)
		}
		got := make(chan callback, 1)
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: callbackHandler(stateOf(args.URL), got)}
		served := make(chan struct{})
		go func() { // owned here: Shutdown below ends it before return
			defer close(served)
			_ = srv.Serve(ln)
		}()
		defer func() {
			_ = srv.Shutdown(context.Background())
			<-served
		}()
		if err := opts.Open(args.URL); err != nil {
			return nil, fmt.Errorf("oauthlogin: showing the authorization URL: %w", err)
		}
		wait := time.NewTimer(opts.Wait)
		defer wait.Stop()
		select {
		case cb := <-got:
			if cb.refused != "" {
				return nil, fmt.Errorf("oauthlogin: the authorization server refused the sign-in: %s", cb.refused)
			}
			return cb.result, nil
		case <-wait.C:
			return nil, fmt.Errorf("oauthlogin: nobody completed the sign-in within %v (run codemode login)", opts.Wait)
		case <-ctx.Done():
			return nil, fmt.Errorf("oauthlogin: waiting for the sign-in: %w", context.Cause(ctx))
		}
	}
}

// callback is what the redirect brought: the code, or why there is none.
type callback struct {
	result  *auth.AuthorizationResult
	refused string
}

// stateOf is the state parameter of the authorization URL.
func stateOf(authURL string) string {
	u, err := url.Parse(authURL)
	if err != nil {
		return ""
	}
	return u.Query().Get("state")
}

// callbackHandler takes the authorization server's redirect to /callback
// for the sign-in whose state is state; a request for another state (or
// none) is answered 400 and ignored, so another local process cannot end
// the sign-in. The page says the code arrived, not that the sign-in
// worked: the token exchange comes after it, and the terminal says.
func callbackHandler(state string, got chan<- callback) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/callback" || state == "" || q.Get("state") != state {
			http.Error(w, "This is not the redirect of the sign-in codemode is waiting for.", http.StatusBadRequest)
			return
		}
		cb := callback{result: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}}
		switch {
		case q.Get("error") != "":
			cb.refused = termtext.Clean(q.Get("error") + " " + q.Get("error_description"))
		case q.Get("code") == "":
			cb.refused = "no code in the redirect"
		}
		if cb.refused != "" {
			http.Error(w, "The sign-in was refused: "+cb.refused, http.StatusForbidden)
		} else {
			_, _ = w.Write([]byte("codemode received the sign-in; the terminal says whether it completed. You may close this page.\n"))
		}
		select {
		case got <- cb:
		default:
		}
	})
}

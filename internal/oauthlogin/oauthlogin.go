// Package oauthlogin signs codemode in to remote MCP servers that follow
// the MCP authorization specification
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization):
// OAuth 2.1 with PKCE, protected resource and authorization server
// metadata, dynamic or pre-registered clients, scopes from the server's
// challenge. The flow itself is the go-sdk's auth.AuthorizationCodeHandler;
// this package adds what a command-line host needs around it: a browser
// (or a printed URL) and a loopback redirect listener for the person's
// consent, and a token file with 0600 permissions, so that a sign-in
// outlives the process and tokens are refreshed on expiry.
package oauthlogin

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/oauth2"
)

// FileEnv names the token file's path when set (default: codemode/oauth.json
// under the user's configuration directory, os.UserConfigDir).
const FileEnv = "CODEMODE_OAUTH_FILE"

// DefaultPath is the token file: $CODEMODE_OAUTH_FILE, else oauth.json in
// codemode's folder of the user's configuration directory.
func DefaultPath() (string, error) {
	if p := os.Getenv(FileEnv); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("oauth token file: %w (set $%s)", err, FileEnv)
	}
	return filepath.Join(dir, "codemode", "oauth.json"), nil
}

// entry is what the file keeps for one server: the client the
// authorization server knows codemode by, its token endpoint, and the
// token.
type entry struct {
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle"`
	AuthURL      string           `json:"authUrl"`
	TokenURL     string           `json:"tokenUrl"`
	Scopes       []string         `json:"scopes,omitempty"`
	Token        *oauth2.Token    `json:"token"`
}

// config is the OAuth configuration e was saved with (enough to refresh).
func (e entry) config() *oauth2.Config {
	return &oauth2.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret, Scopes: e.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: e.AuthURL, TokenURL: e.TokenURL, AuthStyle: e.AuthStyle}}
}

// Store is the token file, by server URL. It is safe for concurrent use
// within a process; processes that sign in to the same server at once
// keep the last token written.
type Store struct {
	path string
	mu   sync.Mutex
}

// Open returns the store at path (the file need not exist yet).
func Open(path string) *Store { return &Store{path: path} }

// Path is the file's path.
func (s *Store) Path() string { return s.path }

// load reads the file; a missing file is an empty store.
func (s *Store) load() (map[string]entry, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]entry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oauth token file: %w", err)
	}
	var m map[string]entry
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("oauth token file %s: %w", s.path, err)
	}
	if m == nil {
		m = map[string]entry{}
	}
	return m, nil
}

// get returns the entry for server, if any.
func (s *Store) get(server string) (entry, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return entry{}, false, err
	}
	e, ok := m[server]
	return e, ok && e.Token != nil, nil
}

// put records e for server: under a lock on the file (other processes
// write it too), it is read, changed and rewritten whole through a
// temporary file in its folder (0700), renamed, with 0600 permissions.
func (s *Store) put(server string, e entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("oauth token file: %w", err)
	}
	unlock, err := lockFile(s.path)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := s.load()
	if err != nil {
		return err
	}
	m[server] = e
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("oauth token file: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".oauth-*.json")
	if err != nil {
		return fmt.Errorf("oauth token file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, nothing is there
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth token file: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth token file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("oauth token file: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("oauth token file: %w", err)
	}
	return nil
}

// saving is a token source that records each new token it hands out, so a
// refreshed token survives the process.
type saving struct {
	base   oauth2.TokenSource
	store  *Store
	server string
	e      entry

	mu   sync.Mutex
	last string // the access token last recorded
}

// Token returns the base source's token, recording it when it is new. A
// failure to record is not the caller's: the token is still good.
func (t *saving) Token() (*oauth2.Token, error) {
	tok, err := t.base.Token()
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if tok.AccessToken != t.last {
		t.last = tok.AccessToken
		e := t.e
		e.Token = tok
		_ = t.store.put(t.server, e)
	}
	return tok, nil
}

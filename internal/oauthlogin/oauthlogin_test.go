package oauthlogin

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// The token file is written whole with 0600 permissions in a 0700 folder,
// keeps each server's entry apart, and a token source records a refreshed
// token.
func TestStoreKeepsTokensPrivately(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conf", "codemode", "oauth.json")
	s := Open(path)
	if _, ok, err := s.get("https://a.example/mcp"); ok || err != nil {
		t.Fatalf("empty store: %v %v", ok, err)
	}
	a := entry{ClientID: "a", TokenURL: "https://a.example/token", Token: &oauth2.Token{AccessToken: "ta", RefreshToken: "ra", Expiry: time.Unix(2e9, 0)}}
	if err := s.put("https://a.example/mcp", a); err != nil {
		t.Fatal(err)
	}
	if err := s.put("https://b.example/mcp", entry{ClientID: "b", Token: &oauth2.Token{AccessToken: "tb"}}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v %v", info.Mode(), err)
	}
	if dir, err := os.Stat(filepath.Dir(path)); err != nil || dir.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v %v", dir.Mode(), err)
	}
	got, ok, err := Open(path).get("https://a.example/mcp")
	if err != nil || !ok || got.ClientID != "a" || got.Token.RefreshToken != "ra" || !got.Token.Expiry.Equal(a.Token.Expiry) {
		t.Fatalf("entry a read back as %+v %v %v", got, ok, err)
	}

	fresh := &oauth2.Token{AccessToken: "ta2", RefreshToken: "ra2"}
	src := &saving{base: oauth2.StaticTokenSource(fresh), store: s, server: "https://a.example/mcp", e: got, last: "ta"}
	if tok, err := src.Token(); err != nil || tok.AccessToken != "ta2" {
		t.Fatal(tok, err)
	}
	if got, _, _ := s.get("https://a.example/mcp"); got.Token.AccessToken != "ta2" || got.ClientID != "a" {
		t.Fatalf("refreshed token not recorded: %+v", got)
	}
	if got, _, _ := s.get("https://b.example/mcp"); got.Token.AccessToken != "tb" {
		t.Fatalf("another server's entry changed: %+v", got)
	}
}

// A file that is not the store's JSON is an error naming it, never a
// silent empty store that would be overwritten.
func TestStoreRefusesAForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "oauth.json")
	if err := os.WriteFile(path, []byte("[1,2]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(path).get("x"); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("get: %v", err)
	}
	if err := Open(path).put("x", entry{}); err == nil {
		t.Fatal("put over a foreign file succeeded")
	}
	if _, err := Open(path).Handler("https://a.example/mcp", Options{}); err == nil || !strings.Contains(err.Error(), "Open is required") {
		t.Fatalf("Handler without Open: %v", err)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"https://a.example/mcp": {"clientId": "a", "token": {"access_token": "t"}}}`))
	f.Add([]byte(`{"x": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "oauth.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, _ = Open(path).get("https://a.example/mcp") // an error or an entry, never a panic
	})
}

// Writers that share the file (processes, here separate Stores) keep each
// other's entries.
func TestStoreWritersKeepEachOthersEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "oauth.json")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := Open(path).put(fmt.Sprintf("https://s%d.example/mcp", i), entry{ClientID: "c", Token: &oauth2.Token{AccessToken: "t"}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	m, err := Open(path).load()
	if err != nil || len(m) != 8 {
		t.Fatalf("%d entries (%v), want 8", len(m), err)
	}
}

// The redirect listener takes only its own sign-in's redirect: another
// state (or none) is refused and ignored; an error redirect says why; the
// page does not claim a sign-in that the token exchange may still fail.
func TestCallbackHandler(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		code        int
		sent        bool
		refused     string
	}{
		{"another state", "?code=c&state=other", 400, false, ""},
		{"no state", "?code=c", 400, false, ""},
		{"wrong path", "", 400, false, ""},
		{"refused", "?state=s1&error=access_denied&error_description=no%1b[2J", 403, true, "access_denied no"},
		{"no code", "?state=s1", 403, true, "no code in the redirect"},
		{"ok", "?state=s1&code=c1", 200, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan callback, 1)
			path := "/callback"
			if tc.name == "wrong path" {
				path = "/other?state=s1&code=c"
			}
			rec := httptest.NewRecorder()
			callbackHandler("s1", got).ServeHTTP(rec, httptest.NewRequest("GET", path+tc.query, nil))
			if rec.Code != tc.code || strings.Contains(rec.Body.String(), "is signed in") {
				t.Fatalf("answered %d %q", rec.Code, rec.Body)
			}
			select {
			case cb := <-got:
				if !tc.sent || !strings.HasPrefix(cb.refused, tc.refused) || strings.Contains(cb.refused, "\x1b") || (tc.refused == "" && cb.result.Code != "c1") {
					t.Fatalf("sent %+v", cb)
				}
			default:
				if tc.sent {
					t.Fatal("nothing sent")
				}
			}
		})
	}
}

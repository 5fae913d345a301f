package ops

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The endpoint answers health at once, readiness from its checks (503
// with the failing check's reason), and metrics in the Prometheus text
// format from the OpenTelemetry provider.
func TestHandler(t *testing.T) {
	m, err := NewMetrics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	counter, err := m.Provider.Meter("test").Int64Counter("codemode.test.things")
	if err != nil {
		t.Fatal(err)
	}
	counter.Add(context.Background(), 3)
	journalUp := true
	checks := []Check{
		{Name: "runtime", Ready: func(context.Context) error { return nil }},
		{Name: "journal", Ready: func(context.Context) error {
			if journalUp {
				return nil
			}
			return errors.New("connection\nrefused")
		}},
	}
	srv := httptest.NewServer(Handler(checks, m))
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, tc := range []struct {
		path      string
		journalUp bool
		code      int
		want      string
	}{
		{"/healthz", false, 200, "ok"},
		{"/readyz", true, 200, "runtime: ok\njournal: ok\n"},
		{"/readyz", false, 503, "journal: not ready: connection refused\n"},
		{"/metrics", true, 200, "codemode_test_things_total"},
		{"/nothing", true, 404, ""},
	} {
		journalUp = tc.journalUp
		code, body := get(tc.path)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s (journal up %v): %d %q, want %d with %q", tc.path, tc.journalUp, code, body, tc.code, tc.want)
		}
	}
}

// Serve listens on the address it is given (port 0 picks one) and stop
// ends it.
func TestServe(t *testing.T) {
	addr, stop, err := Serve("127.0.0.1:0", Handler(nil, nil), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get("http://" + addr + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatal(res, err)
	}
	res.Body.Close()
	stop()
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Fatal("still serving after stop")
	}
	if _, _, err := Serve("256.0.0.1:1", Handler(nil, nil), t.Logf); err == nil {
		t.Fatal("a bad address was accepted")
	}
}

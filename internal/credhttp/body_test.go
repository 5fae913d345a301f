package credhttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/membudget"
	"github.com/codemode-go/codemode/internal/memtest"
)

// nestedGzip is data gzipped n times over, as a response whose
// Content-Encoding lists gzip n times holds it.
func nestedGzip(t *testing.T, n int, data []byte) []byte {
	t.Helper()
	for range n {
		var b bytes.Buffer
		w, err := gzip.NewWriterLevel(&b, gzip.NoCompression)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data = b.Bytes()
	}
	return data
}

// TestReadBoundsStackedCodings: a response may stack codings, each a
// decompressor of about 45 KiB the host builds before reading a byte.
// Two stacked gzips decode; 1,000 (a body of 27 KB) are refused with an
// error that says how many there are, before the decompressors are built:
// under a budget of 256 MiB the review's 15,000 took the heap up by 650
// MiB and were refused only after.
func TestReadBoundsStackedCodings(t *testing.T) {
	cases := []struct {
		layers int
		err    string // "" for a body that decodes
	}{
		{1, ""},
		{2, ""},
		{1000, "the response's Content-Encoding stacks 1000 codings; the host decodes at most 4"},
	}
	bodies := map[int][]byte{}
	for _, tc := range cases {
		bodies[tc.layers] = nestedGzip(t, tc.layers, []byte(`{"ok":true}`))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Encoding", strings.TrimSuffix(strings.Repeat("gzip, ", n), ", "))
		w.Write(bodies[n])
	}))
	defer srv.Close()
	p := New(func(*url.URL) string { return "" }, nil)
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.layers), func(t *testing.T) {
			b := membudget.New(256<<20, "Limits.MaxInFlightBytes", nil)
			ctx := membudget.WithAccount(context.Background(), b.Open())
			var r *Response
			var err error
			grew := memtest.HeapGrowth(func() { r, err = send(t, p, ctx, "GET", srv.URL+"/?n="+strconv.Itoa(tc.layers), http.Header{}) })
			switch {
			case tc.err == "" && (err != nil || string(r.Body) != `{"ok":true}`):
				t.Fatalf("%d codings: %v", tc.layers, err)
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Fatalf("%d codings: error %v, want %q", tc.layers, err, tc.err)
			case grew > 8<<20:
				t.Fatalf("%d codings took the heap up by %d MiB", tc.layers, grew>>20)
			}
		})
	}
}

package credhttp

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/codemode-go/codemode/internal/membudget"
)

// Response is what a program may see of a response: every configured
// secret replaced, the body decoded.
type Response struct {
	Status     int
	StatusText string      // the reason phrase
	URL        string      // the final URL, after redirects
	Header     http.Header // without Content-Encoding and Content-Length when the body was decoded
	// Body is the decoded body. It, and every buffer that led to it, stays
	// reserved on the call's account (membudget.AccountFrom) until the
	// call ends.
	Body []byte
}

// decoderCost is what the host reserves for one decompressor's state
// (flate's 32 KiB window and its tables).
const decoderCost = 64 << 10

// UnsupportedEncodingError is a response whose Content-Encoding the host
// does not decode: it asks for gzip only, and a body it cannot decode is a
// body it cannot redact.
type UnsupportedEncodingError struct{ Encoding string }

// Error names the coding and the ones the host decodes.
func (e *UnsupportedEncodingError) Error() string {
	return fmt.Sprintf("the response's Content-Encoding %q is not one the host decodes (it asks for gzip; it decodes gzip and deflate)", e.Encoding)
}

// ErrorName makes the program's error a TypeError, as a network error.
func (e *UnsupportedEncodingError) ErrorName() string { return "TypeError" }

// Read reads resp's body (and closes it), decodes it, and returns what the
// program may see of the response. The decoded body is at most max bytes,
// else the error is membudget.ErrTooLarge; its memory is reserved on the
// account in ctx as it arrives, and a reservation past the bound fails with
// the *membudget.ExceededError. A Content-Encoding other than gzip,
// deflate and identity fails with *UnsupportedEncodingError, and more
// than maxCodings (4) stacked codings fail before any decompressor is built.
func (p *Policy) Read(ctx context.Context, resp *http.Response, max int64) (*Response, error) {
	defer resp.Body.Close()
	acct := membudget.AccountFrom(ctx)
	codings, err := contentCodings(resp.Header.Values("Content-Encoding"))
	if err != nil {
		return nil, err
	}
	// Reserved before the decompressors are built.
	if err := acct.Take(int64(len(codings)) * decoderCost); err != nil {
		return nil, err
	}
	body, err := decode(resp.Body, codings)
	if err != nil {
		return nil, err
	}
	hint := int64(-1)
	if len(codings) == 0 {
		hint = resp.ContentLength
	}
	data, err := membudget.ReadAll(acct, body, max, hint)
	if err != nil {
		return nil, err
	}
	out, err := p.red.redact(data, func(n int) error { return acct.Take(int64(n)) })
	if err != nil {
		return nil, err
	}
	var drop []string
	if len(resp.Header.Values("Content-Encoding")) > 0 {
		drop = []string{"Content-Encoding", "Content-Length"}
	}
	return &Response{
		Status:     resp.StatusCode,
		StatusText: p.RedactString(strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))),
		URL:        p.RedactString(resp.Request.URL.String()),
		Header:     p.redactHeader(resp.Header, drop...),
		Body:       out,
	}, nil
}

// maxCodings is the most content codings one response may stack: servers
// send one, and each is a decompressor of about 45 KiB built before a byte
// is read (1,000 stacked gzips fit in a body of 27 KB).
const maxCodings = 4

// contentCodings are the codings of a response's Content-Encoding values
// (RFC 9110 §8.4: in the order they were applied), identity left out; more
// than maxCodings are an error.
func contentCodings(values []string) ([]string, error) {
	var codings []string
	for _, v := range values {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	if len(codings) > maxCodings {
		return nil, stackedCodingsError(len(codings))
	}
	return codings, nil
}

// stackedCodingsError is a response with more than maxCodings codings.
type stackedCodingsError int

// Error says how many codings the response stacks.
func (n stackedCodingsError) Error() string {
	return fmt.Sprintf("the response's Content-Encoding stacks %d codings; the host decodes at most %d", int(n), maxCodings)
}

// ErrorName makes the program's error a TypeError, as a network error.
func (stackedCodingsError) ErrorName() string { return "TypeError" }

// decode returns a reader of body decoded by its codings (contentCodings).
func decode(body io.Reader, codings []string) (io.Reader, error) {
	if len(codings) == 0 {
		return body, nil
	}
	br := bufio.NewReaderSize(body, 512)
	if _, err := br.Peek(1); errors.Is(err, io.EOF) {
		return br, nil // an empty body (a HEAD, a 204) decodes to nothing
	}
	r := io.Reader(br)
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		switch codings[i] {
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(r)
		case "deflate":
			r, err = inflate(r)
		default:
			return nil, &UnsupportedEncodingError{Encoding: codings[i]}
		}
		if err != nil {
			return nil, fmt.Errorf("decoding the response (%s): %w", codings[i], err)
		}
	}
	return r, nil
}

// inflate decodes "deflate", which RFC 9110 §8.4.1.2 defines as the zlib
// format (RFC 1950) but some servers send as raw deflate (RFC 1951): a zlib
// header is recognised by its check bits (RFC 1950 §2.2).
func inflate(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 16)
	if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Connection-level failures are ErrUnavailable, whatever layer of pgx
// reports them; a server's answer about the statement itself is not.
func TestUnavailableClassifiesConnectionErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"conn closed", fmt.Errorf("commit: %w", pgconn.ErrConnClosed), true},
		{"unexpected EOF", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"net error", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}, true},
		{"closed socket", fmt.Errorf("write: %w", net.ErrClosed), true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"cancelled", context.Canceled, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := unavailable(c.err); got != c.want {
				t.Fatalf("unavailable(%v) = %v, want %v", c.err, got, c.want)
			}
			s := &pgStore{where: "h:5432/db"}
			if got := errors.Is(s.wrap("op", c.err), ErrUnavailable); got != c.want {
				t.Fatalf("wrap(%v) is ErrUnavailable: %v, want %v", c.err, got, c.want)
			}
		})
	}
}

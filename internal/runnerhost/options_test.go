package runnerhost

import (
	"strings"
	"testing"
)

func TestNewServerRequiresADriver(t *testing.T) {
	if _, err := NewServer(ServerOptions{Token: []byte("0123456789abcdef0123456789abcdef")}); err == nil || !strings.Contains(err.Error(), "Driver is required") {
		t.Fatalf("NewServer without a driver = %v", err)
	}
}

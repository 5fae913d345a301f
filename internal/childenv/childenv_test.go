package childenv_test

import (
	"slices"
	"testing"

	"github.com/codemode-go/codemode/internal/childenv"
)

func TestBuild(t *testing.T) {
	host := map[string]string{
		"HOME": "/home/a", "PATH": "/usr/bin", "USER": "a", "SHELL": "() { :; }",
		"CODEMODE_RUNNER_TOKEN": "s3cret", "AWS_SECRET_ACCESS_KEY": "k", "LANG": "C.UTF-8",
	}
	getenv := func(k string) string { return host[k] }
	for _, tc := range []struct {
		name       string
		configured map[string]string
		want       []string
	}{
		{"only the inherited set", nil, []string{"HOME=/home/a", "PATH=/usr/bin", "USER=a"}},
		{"configuration adds and overrides", map[string]string{"PATH": "/opt/bin", "API_KEY": "x"},
			[]string{"API_KEY=x", "HOME=/home/a", "PATH=/opt/bin", "USER=a"}},
		{"a configured CODEMODE_ variable is passed as named", map[string]string{"CODEMODE_RUNNER_TOKEN": "given"},
			[]string{"CODEMODE_RUNNER_TOKEN=given", "HOME=/home/a", "PATH=/usr/bin", "USER=a"}},
		{"${NAME} passes a host variable on", map[string]string{"KEY": "${AWS_SECRET_ACCESS_KEY}", "MIXED": "a-${USER}-$HOME-${UNSET}"},
			[]string{"HOME=/home/a", "KEY=k", "MIXED=a-a-$HOME-", "PATH=/usr/bin", "USER=a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := childenv.Build(tc.configured, getenv); !slices.Equal(got, tc.want) {
				t.Errorf("Build = %q, want %q", got, tc.want)
			}
		})
	}
}

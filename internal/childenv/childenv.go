// Package childenv builds the environment of the processes codemode starts
// for others (upstream MCP servers, tools-file commands): a minimal set
// inherited from the host plus what their configuration gives them, so that
// the host's secrets (CODEMODE_RUNNER_TOKEN, cloud credentials, API keys) do
// not reach code that a program can ask to print its environment.
package childenv

import (
	"os"
	"regexp"
	"slices"
	"strings"
)

// inherited lists the host variables a child gets by default: the set the
// official MCP SDKs pass to a stdio server when its configuration gives no
// environment (DEFAULT_INHERITED_ENV_VARS and getDefaultEnvironment in
// https://github.com/modelcontextprotocol/typescript-sdk/blob/main/src/client/stdio.ts;
// the Python SDK's get_default_environment is the same list).
// reference matches ${NAME} in a configured value.
var reference = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*\}`)

func inherited() []string { return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"} }

// Build returns a child's environment as "KEY=value" entries, sorted by
// key: HOME, LOGNAME, PATH, SHELL, TERM and USER as the host has them set
// (a value starting with "()", an exported shell function, is skipped as
// the TypeScript SDK skips it), then configured, which adds or overrides
// entries. In a configured value, ${NAME} is replaced by the host's
// variable NAME (empty when unset), so a configuration can pass a host
// variable on without holding its value; no other "$" is special.
// configured is passed as written, CODEMODE_ variables included: naming a
// variable in a configuration is how its author passes it on deliberately.
// getenv reads the host's environment (os.Getenv when nil).
func Build(configured map[string]string, getenv func(string) string) []string {
	if getenv == nil {
		getenv = os.Getenv
	}
	env := map[string]string{}
	for _, k := range inherited() {
		if v := getenv(k); v != "" && !strings.HasPrefix(v, "()") {
			env[k] = v
		}
	}
	for k, v := range configured {
		env[k] = reference.ReplaceAllStringFunc(v, func(ref string) string {
			return getenv(ref[2 : len(ref)-1])
		})
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

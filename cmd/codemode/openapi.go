package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
)

// openapiFlags are --openapi NAME=SPEC (repeatable), --base-url NAME=URL and
// --header-env NAME=Header:ENVVAR: each document becomes a namespace NAME
// whose requests go to the base URL with headers read from the environment,
// so that credentials stay out of shell history.
type openapiFlags struct {
	specs      []namedValue
	bases      map[string]string
	headers    map[string]http.Header
	headerEnvs []string // the --header-env values as given, for hints
	responses  openapi.ResponseValidation
	loaded     []*openapi.Connector // set by namespaces
}

// responsesFlag parses warn, error or off into an
// openapi.ResponseValidation.
func responsesFlag(flagName string, dst *openapi.ResponseValidation) func(string) error {
	return func(s string) error {
		switch s {
		case "warn":
			*dst = openapi.ResponsesWarn
		case "error":
			*dst = openapi.ResponsesError
		case "off":
			*dst = openapi.ResponsesOff
		default:
			return fmt.Errorf("--%s %q: want warn, error or off", flagName, s)
		}
		return nil
	}
}

type namedValue struct{ name, value string }

// splitNamed splits NAME=VALUE.
func splitNamed(flagName, s string) (string, string, error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" || value == "" {
		return "", "", fmt.Errorf("--%s %q: want NAME=VALUE", flagName, s)
	}
	return name, value, nil
}

func (o *openapiFlags) register(fs interface {
	Func(name, usage string, fn func(string) error)
}) {
	o.bases, o.headers = map[string]string{}, map[string]http.Header{}
	fs.Func("openapi", "NAME=SPEC: an OpenAPI document (file or URL) whose operations, with request and spec, become the namespace NAME (repeatable)", func(s string) error {
		name, spec, err := splitNamed("openapi", s)
		if err == nil {
			o.specs = append(o.specs, namedValue{name, spec})
		}
		return err
	})
	fs.Func("base-url", "NAME=URL: the base URL of the --openapi namespace NAME (default: the document's first server)", func(s string) error {
		name, u, err := splitNamed("base-url", s)
		if err == nil {
			o.bases[name] = u
		}
		return err
	})
	fs.Func("openapi-responses", "warn (default), error or off: what an --openapi method does with a JSON response that does not match the document (warn: returns it, with a warning on stderr; error: the call fails with a ToolValidationError)", responsesFlag("openapi-responses", &o.responses))
	fs.Func("header-env", "NAME=Header:ENVVAR: send Header with the value of $ENVVAR on every request of the --openapi namespace NAME (repeatable)", func(s string) error {
		name, rest, err := splitNamed("header-env", s)
		if err != nil {
			return err
		}
		header, env, ok := strings.Cut(rest, ":")
		if !ok || header == "" || env == "" {
			return fmt.Errorf("--header-env %q: want NAME=Header:ENVVAR", s)
		}
		value, set := os.LookupEnv(env)
		if !set {
			return fmt.Errorf("--header-env %q: $%s is not set", s, env)
		}
		if o.headers[name] == nil {
			o.headers[name] = http.Header{}
		}
		o.headers[name].Add(header, value)
		o.headerEnvs = append(o.headerEnvs, s)
		return nil
	})
}

// used reports whether any --openapi was given.
func (o *openapiFlags) used() bool { return len(o.specs) > 0 }

// given calls add for each flag as given (--header-env by the variable it
// names, never its value).
func (o *openapiFlags) given(add func(flag, value string)) {
	for _, s := range o.specs {
		add("openapi", s.name+"="+s.value)
	}
	for _, name := range slices.Sorted(maps.Keys(o.bases)) {
		add("base-url", name+"="+o.bases[name])
	}
	for _, h := range o.headerEnvs {
		add("header-env", h)
	}
}

// load checks the flags and loads each document (warnings on stderr); each
// method's approval follows approve (nil: unsafe HTTP methods).
func (o *openapiFlags) load(ctx context.Context, approve func(string) bool, stderr io.Writer) ([]*openapi.Connector, error) {
	warnings := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	names := map[string]bool{}
	for _, s := range o.specs {
		names[s.name] = true
	}
	for name := range o.bases {
		if !names[name] {
			return nil, usageError{fmt.Sprintf("--base-url %s: no --openapi %s=SPEC", name, name)}
		}
	}
	for name := range o.headers {
		if !names[name] {
			return nil, usageError{fmt.Sprintf("--header-env %s: no --openapi %s=SPEC", name, name)}
		}
	}
	var out []*openapi.Connector
	for _, s := range o.specs {
		c, loadWarnings, err := openapi.Load(ctx, s.value, openapi.Options{Name: s.name, BaseURL: o.bases[s.name], Headers: o.headers[s.name], Responses: o.responses, Logger: warnings, Approval: approve, ExposeSpec: true})
		if err := baseURLFault(err, "--openapi "+s.name, "--base-url "+s.name+"=URL"); err != nil {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("--openapi %s: %w", s.name, err)
		}
		for _, w := range loadWarnings {
			fmt.Fprintf(stderr, "codemode: warning: --openapi %s: %s\n", s.name, oneLine(w))
		}
		out = append(out, c)
	}
	return out, nil
}

// namespaces loads each document (warnings on stderr) and returns its
// namespace.
func (o *openapiFlags) namespaces(ctx context.Context, approve func(string) bool, stderr io.Writer) ([]contract.Namespace, error) {
	cs, err := o.load(ctx, approve, stderr)
	if err != nil {
		return nil, err
	}
	o.loaded = cs
	var out []contract.Namespace
	for _, c := range cs {
		ns, err := c.Namespace()
		if err != nil {
			return nil, fmt.Errorf("--openapi %s: %w", c.Name(), err)
		}
		out = append(out, ns)
	}
	return out, nil
}

// fingerprint adds each loaded document's configuration items
// (openapiFingerprint).
func (o *openapiFlags) fingerprint(into map[string]string) error {
	for _, c := range o.loaded {
		if err := openapiFingerprint(into, c, o.headers[c.Name()]); err != nil {
			return fmt.Errorf("--openapi %s: %w", c.Name(), err)
		}
	}
	return nil
}

// baseURLFault rewords openapi.Load's *openapi.BaseURLError for the
// command line: source is where the document came from ("--openapi
// NAME", "--spec") and setting the flag that sets a base URL ("--base-url
// NAME=URL"), said where the error says how a Go caller sets one
// (Options.BaseURL). Any other err is nil.
func baseURLFault(err error, source, setting string) error {
	var be *openapi.BaseURLError
	if !errors.As(err, &be) {
		return nil
	}
	return fmt.Errorf("%s: no usable base URL: %s (give %s: the server its calls go to)", source, be.Reason, setting)
}

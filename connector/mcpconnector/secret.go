package mcpconnector

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/codemode-go/codemode/internal/childenv"
	"github.com/codemode-go/codemode/internal/termtext"
)

// keyFlag matches a command-line flag or variable name that holds a
// credential: --api-key, --access-token, CLIENT_SECRET, password=...
var keyFlag = regexp.MustCompile(`(?i)(key|token|secret|passw|credential|auth|bearer|cookie|session)`)

// keyPrefixes start credentials whatever their flag: Stripe (sk_, rk_),
// OpenAI and Anthropic (sk-), GitHub (ghp_, github_pat_, gho_), Slack
// (xox), AWS access keys (AKIA), Google API keys (AIza), Firecrawl (fc-).
var keyPrefixes = []string{"sk_", "sk-", "rk_", "pk_live", "ghp_", "gho_", "ghs_", "github_pat_", "xox", "AKIA", "AIza", "fc-", "glpat-", "Bearer "}

// looksSecret reports whether a value looks like a credential: a known
// prefix, or a long run of letters and digits mixed (20 or more
// characters, no path or URL punctuation).
func looksSecret(v string) bool {
	for _, p := range keyPrefixes {
		if strings.HasPrefix(v, p) && len(v) > len(p)+4 {
			return true
		}
	}
	if len(v) < 20 || strings.ContainsAny(v, "/.:@ ") {
		return false
	}
	letters, digits := false, false
	for _, r := range v {
		switch {
		case unicode.IsLetter(r):
			letters = true
		case unicode.IsDigit(r):
			digits = true
		}
	}
	return letters && digits
}

// secrets are the values of s's configuration that may be credentials,
// longest first: the environment and header values whose name says key,
// token, secret, password, credential, auth, cookie or session, or that
// look like a key themselves (environment values as written and with their
// ${NAME} references expanded), and the arguments that look like keys or
// follow a flag named like one (--api-key VALUE, --api-key=VALUE). Values
// shorter than 4 characters are left: redacting "1" would garble every
// message.
func (s Server) secrets() []string {
	var out []string
	add := func(v string) {
		if len(v) >= 4 {
			out = append(out, v)
		}
	}
	for _, kv := range childenv.Build(s.Env, nil) {
		// As the server gets them: ${NAME} references expanded.
		k, v, _ := strings.Cut(kv, "=")
		if written, ok := s.Env[k]; ok && (keyFlag.MatchString(k) || looksSecret(v) || looksSecret(written)) {
			add(v)
			add(written)
		}
	}
	for k, v := range s.Headers {
		if keyFlag.MatchString(k) || looksSecret(v) {
			add(v)
			if _, token, ok := strings.Cut(v, " "); ok {
				add(token) // "Bearer TOKEN": the token alone, as a server may echo it
			}
		}
	}
	for i, a := range s.Args {
		name, value, isPair := strings.Cut(a, "=")
		switch {
		case isPair && keyFlag.MatchString(name), looksSecret(a):
			add(a)
			add(value)
		case isPair && looksSecret(value):
			add(value)
		case strings.HasPrefix(a, "-") && keyFlag.MatchString(a) && i+1 < len(s.Args):
			add(s.Args[i+1])
		}
	}
	if u, err := url.Parse(s.URL); err == nil && s.URL != "" {
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
		for _, seg := range strings.Split(u.Path, "/") {
			if looksSecret(seg) {
				add(seg)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}

// redactURL is a URL for messages: no user information or query, and "…"
// for a path segment that looks like a key.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	segs := strings.Split(u.Path, "/")
	for i, seg := range segs {
		if looksSecret(seg) {
			segs[i] = "…"
		}
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.Join(segs, "/")}).String()
}

// redactor replaces a server's secrets in text relayed from it (its stderr,
// its error messages), so that a server that echoes its key does not put
// it in a terminal, a log or a program's error.
type redactor struct{ r *strings.Replacer }

func newRedactor(s Server) redactor {
	var pairs []string
	for _, v := range s.secrets() {
		pairs = append(pairs, v, "[redacted]")
	}
	return redactor{strings.NewReplacer(pairs...)}
}

// clean is text from a server made safe to print: its secrets redacted,
// terminal escape sequences (ANSI colours, OSC titles) removed and other
// control characters but newline and tab written as \xNN (termtext.Clean),
// and invalid UTF-8 replaced.
func (r redactor) clean(text string) string {
	return r.r.Replace(termtext.Clean(text))
}

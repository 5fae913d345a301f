package client

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/codemode-go/codemode/contract"
)

// withUnavailable returns setup, a scope setup's text, extended for c's
// unavailable namespaces (contract.Namespace.Unavailable): each becomes a
// Proxy over the runner's namespace whose members the namespace lacks
// reject with a TypeError naming the namespace as unavailable and why,
// instead of the runner's "unknown tool …: the contract declares (none)".
// Keys the runner's namespace answers (its tools, members a setup
// defined, reserved keys such as then) pass through. A contract with no
// unavailable namespace keeps setup as it is, so its programs pay nothing.
func withUnavailable(setup string, c *contract.Contract) string {
	why := map[string]string{}
	for _, n := range c.Namespaces() {
		if n.Unavailable != "" {
			why[n.Name] = " is unavailable: namespace " + n.Name + " has no tools: " + n.Unavailable +
				". No change to the program makes it available; whoever runs codemode must fix it."
		}
	}
	if len(why) == 0 {
		return setup
	}
	table, _ := json.Marshal(why) // a map of strings always encodes
	return `(s: any, define?: any): any => { const r: any = (` + setup + `)(s, define); ` +
		`const u: any = ` + string(table) + `; const o: any = { ...r }; ` +
		`for (const n of Object.keys(u)) { if (r[n] === undefined) continue; ` +
		`o[n] = new Proxy(r[n], { get: (t: any, p: any) => { if (typeof p !== "string" || p in t) return t[p]; ` +
		`const v = t[p]; return v === undefined ? v : () => Promise.reject(new TypeError(n + "." + p + u[n])); } }); } ` +
		`return o; }`
}

// unavailableNote is what a type-check report adds for program, a source
// that does not type-check: for each of c's unavailable namespaces the
// program names (its name before ".", "?." or "["), that it has no tools
// and why. The compiler's own words for such a call ("Property 'read_file'
// does not exist on type 'FilesTools'") would send a model looking for
// another name. It is "" when the program names none.
func unavailableNote(c *contract.Contract, program string) string {
	var b strings.Builder
	for _, n := range c.Namespaces() {
		if n.Unavailable == "" {
			continue
		}
		named := regexp.MustCompile(`(^|[^\w$.])` + regexp.QuoteMeta(n.Name) + `\s*(\?\.|\.|\[)`)
		if named.MatchString(program) {
			b.WriteString("\nNamespace " + n.Name + " has no tools now: " + n.Unavailable +
				". No change to the program makes its tools available; whoever runs codemode must fix it.")
		}
	}
	return b.String()
}

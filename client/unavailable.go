package client

import (
	"encoding/json"

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

package main

import (
	"maps"
	"slices"
	"strings"
)

// recordedFlags spells the connector flags a run's recorded configuration
// (store.Execution.Configuration, the items contractFlags.fingerprint
// writes) says it used, for the commands a pause suggests when the
// command was not given the flags: --tools FILE for a tools file's digest;
// --openapi NAME=SPEC, its --base-url as recorded and a --header-env per
// header name for each OpenAPI namespace; --mcp SERVER for a server named
// as --mcp names it (codemode or mcp), --config CONFIG for the others.
// The journal keeps digests, not paths, commands or secrets: those are
// placeholders, and note says what each one stands for. Both are "" when
// the configuration records no such item (a journal older than the
// configuration, or a Go program's run).
func recordedFlags(conf map[string]string) (flags, note string) {
	var b strings.Builder
	var notes []string
	if _, ok := conf["tools file"]; ok {
		b.WriteString(" --tools FILE")
		notes = append(notes, "FILE: the tools file the run used")
	}
	var mcp, config []string
	openapi, headers := false, false
	for _, key := range slices.Sorted(maps.Keys(conf)) {
		if name, ok := strings.CutSuffix(key, " document"); ok {
			b.WriteString(" --openapi " + shellQuote(name+"=") + "SPEC")
			openapi = true
			if base, ok := conf[name+" base URL"]; ok {
				b.WriteString(" --base-url " + shellQuote(name+"="+base))
			}
			for _, h := range strings.Split(conf[name+" header names"], ", ") {
				if h != "" && h != "none" {
					b.WriteString(" --header-env " + shellQuote(name+"="+h+":") + "ENVVAR")
					headers = true
				}
			}
		}
		if name, ok := strings.CutSuffix(key, " MCP server"); ok {
			if name == "codemode" || name == "mcp" {
				mcp = append(mcp, name)
			} else {
				config = append(config, name)
			}
		}
	}
	if openapi {
		notes = append(notes, "SPEC: the OpenAPI document of that namespace")
	}
	if headers {
		notes = append(notes, "ENVVAR: a variable holding that header's value")
	}
	if len(config) > 0 {
		b.WriteString(" --config CONFIG")
		notes = append(notes, "CONFIG: the mcpServers file naming the MCP server(s) "+strings.Join(config, ", "))
	}
	if len(mcp) > 0 {
		b.WriteString(" --mcp SERVER")
		notes = append(notes, "SERVER: the command line or URL of the MCP server "+mcp[0])
	}
	if b.Len() == 0 {
		return "", ""
	}
	return escapeControls(b.String()), escapeControls("(" + strings.Join(notes, "; ") + "; the journal keeps digests and names, not paths, commands or values)")
}

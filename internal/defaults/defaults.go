// Package defaults holds the values public packages give zero option
// fields, so that the command line's flags show the same defaults without
// the packages exporting them. Each value is stated in words in the field's
// documentation too.
package defaults

import "time"

// MCPConnectTimeout is mcpconnector.Options.ConnectTimeout's default: long
// enough for npx to start a cached package, short enough that a server
// that hangs does not hold the others' users for a minute.
const MCPConnectTimeout = 15 * time.Second

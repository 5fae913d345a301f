// Package drivers is the surface a runtime driver implements, the way
// database/sql/driver is for database drivers. A [Driver] boots an
// environment (a QuickJS engine in wazero, a Node.js process, a socket to a
// remote runner host), attaches a runner to a byte channel and reports when
// the environment ends. Everything above the bytes (the ready handshake,
// execution ids, the wire protocol, tools and validation) lives once, in
// package client.
package drivers

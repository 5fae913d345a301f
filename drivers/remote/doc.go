// Package remote runs programs on another machine: [Server] is a runner
// host that accepts connections on TCP or a unix socket and boots one
// runtime of a local driver (QuickJS or Node.js) per connection, and
// [Driver] is the client side, a drivers.Driver whose connections are
// sockets to such a host (`codemode runner serve`). Before any execution,
// both sides prove that they hold a pre-shared token (HMAC-SHA256 over
// fresh nonces from each side, compared in constant time), optionally
// inside mutual TLS; then the socket carries the wire protocol unchanged,
// and the host relays it frame by frame, tracking which executions are in
// flight so that it can close idle connections and drain on shutdown.
// PROTOCOL.md in this folder documents the handshake, refusals and
// draining. Bad input from a socket ends only that connection.
package remote

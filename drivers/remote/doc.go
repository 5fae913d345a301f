// Package remote runs programs on another machine: [New] returns a
// drivers.Driver whose connections are sockets to a runner host
// (`codemode runner serve`, on TCP or a unix socket), which boots one
// runtime of its own driver (QuickJS or Node.js) per connection. Before any
// execution, both sides prove that they hold a pre-shared token
// (HMAC-SHA256 over fresh nonces from each side, compared in constant
// time), optionally inside mutual TLS; then the socket carries the wire
// protocol unchanged. PROTOCOL.md in this folder documents the handshake,
// refusals and draining.
package remote

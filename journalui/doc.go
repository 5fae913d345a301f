// Package journalui is the durable journal's web page: an http.Handler
// that lists a journal's executions, shows one with its code, tool log,
// console lines and error, and lets a person approve or reject the actions
// awaiting approval, answer an uncertain action (it happened, run it
// again, or reject), and roll back ended runs. Pages update live (server-sent
// events) when any process changes the journal.
//
// The page is plain server-rendered HTML (html/template) with one small
// script served as a file; its assets are embedded, so nothing is built or
// fetched from elsewhere.
//
// # Security
//
// Everything a program or a tool produced (code, arguments, results,
// errors, console lines) is data from an untrusted source and is only ever
// rendered escaped by html/template. Every response carries a strict
// Content-Security-Policy (scripts and styles from the page's own origin
// only, no inline script), so markup that escaped by mistake would still
// not run.
//
// Without Options.Token the handler serves loopback clients only, and only
// under a loopback host name (localhost, 127.0.0.1, [::1]), which defeats
// DNS rebinding. With a token, every page needs a login: the token is
// compared in constant time and a cookie derived from it (never the token
// itself) keeps the session. State changes are POST requests that carry a
// CSRF token tied to the session and the handler's random secret, and a
// cross-origin Origin header is refused.
//
// Live updates never move a decision under the person's cursor: the runs
// awaiting a decision are listed oldest first (a new pause goes below),
// and after an update the script holds (disables) for a second every
// decision button that is new or has moved, so that a click meant for
// what was there does not approve what a program just put in its place.
package journalui

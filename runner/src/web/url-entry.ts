// The entry of the URL bundle (runner/internal/bundle builds it apart from
// the runner and embeds it as text, evaluated on first use of URL or
// URLSearchParams): whatwg-url, the reference implementation of the WHATWG
// URL Standard (https://github.com/jsdom/whatwg-url, MIT), with its
// dependency @exodus/bytes replaced by ./exodus-bytes (UTF-8 only).
export { URL, URLSearchParams } from "whatwg-url";

//go:build !unix

package oauthlogin

// lockFile is a no-op where flock(2) is missing: processes that write the
// token file at once may lose each other's entries (sign in again).
func lockFile(string) (func(), error) { return func() {}, nil }

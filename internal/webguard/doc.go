// Package webguard holds the checks every loadlab web server on a tester's
// machine shares, so that a page the tester happens to have open in a
// browser cannot use it: whether an address is reachable beyond this
// machine (and so needs a token), a fresh random token, whether a request
// was sent by a page of another site, and whether its Host header names
// this machine (a page whose own name resolves to 127.0.0.1, DNS
// rebinding, is same-origin with itself and is stopped there). The
// origin's admin API, the live view and the archive's results site use it.
package webguard

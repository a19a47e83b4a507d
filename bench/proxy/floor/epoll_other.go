//go:build !linux || loadlab_portable

package main

import "errors"

// runEpoll needs Linux's epoll.
func runEpoll(listen, upstream string, size int, rewrite bool) error {
	return errors.New("-mode epoll: Linux only")
}

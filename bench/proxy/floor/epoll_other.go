//go:build !linux

package main

import "errors"

// runEpoll needs Linux's epoll.
func runEpoll(listen, upstream string, size int) error {
	return errors.New("-mode epoll: Linux only")
}

package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// A pod keeps its shard's results in its own volume and hands them over to
// the collector (kubectl exec ... loadlab fleet collect), with no service of
// loadlab's in the cluster. Three files say where the hand-over stands:
//
//	FILE            the results, written by the attack
//	FILE.end        the attack's exit code, written when it has ended
//	FILE.collected  written by the collector once it has every byte
//
// The pod waits for FILE.collected (or its hold time) before it exits, so
// the Job completes only when every shard is safe on the user's machine.

// EndFile and CollectedFile name the markers of a results file.
func EndFile(file string) string       { return file + ".end" }
func CollectedFile(file string) string { return file + ".collected" }

// MarkEnded records that the attack writing file has ended with code.
func MarkEnded(file string, code int) error {
	tmp := EndFile(file) + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(code)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, EndFile(file))
}

// Hold waits until the collector has taken file, hold has passed or ctx is
// done (the pod is being stopped). It reports whether the file was taken.
func Hold(ctx context.Context, file string, hold time.Duration, poll time.Duration) bool {
	deadline := time.NewTimer(hold)
	defer deadline.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		if _, err := os.Stat(CollectedFile(file)); err == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		case <-tick.C:
		}
	}
}

// Collect copies file to w from byte offset from on, following it while
// the attack writes, until the attack has ended and every byte is copied;
// then it marks the file collected. It returns the attack's exit code. A
// collector cut off half way resumes with from set to what it already has.
func Collect(ctx context.Context, file string, from int64, w io.Writer, poll time.Duration) (int, error) {
	var f *os.File
	for f == nil {
		var err error
		if f, err = os.Open(file); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				return 0, err
			}
			if code, ended := endCode(file); ended {
				// The attack ended without writing a results file.
				return code, fmt.Errorf("the attack ended (exit %d) without writing %s", code, file)
			}
			if err := sleep(ctx, poll); err != nil {
				return 0, err
			}
		}
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return 0, err
	}
	buf := make([]byte, 256<<10)
	for {
		// Look for the end marker before reading: once it is there the
		// attack has closed the file, so reading to EOF takes every byte.
		code, ended := endCode(file)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return 0, werr
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return 0, err
			}
		}
		if ended {
			if err := os.WriteFile(CollectedFile(file), nil, 0o644); err != nil {
				return code, err
			}
			return code, nil
		}
		if err := sleep(ctx, poll); err != nil {
			return 0, err
		}
	}
}

// endCode reads the attack's exit code from the end marker.
func endCode(file string) (int, bool) {
	b, err := os.ReadFile(EndFile(file))
	if err != nil {
		return 0, false
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		// A marker being written: not ended yet.
		return 0, false
	}
	return code, true
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

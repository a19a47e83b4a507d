package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Size caps of what archive add reads (docs/archive.md, "What add reads").
const (
	// MaxFileBytes is the largest file archive add stores.
	MaxFileBytes = 64 << 30
	// MaxParsedBytes is the largest file archive add reads into memory to
	// parse it: summary.json, and samples.json or samples.csv when a
	// matrix cell keeps only its own steps' samples.
	MaxParsedBytes = 256 << 20
	// MaxPlanBytes is the largest plan copy stored with a run as its plan.
	MaxPlanBytes = 1 << 20
)

// folder is a run folder opened for reading: every file is opened
// through an os.Root, so that no name, `..` or link, however it changes
// while the add runs, reaches a file outside it. The root stays open
// while the bundles made of the folder are read (archive add is one
// process: it ends with them).
type folder struct {
	dir  string
	root *os.Root
}

func openFolder(dir string) (*folder, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, badinput.Wrap(dir, err)
	}
	return &folder{dir: dir, root: root}, nil
}

// diskRef is one regular file to read: of a run folder (through its
// root) or named on the command line. It is checked to be a regular file
// when found and again, on the open file, each time it is opened; it is
// read no further than its size when found, and must still hold that
// much.
type diskRef struct {
	root *os.Root // nil: path as named
	name string   // in root, slash-separated
	path string   // as the user knows it, for messages
	size int64
}

// refuse is the one-line refusal of a file archive add does not read.
func refuse(path, format string, args ...any) error {
	return badinput.At(path, 0, "%s: archive add stores only regular files inside the run folder", fmt.Sprintf(format, args...))
}

// kind names a file's type for a refusal ("a FIFO").
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a link"
	}
	return "not a regular file"
}

// checkRegular refuses what is not a regular file, or is larger than
// MaxFileBytes.
func checkRegular(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return refuse(path, "is %s", kind(fi.Mode()))
	}
	if fi.Size() > MaxFileBytes {
		return badinput.At(path, 0, "is %d bytes, more than the %d GiB archive add stores of one file", fi.Size(), MaxFileBytes>>30)
	}
	return nil
}

// checkName refuses a name from summary.json or a plan that is absolute
// or climbs out with `..`; field names where it came from.
func (f *folder) checkName(field, name string) error {
	if !filepath.IsLocal(filepath.FromSlash(name)) {
		return badinput.At(filepath.Join(f.dir, "summary.json"), 0, "%s: %q is outside the run folder (absolute, or through ..): archive add stores only files inside it", field, name)
	}
	return nil
}

// stat finds a file of the folder. A file that does not exist is
// fs.ErrNotExist (for the caller to skip); a link leaving the folder, a
// FIFO, device, socket or directory is refused.
func (f *folder) stat(name string) (diskRef, error) {
	path := filepath.Join(f.dir, filepath.FromSlash(name))
	if !filepath.IsLocal(filepath.FromSlash(name)) {
		return diskRef{}, refuse(path, "is outside the run folder")
	}
	fi, err := f.root.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := f.root.Lstat(name); lerr != nil {
			return diskRef{}, err // absent, not a dangling link
		}
	}
	if err != nil {
		return diskRef{}, f.escape(path, err)
	}
	if err := checkRegular(path, fi); err != nil {
		return diskRef{}, err
	}
	return diskRef{root: f.root, name: name, path: path, size: fi.Size()}, nil
}

// escape is the refusal of a file the root would not open: a link (or a
// folder on its way) that leads out of the run folder.
func (f *folder) escape(path string, err error) error {
	target := ""
	if t, terr := filepath.EvalSymlinks(path); terr == nil {
		target = " (" + t + ")"
	} else if t, lerr := os.Readlink(path); lerr == nil {
		target = " (" + t + ")"
	}
	if target != "" || strings.Contains(err.Error(), "escapes") {
		return refuse(path, "is a link to outside the run folder%s", target)
	}
	return badinput.Wrap(path, err)
}

// argFile is a file named on the command line: a link is followed (the
// user named it), but it must be a regular file.
func argFile(path string) (diskRef, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return diskRef{}, badinput.Wrap(path, err)
	}
	if !fi.Mode().IsRegular() {
		return diskRef{}, badinput.At(path, 0, "is %s: archive add reads only regular files and run folders", kind(fi.Mode()))
	}
	if err := checkRegular(path, fi); err != nil {
		return diskRef{}, err
	}
	return diskRef{name: path, path: path, size: fi.Size()}, nil
}

// open opens the file without blocking (a FIFO put in its place since it
// was found opens at once, and is then refused), checks the open file is
// still a regular file of at least its size, and returns a reader of its
// size that checks ctx before every read.
func (d diskRef) open(ctx context.Context) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var fh *os.File
	var err error
	if d.root != nil {
		fh, err = d.root.OpenFile(d.name, os.O_RDONLY|openNonblock, 0)
	} else {
		fh, err = os.OpenFile(d.name, os.O_RDONLY|openNonblock, 0)
	}
	if err != nil {
		return nil, badinput.Wrap(d.path, err)
	}
	fi, err := fh.Stat()
	if err == nil {
		err = checkRegular(d.path, fi)
	}
	if err == nil && fi.Size() < d.size {
		err = badinput.At(d.path, 0, "shrank from %d to %d bytes while being added", d.size, fi.Size())
	}
	if err != nil {
		fh.Close()
		return nil, err
	}
	return &boundedFile{ctx: ctx, f: fh, path: d.path, left: d.size}, nil
}

// readAll reads the whole file into memory, refusing one larger than max.
func (d diskRef) readAll(ctx context.Context, max int64) ([]byte, error) {
	if d.size > max {
		return nil, badinput.At(d.path, 0, "is %d bytes, more than the %d MiB archive add reads of it", d.size, max>>20)
	}
	rc, err := d.open(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	buf := make([]byte, d.size)
	if _, err := io.ReadFull(rc, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// readChunk is how much boundedFile reads at most at once: ctx is
// checked between reads of at most this much.
const readChunk = 1 << 20

// boundedFile reads a file's first left bytes, and no more, checking ctx
// before each read.
type boundedFile struct {
	ctx  context.Context
	f    *os.File
	path string
	left int64
}

func (b *boundedFile) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	if len(p) > readChunk {
		p = p[:readChunk]
	}
	n, err := b.f.Read(p)
	b.left -= int64(n)
	if err == io.EOF && b.left > 0 {
		return n, badinput.At(b.path, 0, "ended %d bytes short of its size: it changed while being added", b.left)
	}
	if err == io.EOF {
		err = nil
	}
	return n, err
}

func (b *boundedFile) Close() error { return b.f.Close() }

// walk lists the regular files under sub (a folder of the run folder),
// relative to the folder, slash-separated, sorted. A sub that leads out
// of the folder is refused; inside it, links, FIFOs, devices and sockets
// are skipped, each with a warning.
func (f *folder) walk(field, sub string) (names, warns []string, err error) {
	sub = filepath.ToSlash(filepath.Clean(sub))
	if err := f.checkName(field, sub); err != nil {
		return nil, nil, err
	}
	if _, err := f.root.Stat(sub); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := f.root.Lstat(sub); lerr != nil {
				return nil, nil, nil
			}
		}
		return nil, nil, f.escape(filepath.Join(f.dir, filepath.FromSlash(sub)), err)
	}
	werr := fs.WalkDir(f.root.FS(), sub, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == sub {
				return f.escape(filepath.Join(f.dir, filepath.FromSlash(p)), err)
			}
			warns = append(warns, fmt.Sprintf("%s: skipped (%v)", filepath.Join(f.dir, filepath.FromSlash(p)), err))
			return nil
		}
		switch {
		case d.Type().IsRegular():
			names = append(names, p)
		case d.IsDir():
		default:
			warns = append(warns, fmt.Sprintf("%s: skipped, %s: archive add stores only regular files inside the run folder", filepath.Join(f.dir, filepath.FromSlash(p)), kind(d.Type())))
		}
		return nil
	})
	if werr != nil {
		return nil, warns, werr
	}
	return names, warns, nil
}

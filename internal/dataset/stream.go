package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes is the longest record (a line, or the lines a quoted
// field spans) Read accepts when Options.MaxLineBytes is 0: room for a
// million features of 60 characters, yet a damaged or hostile file (a
// gzip bomb of one endless line) cannot make the reader hold gigabytes.
const DefaultMaxLineBytes = 64 << 20

// Sentinel errors of the byte stream, wrapped by *Error.
var (
	ErrLineTooLong = errors.New("line too long")
	ErrTrailing    = errors.New("data after the end of the gzip stream")
)

// lineReader passes the bytes of the (decompressed) file to the csv
// reader, counting lines and refusing a record longer than max bytes
// before csv can buffer it. A record ends at a newline outside double
// quotes, as csv reads it. With cr set, the file's line ends are lone
// carriage returns (classic Mac), translated to newlines.
type lineReader struct {
	r      io.Reader
	max    int64 // < 0: no limit
	cr     bool
	lines  int   // newlines passed
	start  int   // line the current record starts on (1-based)
	n      int64 // bytes of the current record so far
	quoted bool
	err    error
}

func (l *lineReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	k, err := l.r.Read(p)
	for i, c := range p[:k] {
		if c == '\r' && l.cr {
			c, p[i] = '\n', '\n'
		}
		switch c {
		case '"':
			l.quoted = !l.quoted
		case '\n':
			l.lines++
			if !l.quoted {
				l.n, l.start = 0, l.lines+1
				continue
			}
		}
		l.n++
		if l.max >= 0 && l.n > l.max {
			msg := fmt.Errorf("%w: a record of more than %d bytes; a longer one needs a higher limit (Options.MaxLineBytes)", ErrLineTooLong, l.max)
			if l.quoted && l.lines+1 > l.start {
				msg = fmt.Errorf("%w: a quoted field opened on this line runs on for more than %d bytes, over %d lines: is a closing quote missing?", ErrLineTooLong, l.max, l.lines+1-l.start)
			}
			// The records before this one in p are passed on: the csv
			// reader returns them first, then this error.
			l.err = &Error{Line: l.start, Err: msg}
			return i, l.err
		}
	}
	if err != nil && err != io.EOF {
		var e *Error
		switch {
		case errors.As(err, &e):
		case errors.Is(err, ErrTrailing):
			err = &Error{Err: fmt.Errorf("after line %d: %w", l.lines, err)}
		default:
			err = &Error{Line: l.lines + 1, Err: err}
		}
		l.err = err
	}
	return k, err
}

// crOnly reports whether the start of a file, p, has its lines ended by
// lone carriage returns: no newline, and a carriage return.
func crOnly(p []byte) bool {
	return bytes.IndexByte(p, '\n') < 0 && bytes.IndexByte(p, '\r') >= 0
}

// gzipStream decompresses a gzip file of one or more members
// (concatenated gzip files are one file, as for gunzip) and refuses
// anything after the last member that does not start another.
type gzipStream struct {
	br  *bufio.Reader
	z   *gzip.Reader
	err error
}

func newGzipStream(br *bufio.Reader) (*gzipStream, error) {
	z, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	z.Multistream(false)
	return &gzipStream{br: br, z: z}, nil
}

func (g *gzipStream) Read(p []byte) (int, error) {
	for g.err == nil {
		n, err := g.z.Read(p)
		switch {
		case err == io.EOF:
			g.err = g.nextMember()
		case err != nil:
			g.err = fmt.Errorf("gzip: %w", err)
		}
		if n > 0 || len(p) == 0 {
			return n, nil
		}
	}
	return 0, g.err
}

// nextMember starts reading the next member after one ended: io.EOF at
// the end of the file, ErrTrailing if what follows is not gzip.
func (g *gzipStream) nextMember() error {
	p, err := g.br.Peek(2)
	switch {
	case len(p) == 0 && err == io.EOF:
		return io.EOF
	case len(p) == 2 && p[0] == 0x1f && p[1] == 0x8b:
		if err := g.z.Reset(g.br); err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		g.z.Multistream(false)
		return nil
	case len(p) == 0:
		return fmt.Errorf("gzip: %w", err)
	}
	// Count what follows, up to a point, for the message.
	const counted = 1 << 20
	k, _ := io.Copy(io.Discard, io.LimitReader(g.br, counted+1))
	more := fmt.Sprintf("%d bytes", k)
	if k > counted {
		more = "more than 1 MiB"
	}
	return fmt.Errorf("%w: %s that are not gzip follow the compressed data (a damaged or concatenated file?)", ErrTrailing, more)
}

// Package atomicfile writes the files the commands produce (models,
// predictions, figures) so that they are never lost: a file is written to
// a temporary file in its directory, flushed, fsynced and renamed over the
// target, and the directory is fsynced after the rename. Until the rename
// the old file is untouched; after it the new one is complete. A failed
// write, a panic below it, or SIGINT/SIGTERM while it runs removes the
// temporary file (on a signal the process then exits with status 130).
//
// # What may be replaced
//
// The target must be absent or a regular file. A symbolic link, a
// directory, a device node, a named pipe or a socket is refused and left
// untouched: renaming over it would replace the node itself (as root,
// /dev/full with a regular file), and writing through it is not atomic.
// A symbolic link is refused rather than resolved, so that what is
// replaced is always the name given (intermediate directories may be
// links).
//
// # Modes
//
// A replaced file keeps its permission bits (and, where the process may
// set them, its owner and group; a group that cannot be kept loses its
// group bits). A new file is created with the permission handed to Write
// less the umask, as os.OpenFile does: the commands pass 0600 for models,
// which hold the training data, and 0666 for predictions and figures.
//
// # Standard output
//
// Checked wraps a writer such as os.Stdout and keeps its first error, so
// that a command can end with a non-zero status when its output was not
// written (a full disk, a closed pipe) even where the code that wrote it
// did not look at each write's error.
//
// The package stands on the standard library alone; it imports nothing of
// the module, so that the commands and the plots package may both use it.
package atomicfile

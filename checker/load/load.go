// Package load turns paths on disk (or stdin) into a checker.Workspace: it walks directories
// honouring .gitignore, decodes YAML with positions, decodes typed objects, resolves embedded
// documents and derives the kube-proxy instances and the target version.
package load

import (
	"context"
	"io"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Options configure a load.
type Options struct {
	// Paths are files or directories; "-" reads Stdin. Empty means ".".
	Paths []string
	// Stdin is read for the path "-"; StdinName is the name its findings carry.
	Stdin     io.Reader
	StdinName string
	// Target overrides version detection when set.
	Target *checker.Version
	// MaxFileSize skips larger files with a notice; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// Workers bounds parallel decoding; 0 means GOMAXPROCS.
	Workers int
}

// DefaultMaxFileSize is the largest file decoded by default.
const DefaultMaxFileSize = 8 << 20

// Load reads every path and builds the workspace. It returns an error only for usage problems
// (a path that does not exist); bad files become workspace Problems.
func Load(ctx context.Context, opts Options) (*checker.Workspace, error) {
	panic("not implemented yet")
}

// Bytes loads one in-memory file as a workspace, for tests and fuzzing.
func Bytes(name string, content []byte, target *checker.Version) *checker.Workspace {
	panic("not implemented yet")
}

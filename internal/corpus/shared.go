package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// SharedGeneratorDir is where the shared benchmark corpus generator lives, relative to the
// repository root: a separate Go module (standard library only) beside the repository, the
// one the peer comparisons in the issue tracker and docs/performance.md use.
const SharedGeneratorDir = "../shared/bench/gen-corpus"

// SharedGenerator returns the directory of the shared generator for the repository at root,
// or an error saying why there is none (it is not part of this repository: a clone without
// the shared folder beside it has no such generator).
func SharedGenerator(root string) (string, error) {
	dir, err := filepath.Abs(filepath.Join(root, SharedGeneratorDir))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
		return "", fmt.Errorf("no shared corpus generator at %s: %w", dir, err)
	}
	return dir, nil
}

// Shared returns a tree of n files written by the shared generator gen with seed, kept in
// cache so that it is generated once: the directory is named after n, seed and a hash of the
// generator's source, so a changed generator writes a new tree. The generator runs with
// `go run`, into a temporary directory renamed when it is complete.
func Shared(cache, gen string, n, seed int) (string, error) {
	src, err := os.ReadFile(filepath.Join(gen, "main.go"))
	if err != nil {
		return "", fmt.Errorf("read corpus generator: %w", err)
	}
	sum := sha256.Sum256(src)
	dir := filepath.Join(cache, fmt.Sprintf("shared-%s-seed%d-n%d", hex.EncodeToString(sum[:6]), seed, n))
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("generate corpus: %w", err)
	}
	tmp := dir + ".tmp"
	cmd := exec.Command("go", "run", ".", "-n", strconv.Itoa(n), "-seed", strconv.Itoa(seed), "-out", tmp, "-force")
	cmd.Dir = gen
	// The generator is a module of its own: the caller's GOFLAGS (-mod=readonly, a vendor
	// directory) are about this repository.
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("generate corpus: go run %s: %w\n%s", gen, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		if _, statErr := os.Stat(dir); statErr != nil {
			return "", fmt.Errorf("generate corpus: %w", err)
		}
		// Another benchmark process finished the same tree first.
		_ = os.RemoveAll(tmp)
	}
	return dir, nil
}

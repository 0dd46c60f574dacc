package checker

import "github.com/kube-proxy-lint/kube-proxy-lint/checker/text"

// Position is a place in a file (file, 1-based line and column, byte offset). It is declared
// in the text layer (checker/text), which the loader and the lexer share without depending on
// this API; rules and findings use it under this name.
type Position = text.Position

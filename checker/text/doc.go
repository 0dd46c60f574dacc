// Package text is the text layer below the checker API: template placeholders and their
// masking, offset maps from a decoded value back to its source, the line index (offsets to
// lines and columns) and positions. The loader, the API (package checker) and the shell
// lexer (checker/text/shell) use it; it imports nothing of this module.
package text

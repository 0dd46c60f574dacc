package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// usageWidth is the column at which flag descriptions wrap.
const usageWidth = 100

// flagUsages lists fs's flags like pflag's FlagUsages, without the "[=true|false]" noise it
// adds to boolean flags, and with descriptions wrapped under their own column.
func flagUsages(fs *pflag.FlagSet) string {
	type row struct{ left, text string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		name, text := pflag.UnquoteUsage(f)
		if f.Value.Type() != "bool" && name != "" {
			left += " " + name
		}
		if f.Value.Type() != "bool" && f.DefValue != "" && f.DefValue != "[]" {
			text += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		rows = append(rows, row{left, text})
		width = max(width, len(left))
	})
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.left + strings.Repeat(" ", width-len(r.left)+3))
		col := width + 3
		for i, w := range strings.Fields(r.text) {
			if i > 0 && col+1+len(w) > usageWidth {
				b.WriteString("\n" + strings.Repeat(" ", width+3))
				col = width + 3
			} else if i > 0 {
				b.WriteByte(' ')
				col++
			}
			b.WriteString(w)
			col += len(w)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// wrapList joins words with ", " into lines of at most width columns, each indented by indent
// spaces.
func wrapList(words []string, indent, width int) string {
	var b strings.Builder
	col := 0
	for i, w := range words {
		item := w
		if i < len(words)-1 {
			item += ","
		}
		switch {
		case col == 0:
			b.WriteString(strings.Repeat(" ", indent))
			col = indent
		case col+1+len(item) > width:
			b.WriteString("\n" + strings.Repeat(" ", indent))
			col = indent
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(item)
		col += len(item)
	}
	return b.String()
}

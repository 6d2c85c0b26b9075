//go:build !unix

package main

import "io"

// terminalWidth is 0 (unknown) where the terminal's size is not asked for: progress then
// assumes 80 columns, and the report uses COLUMNS or its default.
func terminalWidth(io.Writer) int { return 0 }

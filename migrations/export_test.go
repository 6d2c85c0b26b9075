package migrations

import "io/fs"

// Seams for the external tests, which cannot be internal: pgtest imports this package.
var (
	ApplyList = apply
	Load      = func(fsys fs.FS) ([]Migration, error) { return load(fsys) }
)

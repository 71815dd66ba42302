// A client program built against go-sql-driver/mysql v1.10.1, whose
// compress=true (zlib, since v1.9) the repository's own go-sql-driver (go.mod: v1.8.1)
// lacks; e2e/gosqlcompress_test.go builds and runs it. Its own module so
// the main module keeps its version.
module petrel-gosqlcompress

go 1.24.0

require github.com/go-sql-driver/mysql v1.10.1

require filippo.io/edwards25519 v1.2.0 // indirect

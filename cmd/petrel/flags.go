package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
)

// setUsage makes fs print head, then every flag with its default, on
// whatever output Parse is writing to.
func setUsage(fs *flag.FlagSet, head string) {
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), head)
		fmt.Fprintln(fs.Output(), "\nflags:")
		fs.PrintDefaults()
	}
}

// parseFlags parses args into fs the way command-line tools answer:
// --help prints the usage on stdout and ends the command with status 0; a
// bad flag prints the error and the usage on stderr, status 2. done says
// the command must return code now. Afterwards fs writes to stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(out.Bytes())
		return 0, true
	default:
		stderr.Write(out.Bytes())
		return 2, true
	}
}

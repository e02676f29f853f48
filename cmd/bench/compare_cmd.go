package main

import (
	"errors"
	"io"
)

// cmdCompare implements 'bench compare'. Not implemented yet.
func cmdCompare(stdout, stderr io.Writer, args []string) error {
	return errors.New("not implemented yet")
}

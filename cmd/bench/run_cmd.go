package main

import (
	"errors"
	"io"
)

// cmdRun implements 'bench run'. Not implemented yet.
func cmdRun(stdout, stderr io.Writer, args []string) error {
	return errors.New("not implemented yet")
}

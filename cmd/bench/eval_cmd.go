package main

import (
	"errors"
	"io"
)

// cmdEval implements 'bench eval'. Not implemented yet.
func cmdEval(stdout, stderr io.Writer, args []string) error {
	return errors.New("not implemented yet")
}

package main

import (
	"errors"
	"io"
)

// cmdModel implements 'bench model'. Not implemented yet.
func cmdModel(stdout, stderr io.Writer, args []string) error {
	return errors.New("not implemented yet")
}

package main

import (
	"errors"
	"io"
)

// cmdAttribute implements 'bench attribute'. Not implemented yet.
func cmdAttribute(stdout, stderr io.Writer, args []string) error {
	return errors.New("not implemented yet")
}

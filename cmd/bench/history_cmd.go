package main

import (
	"errors"
	"io"
)

// cmdHistory implements 'bench history'. Not implemented yet.
func cmdHistory(stdout, stderr io.Writer, args []string) error {
	return errors.New("not implemented yet")
}

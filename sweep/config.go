package sweep

import (
	"github.com/ragbench/ragbench/config"
)

// Config is a bench run config (package config owns it: types, Load and
// every value check); sweep runs it.
type Config = config.Config

// LoadOptions are config.Load's overrides.
type LoadOptions = config.LoadOptions

// Load reads and checks the config file at path (config.Load): the first
// step of bench run, before Run.
func Load(path string, opts LoadOptions) (*Config, error) { return config.Load(path, opts) }

// Chunking and Cell are config's: one point of the chunking grid, one
// (chunking, retriever) pair.
type (
	Chunking = config.Chunking
	Cell     = config.Cell
)

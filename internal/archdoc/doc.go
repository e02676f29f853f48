// Package archdoc holds the test that keeps docs/architecture.md current:
// every Go package of the module must have a row in its "Every package"
// table (its path in backquotes), and every row must name a package that
// exists. It has no code of its own.
package archdoc

//go:build race

package main

// raceBinary: under go test -race, the grove binary the tests run is built
// with the race detector too, so that races in a real process (the
// writer's queue behind a pipe, ingest, watch) fail the test that drives
// it.
const raceBinary = true

package main

import "github.com/urfave/cli/v2"

// rootFlag is --root, for the commands that read session directories.
func rootFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "root", Usage: "a directory of session files (repeatable)"}
}

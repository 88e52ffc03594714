package main

import "flag"

// Test flags of this package:
//
//	go test ./cmd/grove -run TestCrash_KillIndexAndRebuild -crash.rounds=100
var crashRounds = flag.Int("crash.rounds", 30, "rounds of TestCrash_KillIndexAndRebuild, each killing grove index or rebuild once (skipped with -short)")

//go:build !race

package main

const raceBinary = false

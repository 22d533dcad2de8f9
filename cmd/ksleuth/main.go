// Command ksleuth is an offline forensic analyzer for Apache Kafka log
// directories. See README.md.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

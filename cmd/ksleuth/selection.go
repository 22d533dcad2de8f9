package main

import (
	"errors"
	"fmt"

	"github.com/ksleuth/ksleuth/analysis/records"
)

// The flags that several commands share to select records and decode
// their values.

const decodeValuesHelp = "auto: decode record values in the Confluent wire format (Avro, JSON Schema; Protobuf recognised) " +
	"with the schemas of the inputs' _schemas topic; none: raw bytes"

func checkDecodeValues(v string) error {
	switch v {
	case "auto", "none":
		return nil
	}
	return usageError{fmt.Errorf("--decode-values must be auto or none, not %q", v)}
}

// windowFlagError names the --since and --until flags in an error of
// records.ParseWindow, which knows the bounds only by their meaning.
func windowFlagError(err error) error {
	var we *records.WindowError
	if !errors.As(err, &we) {
		return err
	}
	switch we.Bound {
	case records.BoundSince:
		return fmt.Errorf("--since: %w", we.Err)
	case records.BoundUntil:
		return fmt.Errorf("--until: %w", we.Err)
	}
	return fmt.Errorf("--since %s is not before --until %s", we.Since, we.Until)
}

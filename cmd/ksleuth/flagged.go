package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// flagged words a command's error for the user: the analysis names what
// an option means, never a flag, and the command line adds the flag that
// sets it.
func flagged(err error) string {
	msg := err.Error()
	var into *source.IntoInputError
	if errors.As(err, &into) && into.Kind == source.SpillDir {
		msg = strings.Replace(msg, into.Error(), into.Error()+": choose another with --tmp or TMPDIR", 1)
	}
	var refused *export.RefusedError
	if errors.As(err, &refused) {
		switch refused.Why {
		case export.HoldsTables:
			msg = strings.Replace(msg, refused.Error(), fmt.Sprintf("%s already holds %s; use --force to replace the tables", refused.Dir, refused.Name), 1)
		case export.Exists:
			msg = strings.Replace(msg, refused.Error(), refused.Dir+" exists; use --force to replace it", 1)
		case export.Foreign:
			msg = strings.Replace(msg, refused.Error(), strings.TrimSuffix(refused.Error(), "output dir")+"--out", 1)
		}
	}
	var none *pipeline.NoTopicMatchError
	if errors.As(err, &none) {
		msg = strings.Replace(msg, none.Error(), fmt.Sprintf("no partition matches --topic %q", none.Pattern), 1)
	}
	var shard *pipeline.ShardError
	var tables *pipeline.TablesError
	switch {
	case errors.As(err, &shard):
		msg = strings.Replace(msg, shard.Error(), "dups --from-tables: "+tableOptions.Replace(shard.Error()), 1)
	case errors.As(err, &tables):
		msg = strings.Replace(msg, tables.Error(), "dups --from-tables: "+tables.Error(), 1)
	}
	return msg
}

// tableOptions says the scan options that the errors about earlier scans'
// tables name as the flags that set them.
var tableOptions = strings.NewReplacer(pipeline.OptionRecords, "--records", pipeline.OptionMatch, "--match",
	pipeline.OptionIgnoreHeaders, "--ignore-header", "drop the options", "drop the flags")

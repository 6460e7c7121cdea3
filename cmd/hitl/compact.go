package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/postgres"
	"github.com/hitlbot/hitl/store"
)

// cmdCompact rewrites a stopped database with only its live pages and
// prints the file size before and after. Retention frees pages for reuse
// but never shrinks the file; this gives the space back to the disk.
func cmdCompact(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("compact", flag.ContinueOnError)
	db := fs.String("db", "", "bbolt database file (HITL_DB; default ./hitl.db)")
	cfgPath := fs.String("config", e.getenv("HITL_CONFIG"), "YAML config file, for its db (HITL_CONFIG; optional)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError(fs, fmt.Sprintf("hitl compact takes no arguments (got %q): name the file with --db", pos[0]))
	}
	path := *db
	if path == "" {
		// The file serve would open: HITL_DB, the config's db, ./hitl.db.
		cfg, err := config.Load(*cfgPath, e.getenv)
		if err != nil {
			return err
		}
		path = cfg.DB
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if postgres.IsURL(path) {
		return usageError(fs, "hitl compact is for a bbolt file: PostgreSQL reclaims space itself (autovacuum; VACUUM FULL for the rest)")
	}
	res, err := store.Compact(path)
	if fault.Code(err) == fault.EUNAVAILABLE {
		return fault.Errorf(fault.EUNAVAILABLE, "%s is open in a running hitl serve: stop the service first, then compact", path)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %s → %s\n", visible(path), byteSize(res.Before), byteSize(res.After))
	return nil
}

// byteSize renders n bytes for people: 512 B, 64.0 KiB, 12.4 MiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// node check.mjs <workspace> <answer-file>: exit 0 when the final answer states the known facts.
import { readFileSync } from "node:fs";

const answer = readFileSync(process.argv[3], "utf8");
const facts = [["wal_flush_ms -> wal_sync_interval", "wal_flush_ms\\W+(?:->|\u2192|replaced by|:)?\\W*wal_sync_interval"], ["cache_mb -> buffer_pool_size", "cache_mb\\W+(?:->|\u2192|replaced by|:)?\\W*buffer_pool_size"], ["replica_lag_alert -> replication.max_lag_ms", "replica_lag_alert\\W+(?:->|\u2192|replaced by|:)?\\W*replication\\.max_lag_ms"]];
const missing = facts.filter(([, pattern]) => !new RegExp(pattern, "i").test(answer)).map(([name]) => name);

if (missing.length > 0) {
  console.log(`the answer misses: ${missing.join("; ")}`);
  process.exit(1);
}
console.log("the answer states every known fact");

// node check.mjs <workspace> <answer-file>: exit 0 when the final answer states the known facts.
import { checkAnswerFacts } from "../_checks/answer-facts.mjs";

checkAnswerFacts(process.argv[3], [["wal_flush_ms -> wal_sync_interval", "wal_flush_ms\\W+(?:->|\u2192|replaced by|:)?\\W*wal_sync_interval"], ["cache_mb -> buffer_pool_size", "cache_mb\\W+(?:->|\u2192|replaced by|:)?\\W*buffer_pool_size"], ["replica_lag_alert -> replication.max_lag_ms", "replica_lag_alert\\W+(?:->|\u2192|replaced by|:)?\\W*replication\\.max_lag_ms"]]);

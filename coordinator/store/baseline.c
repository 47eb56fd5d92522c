/*
 * baseline.c - a run's baseline rows (see store.h): each measurement of a
 * part alone, stored in one transaction with the hashes that cover it.
 */
#include "store.h"

#include "db.h"
#include "hash.h"
#include "rows.h"

#include <string.h>

int st_store_baseline(struct st_store *s, const char *run_id, const char *kind,
		      const char *direction, int server_rank, const char *clients, uint64_t bytes,
		      double seconds, const char *note, int streams, char *err, size_t n)
{
	/* the row and the hashes that cover it in one transaction */
	char cfg[ST_HASH_HEX], stored[ST_HASH_HEX], res[ST_HASH_HEX], before[ST_HASH_HEX] = "",
								      after[ST_HASH_HEX];
	int found;
	if (st_db_begin(s->db, err, n))
		return -1;
	if (st_hash_stored(s->h, run_id, cfg, stored, res, &found, err, n) ||
	    (cfg[0] && st_hash_baselines(s->h, run_id, before, NULL, err, n)))
		goto rollback;
	struct st_row_key key = { .run_id = run_id };
	struct st_baseline_row row = { .kind = kind,
				       .direction = direction,
				       .server_rank = server_rank,
				       .client_ranks = clients,
				       .bytes = bytes,
				       .seconds = seconds,
				       .mbps = seconds > 0 ? (double)bytes / seconds / 1e6 : 0,
				       .note = note,
				       .streams = streams };
	st_bind_baseline(s->ins_baseline, &key, &row);
	if (st_db_step(s->db, s->ins_baseline, err, n))
		goto rollback;
	if (cfg[0]) {
		/* refreshed only when the stored hash still matched the rows */
		if (strcmp(before, stored) == 0 &&
		    (st_hash_baselines(s->h, run_id, after, NULL, err, n) ||
		     st_hash_set(s->set_baseline_hash, run_id, 0, after, err, n)))
			goto rollback;
		if (st_hash_refresh_result(s->h, s->set_result_hash, run_id,
					   strcmp(before, stored) == 0 ? after : stored, err, n))
			goto rollback;
	}
	if (st_db_exec(s->db, "COMMIT", err, n))
		goto rollback;
	return 0;
rollback:
	st_db_rollback(s->db);
	return -1;
}

/*
 * baselines.h - measuring the parts alone before the sweep (collective).
 *
 * For every server rank: its disk under --server-dir (O_DIRECT write and
 * read of --baseline-size), then the network in both directions — client
 * to server (as writes travel) and server to client (as reads travel) —
 * with each client host alone and with all client hosts at once. One rank
 * per client host streams (the host's link is what is measured). Rank 0
 * stores every figure in the baseline table.
 */
#ifndef ST_BASELINES_H
#define ST_BASELINES_H

#include "../../common/options.h"
#include "../../common/wire.h"
#include "../store/store.h"

struct st_baseline_ctx {
	const struct st_config *cfg;
	const struct st_host_info *hosts; /* all ranks */
	const int *roles;		  /* all ranks, enum st_role */
	int rank, size;
	int64_t my_offset;	/* local clock - common clock */
	const char *run_id;
	struct st_store *store; /* rank 0 */
	int quiet;
};

/* Run every baseline; failures are stored as notes, not fatal. */
void st_run_baselines(const struct st_baseline_ctx *b);

#endif

/*
 * baselines.c - network and disk baselines between ranks (see baselines.h).
 */
#include "baselines.h"

#include "../../common/net.h"
#include "../../common/util.h"
#include "../../worker/diskbench.h"
#include "die.h"
#include "roles.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_member(const int *set, int n, int rank)
{
	for (int i = 0; i < n; i++)
		if (set[i] == rank)
			return 1;
	return 0;
}

/* One stream between server s and the client ranks in set[n]. */
static void net_step(const struct st_baseline_ctx *b, int s, const int *set, int n, int c2s,
		     const char *kind)
{
	int64_t dur = b->cfg->o[ST_OPT_BASELINE_TIME].v[0];
	int64_t deadline = st_now_ns() + dur + 15000000000LL;
	int streams = (int)b->cfg->o[ST_OPT_BASELINE_STREAMS].v[0];
	struct st_netbench_msg me = { 0 };
	int port = 0, lfd = -1;
	if (b->rank == s)
		port = st_net_listen(&lfd, &port) ? -1 : port;
	MPI_Bcast(&port, 1, MPI_INT, s, MPI_COMM_WORLD);
	struct st_net_result nr = { 0 };
	if (port > 0 && b->rank == s) {
		int *fds = calloc((size_t)(n * streams), sizeof(int));
		me.rc = fds ? st_net_accept(lfd, n * streams, fds, deadline) : -12;
		if (!me.rc)
			me.rc = st_net_stream_parallel(fds, n * streams, !c2s, dur, deadline, &nr);
		me.receiver = c2s;
		free(fds);
	} else if (port > 0 && is_member(set, n, b->rank)) {
		char addr[sizeof(b->hosts[s].addresses)];
		int fds[ST_BASELINE_STREAMS_MAX], made = 0;
		st_server_address(b->cfg, &b->hosts[s], addr, sizeof(addr));
		for (; made < streams && !me.rc; made++)
			me.rc = st_net_connect_any(addr, port, deadline, &fds[made]);
		if (me.rc)
			for (int i = 0; i < made - 1; i++)
				close(fds[i]);
		else
			me.rc = st_net_stream_parallel(fds, streams, c2s, dur, deadline, &nr);
		me.receiver = !c2s;
	} else if (port <= 0 && b->rank == s) {
		me.rc = -1;
	}
	if (lfd >= 0)
		close(lfd);
	me.bytes = nr.bytes;
	me.first_ns = nr.first_ns - b->my_offset;
	me.last_ns = nr.last_ns - b->my_offset;
	struct st_netbench_msg *all = b->rank == 0 ? calloc((size_t)b->size, sizeof(*all)) : NULL;
	if (b->rank == 0 && !all)
		st_die("out of memory");
	MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (b->rank != 0)
		return;
	uint64_t bytes = 0;
	int64_t first = INT64_MAX, last = INT64_MIN;
	char note[160] = "", clients[256] = "";
	for (int i = 0; i < n; i++) {
		size_t l = strlen(clients);
		snprintf(clients + l, sizeof(clients) - l, "%s%d", i ? "," : "", set[i]);
	}
	for (int r = 0; r < b->size; r++) {
		if (all[r].rc && !note[0])
			snprintf(note, sizeof(note), "rank %d: %s", r, strerror(-all[r].rc));
		if (!all[r].receiver || !all[r].bytes)
			continue;
		bytes += all[r].bytes;
		if (all[r].first_ns < first)
			first = all[r].first_ns;
		if (all[r].last_ns > last)
			last = all[r].last_ns;
	}
	double secs = last > first ? (double)(last - first) / 1e9 : 0;
	char err[ST_ERR_MAX];
	if (st_store_baseline(b->store, b->run_id, kind, c2s ? "c2s" : "s2c", s, clients, bytes,
			      secs, note[0] ? note : NULL, streams, err, sizeof(err)))
		fprintf(stderr, "stcluster: %s\n", err);
	if (!b->quiet)
		printf("baseline %-7s %s server %d <- clients %s x %d streams: %.1f MB/s%s%s\n", kind,
		       c2s ? "c2s" : "s2c", s, clients, streams,
		       secs > 0 ? (double)bytes / secs / 1e6 : 0.0, note[0] ? "  " : "", note);
	free(all);
}

static void disk_step(const struct st_baseline_ctx *b, int s)
{
	struct st_diskbench_msg res = { 0 };
	if (b->rank == s) {
		struct st_diskbench_result dr;
		char name[96];
		snprintf(name, sizeof(name), "stcluster-baseline-%s", b->run_id);
		res.rc = st_diskbench_run(b->cfg->o[ST_OPT_SERVER_DIR].s, name,
					  b->cfg->o[ST_OPT_BASELINE_SIZE].v[0], 1 << 20, &dr, res.msg,
					  sizeof(res.msg));
		res.direct = dr.direct;
		res.w = dr.write_mbps;
		res.r = dr.read_mbps;
	}
	MPI_Bcast(&res, (int)sizeof(res), MPI_BYTE, s, MPI_COMM_WORLD);
	if (b->rank != 0)
		return;
	const char *note = res.rc ? res.msg : res.direct ? NULL : "O_DIRECT refused: page cache in the figure";
	int64_t size = b->cfg->o[ST_OPT_BASELINE_SIZE].v[0];
	char err[ST_ERR_MAX];
	for (int w = 1; w >= 0; w--) {
		double mbps = w ? res.w : res.r;
		if (st_store_baseline(b->store, b->run_id, "disk", w ? "write" : "read", s, NULL,
				      mbps > 0 ? (uint64_t)size : 0, mbps > 0 ? (double)size / 1e6 / mbps : 0,
				      note, 0, err, sizeof(err)))
			fprintf(stderr, "stcluster: %s\n", err);
		if (!b->quiet)
			printf("baseline disk    %-5s server %d (%s): %.1f MB/s%s%s\n", w ? "write" : "read", s,
			       b->cfg->o[ST_OPT_SERVER_DIR].s, mbps, note ? "  " : "", note ? note : "");
	}
}

void st_run_baselines(const struct st_baseline_ctx *b)
{
	if (b->cfg->o[ST_OPT_BASELINE].v[0] != ST_ON)
		return;
	/* one client rank per client host: the lowest */
	int *reps = calloc((size_t)b->size, sizeof(int)), nreps = 0;
	if (!reps)
		st_die("out of memory");
	for (int r = 0; r < b->size; r++) {
		if (b->roles[r] != ST_ROLE_CLIENT)
			continue;
		int first = 1;
		for (int q = 0; q < nreps && first; q++)
			first = strcmp(b->hosts[reps[q]].hostname, b->hosts[r].hostname) != 0;
		if (first)
			reps[nreps++] = r;
	}
	for (int s = 0; s < b->size; s++) {
		if (b->roles[s] != ST_ROLE_SERVER)
			continue;
		if (b->cfg->o[ST_OPT_SERVER_DIR].n)
			disk_step(b, s);
		for (int c2s = 1; c2s >= 0; c2s--) {
			for (int i = 0; nreps > 1 && i < nreps; i++)
				net_step(b, s, &reps[i], 1, c2s, "net_one");
			net_step(b, s, reps, nreps, c2s, "net_all");
		}
	}
	free(reps);
	if (b->rank == 0)
		fflush(stdout);
}

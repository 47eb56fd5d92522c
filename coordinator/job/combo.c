/*
 * combo.c - the one phase script, for one combination (see combo.h).
 *
 * As DESIGN's data flow: prepare on every rank and agree it worked; then
 * per phase: open (a barrier releases every rank at once), the timed I/O,
 * close (clients done; servers sample until then), gather every rank's
 * fixed-width results to rank 0; then rank 0 stores the combination in one
 * transaction. A failed preparation is data: the combination is stored as
 * unprepared (status "failed"), with each rank's message, and the run
 * moves on.
 */
#include "combo.h"

#include "../../common/interval.h"
#include "../../common/phaseopt.h"
#include "../../common/units.h"
#include "../../common/util.h"
#include "../../worker/mount.h"
#include "../../worker/rpcstats.h"
#include "../../worker/worker.h"
#include "../store/store.h"
#include "die.h"
#include "progress.h"
#include "server.h"
#include "steps.h"
#include "stonewall.h"
#include "watch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The phases of combination c that cannot run, and why (the same answer on
 * every rank: a function of the combination only). */
static unsigned skip_phases(const struct job *j, const struct st_combo *c, char *buf, size_t n)
{
	int64_t block = c->v[ST_OPT_BLOCK], size = c->v[ST_OPT_SIZE];
	unsigned skip = 0;
	size_t off;
	buf[0] = '\0';
	if (c->v[ST_OPT_ACCESS] != ST_UNSET && c->v[ST_OPT_LAYOUT] != ST_LAYOUT_SHARED) {
		/* the same work as access unset: stored once, not twice */
		snprintf(buf, n, "access=%s: only with layout=shared (a file per thread is one piece)",
			 st_options[ST_OPT_ACCESS].choices[c->v[ST_OPT_ACCESS]]);
		return j->phases;
	}
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		/* each data phase with its block (its own: a [phase] section) */
		struct st_combo pc;
		st_phase_combo(&j->cfg, p, c, &pc);
		block = pc.v[ST_OPT_BLOCK];
		if (!(j->phases & ST_PHASES_DATA & (1u << p)) || size % block == 0)
			continue;
		if (!buf[0]) {
			char b[32], s[32];
			st_format_size(block, b, sizeof(b));
			st_format_size(size, s, sizeof(s));
			snprintf(buf, n, "size=%s is not a multiple of block=%s%s%s", s, b,
				 pc.v[ST_OPT_BLOCK] != c->v[ST_OPT_BLOCK] ? " of " : "",
				 pc.v[ST_OPT_BLOCK] != c->v[ST_OPT_BLOCK] ? st_phase_names[p] : "");
		}
		skip |= 1u << p;
	}
	char why[256];
	unsigned u = st_engine_unsupported(j->engine, &j->cfg, c, j->phases & ~skip, why, sizeof(why));
	if (u) {
		off = strlen(buf);
		snprintf(buf + off, n - off, "%s%s", off ? "; " : "", why);
	}
	return skip | u;
}

unsigned st_combo_skips(const struct job *j, const struct st_combo *c, char *buf, size_t n)
{
	return skip_phases(j, c, buf, n);
}

/* Server rank: sample at --sample-hz until the phase-end barrier completes
 * (phase_open primed the counters before the start barrier). */
static const struct st_sample *sample_until(struct job *j, MPI_Request *done, int64_t since,
					    const char *what, size_t *n)
{
	int64_t deadline = st_step_deadline(j, since);
	int64_t period = 1000000000LL / j->cfg.o[ST_OPT_SAMPLE_HZ].v[0];
	int finished = 0;
	int64_t next = st_now_ns() + period;
	while (!finished) {
		MPI_Test(done, &finished, MPI_STATUS_IGNORE);
		if (!finished)
			st_step_check(j, deadline, since, what);
		int64_t now = st_now_ns();
		if (now >= next) {
			st_sampler_tick(j->sampler, j->my_offset);
			next += period;
			if (next < now)
				next = now + period;
		}
		if (!finished) {
			int64_t wait = next - st_now_ns();
			/* poll the barrier often enough that the phase end is seen within 1 ms */
			struct timespec ts = { 0, wait > 1000000 ? 1000000 : (wait > 0 ? wait : 0) };
			nanosleep(&ts, NULL);
		}
	}
	st_sampler_tick(j->sampler, j->my_offset); /* the last partial interval */
	struct st_sample *pts = (struct st_sample *)st_sampler_points(j->sampler, n);
	for (size_t i = 0; i < *n; i++)
		pts[i].rank = j->rank;
	return pts;
}

/* Every rank's `bytes` at mine to rank 0, one rank after the other: rank
 * 0 gets the buffer (the caller frees it) and, in counts and displs (the
 * caller's, j->size each), where each rank's are. The others get NULL. */
static unsigned char *gather_bytes(struct job *j, const void *mine, int bytes, int *counts,
				   int *displs)
{
	unsigned char *all = NULL;
	MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (j->rank == 0) {
		size_t sum = 0;
		for (int q = 0; q < j->size; q++) {
			if (counts[q] < 0 || sum + (size_t)counts[q] > INT_MAX)
				st_die("rank %d sent %d bytes (%zu before it)", q, counts[q], sum);
			displs[q] = (int)sum;
			sum += (size_t)counts[q];
		}
		if (!(all = malloc(sum ? sum : 1)))
			st_die("out of memory");
	}
	MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	return all;
}

/* The -o text of combination c as this host mounts it: its options, and
 * what the mount driver added to them here (nolock without rpc.statd). */
static int host_options(const struct job *j, const struct st_combo *c, char *opts, size_t n)
{
	int rc = st_mount_options(&j->cfg, c, opts, n);
	if (rc == 0 && j->mnt && j->mnt->added[0]) {
		size_t l = strlen(opts);
		if (snprintf(opts + l, n - l, "%s%s", l ? "," : "", j->mnt->added) >= (int)(n - l))
			rc = -E2BIG;
	}
	return rc;
}

/* The mount of one combination, on local rank 0 of a client host (may
 * block: rank 0 runs it under its deadline, st_step_local). */
struct mount_work {
	struct job *j;
	const struct st_combo *c;
	struct st_mount_msg res;
};

/* A mount or a remount cycle holds j->mnt_mu: the release as the job ends
 * on a signal (st_step_remove_on_signal, another thread) waits for it, and
 * no mount starts after that release (a mount made after it was left on
 * the target). 0, or -ECANCELED with msg: the job is ending. */
static int mount_hold(struct job *j, char *msg, size_t n)
{
	pthread_mutex_lock(&j->mnt_mu);
	if (!atomic_load(&j->mnt_closed))
		return 0;
	pthread_mutex_unlock(&j->mnt_mu);
	snprintf(msg, n, "the job is ending: no mount any more");
	return -ECANCELED;
}

static void mount_local_held(struct mount_work *m)
{
	struct job *j = m->j;
	char opts[ST_STR_MAX], msg[sizeof(m->res.msg)] = "";
	if (st_mount_options(&j->cfg, m->c, opts, sizeof(opts)) < 0) {
		m->res.rc = -EINVAL;
		snprintf(m->res.msg, sizeof(m->res.msg), "mount options: %s", opts);
		return;
	}
	m->res.rc = st_mount_take(j->mnt, j->cfg.o[ST_OPT_MOUNT].s, j->cfg.o[ST_OPT_FSTYPE].s, opts,
				  j->cfg.o[ST_OPT_TARGET].s, msg, sizeof(msg));
	if (m->res.rc)
		snprintf(m->res.msg, sizeof(m->res.msg), "mount -t %s -o %s %s %s: %s",
			 j->cfg.o[ST_OPT_FSTYPE].s, opts, j->cfg.o[ST_OPT_MOUNT].s,
			 j->cfg.o[ST_OPT_TARGET].s, msg);
	else if (j->mnt->added[0]) {
		st_copy(m->res.added, sizeof(m->res.added), j->mnt->added);
		st_copy(m->res.msg, sizeof(m->res.msg), j->mnt->added_why);
	}
}

static void mount_local(void *arg)
{
	struct mount_work *m = arg;
	struct job *j = m->j;
	if ((m->res.rc = mount_hold(j, m->res.msg, sizeof(m->res.msg))))
		return;
	mount_local_held(m);
	pthread_mutex_unlock(&j->mnt_mu);
}

/* --mount: local rank 0 of each client host mounts the target with this
 * combination's options, once every rank of the host is done with the
 * previous combination (an open file would make the umount busy).
 * 0, or -1 with ps filled as a failed preparation; *added gets what the
 * driver added to the options (its note for the store). */
static int mount_step(struct job *j, const struct st_combo *c, struct st_prepare_status *ps,
		      struct st_mount_msg *added)
{
	struct mount_work m = { .j = j, .c = c };
	memset(ps, 0, sizeof(*ps));
	memset(added, 0, sizeof(*added));
	ps->version = ST_WIRE_VERSION;
	if (!j->cfg.o[ST_OPT_MOUNT].n || j->roles[j->rank] != ST_ROLE_CLIENT)
		return 0;
	MPI_Barrier(j->host_comm);
	if (j->hosts[j->rank].local_rank == 0) {
		if (!j->mnt && !(j->mnt = calloc(1, sizeof(*j->mnt))))
			st_die("out of memory");
		st_copy(j->mnt->run_id, sizeof(j->mnt->run_id), j->run_id);
		st_step_local(j, mount_local, &m, st_now_ns(), "the end of its mount");
	}
	MPI_Bcast(&m.res, (int)sizeof(m.res), MPI_BYTE, 0, j->host_comm);
	if (!m.res.rc) {
		*added = m.res;
		return 0;
	}
	ps->err = -m.res.rc;
	ps->op = ST_OP_PREPARE;
	st_copy(ps->message, sizeof(ps->message), m.res.msg);
	return -1;
}

struct drop_work {
	struct job *j;
	const struct st_combo *c;
	struct st_cache_drop_msg res;
};

static void drop_local_held(struct drop_work *d)
{
	struct job *j = d->j;
	char opts[ST_STR_MAX];
	int rc = host_options(j, d->c, opts, sizeof(opts));
	if (rc) {
		snprintf(d->res.method, sizeof(d->res.method), "failed");
		snprintf(d->res.msg, sizeof(d->res.msg), "the mount options: %s",
			 rc == -E2BIG ? "too long" : opts);
		return;
	}
	if (st_drop_caches(j->cfg.o[ST_OPT_TARGET].s, j->cfg.o[ST_OPT_MOUNT].s,
			   j->cfg.o[ST_OPT_FSTYPE].s, opts, j->mnt ? j->mnt->our_id : -1,
			   d->res.method, sizeof(d->res.method), d->res.msg, sizeof(d->res.msg)) < 0)
		snprintf(d->res.method, sizeof(d->res.method), "failed");
	/* a remount cycle made a new mount (or, failed half-way, none): that one
	 * is stcluster's now; without a cycle the mount on top stays whoever's
	 * it was */
	if (j->mnt && strcmp(d->res.method, "drop_caches") && strcmp(d->res.method, "none"))
		st_mount_adopt(j->mnt);
}

static void drop_local(void *arg)
{
	struct drop_work *d = arg;
	if (mount_hold(d->j, d->res.msg, sizeof(d->res.msg))) {
		snprintf(d->res.method, sizeof(d->res.method), "failed");
		return;
	}
	drop_local_held(d);
	pthread_mutex_unlock(&d->j->mnt_mu);
}

/* --mount, before a read phase that follows a write: each client host drops
 * its cache for the files (remount, or drop_caches); the method is
 * returned, and in note why that one and not the other. */
static void drop_cache_step(struct job *j, const struct st_combo *c, char *method, size_t n,
			    char *note, size_t nn)
{
	struct drop_work d = { .j = j, .c = c, .res = { "", "" } };
	if (j->roles[j->rank] == ST_ROLE_CLIENT) {
		MPI_Barrier(j->host_comm);
		if (j->hosts[j->rank].local_rank == 0)
			st_step_local(j, drop_local, &d, st_now_ns(), "the end of its cache drop");
		MPI_Bcast(&d.res, (int)sizeof(d.res), MPI_BYTE, 0, j->host_comm);
	}
	st_copy(method, n, d.res.method);
	st_copy(note, nn, d.res.msg);
}

/* One combination on its way through the script: what each step leaves
 * for the next. */
struct combo_run {
	struct st_combo *c;
	uint64_t total;			  /* combinations x iterations in the run */
	int64_t started_wall_ns;	  /* when it began, wall clock */
	char why[256];			  /* why the skipped phases are skipped */
	unsigned skipped;		  /* phases that cannot run (1u << ST_PHASE_*) */
	struct st_worker_args wa;	  /* what this rank's worker runs */
	struct st_worker *w;		  /* NULL when --mount failed on this host */
	struct st_prepare_status ps;	  /* how this rank's preparation went */
	struct st_prepare_status *all_ps; /* rank 0: every rank's */
	int any_failed;			  /* preparation failed on some rank */
	int nt;				  /* this rank's I/O threads */
	struct st_thread_result *mine;	  /* their results of the phase just run */
	int *counts, *displs;		  /* rank 0: bytes of each rank's thread results */
	struct st_phase_record ph[ST_PHASE_COUNT]; /* rank 0: the phases gathered */
	int nph;			  /* how many */
	char run_dir[96];		  /* --keep: the combination's own, under the run's */
	int direct_fallback;		  /* O_DIRECT was refused somewhere */
	int wrote;			  /* a write phase ran since the last cache drop */
	/* what went over the wire: the kernel's counts of the target's mount
	 * (the first rank of a client host, for the host), or the engine's */
	int rpc_kernel;			  /* this rank reads mountstats for its host */
	char rpc_point[ST_MOUNT_PATH_MAX]; /* the mount point it reads */
	struct st_rpc_snap *rpc_before;	  /* the reading before the phase */
	struct st_rpc_result rpc;	  /* this rank's counts of the phase just run */
};

/* Rank 0: a combination none of whose phases can run is stored as skipped. */
static void record_skipped(struct job *j, const struct combo_run *r)
{
	if (j->rank != 0)
		return;
	struct st_combo_record rec = { .run_id = j->run_id, .combo = r->c, .cfg = &j->cfg,
				       .status = ST_COMBO_SKIPPED, .message = r->why,
				       .started_wall_ns = r->started_wall_ns,
				       .finished_wall_ns = st_wall_ns(), .nranks = j->size };
	char err[ST_ERR_MAX];
	if (st_store_combo(j->store, &rec, err, sizeof(err))) {
		fprintf(stderr, "stcluster: %s\n", err);
		j->store_failed = 1;
	}
	j->combos_done++;
	j->combos_done_ns = st_now_ns();
	if (!j->quiet)
		printf("[%u/%llu] skipped: %s\n", r->c->seq + 1, (unsigned long long)r->total,
		       r->why);
}

struct prepare_work {
	struct combo_run *r;
};

static void prepare_local(void *arg)
{
	struct prepare_work *pw = arg;
	struct combo_run *r = pw->r;
	r->w = st_worker_prepare(&r->wa, &r->ps);
	/* the kernel's RPC counts: where the engine counts none of its own, the
	 * target is on an NFS mount, and this rank speaks for its host */
	if (!r->w || r->ps.err || r->wa.role != ST_ROLE_CLIENT || r->wa.local_rank != 0 ||
	    !(r->wa.engine->caps & ST_EC_NEEDS_TARGET_DIR) || r->wa.engine->thread_rpc)
		return;
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	char msg[200];
	if (e && st_mount_holding(r->wa.cfg->o[ST_OPT_TARGET].s, e, msg, sizeof(msg)) == 0 &&
	    st_mount_is_nfs(e->fstype) && (r->rpc_before = malloc(sizeof(*r->rpc_before)))) {
		st_copy(r->rpc_point, sizeof(r->rpc_point), e->mount_point);
		r->rpc_kernel = 1;
	}
	free(e);
}

/* Every rank prepares (the mount, the engine, pinned threads, files laid
 * out); rank 0 gathers how it went, and all agree whether it failed
 * anywhere (then no phase runs and the combination is stored as failed). */
static void prepare(struct job *j, struct combo_run *r)
{
	/* --layout shared: a thread's region follows its rank's place among the clients */
	int me = -1, partner = -1, nclients = 0;
	for (int q = 0; q < j->size; q++) {
		if (j->roles[q] != ST_ROLE_CLIENT)
			continue;
		if (q == j->rank)
			me = nclients;
		if (q == j->partners[j->rank])
			partner = nclients;
		nclients++;
	}
	/* --keep: every combination's files stay, each in a directory of its own */
	if (j->cfg.o[ST_OPT_KEEP].v[0] == ST_ON)
		snprintf(r->run_dir, sizeof(r->run_dir), "%s/c%u", j->run_dir, r->c->seq);
	else
		st_copy(r->run_dir, sizeof(r->run_dir), j->run_dir);
	r->wa = (struct st_worker_args){
		.engine = j->engine, .cfg = &j->cfg, .combo = r->c, .topo = j->topo,
		.rank = j->rank, .local_rank = j->hosts[j->rank].local_rank, .role = j->roles[j->rank],
		.partner = j->partners[j->rank], .clock_offset_ns = j->my_offset,
		.run_dir = r->run_dir, .phases = j->phases & ~r->skipped, .run_seed = j->run_seed,
		.client_index = me, .partner_client = partner, .nclients = nclients,
	};
	int64_t prep_start = st_now_ns();
	st_watch_where(j->watch, (int)r->c->seq, -1);
	struct st_mount_msg added;
	struct st_prepare_status srv;
	st_server_step(j, r->c, &srv);
	if (mount_step(j, r->c, &r->ps, &added) == 0) {
		struct prepare_work pw = { .r = r };
		st_step_local(j, prepare_local, &pw, st_now_ns(), "the end of its preparation");
		if (!r->w)
			st_die("out of memory preparing a combination");
		if (added.added[0]) {
			struct st_effective *e = &r->ps.eff;
			st_copy(e->added, sizeof(e->added), added.added);
			size_t l = strlen(e->note);
			snprintf(e->note + l, sizeof(e->note) - l,
				 "%slock: %s added by stcluster, which takes no locks (%s)", l ? "; " : "",
				 added.added, added.msg);
		}
	}
	st_server_merge(&r->ps, &srv);
	if (j->rank == 0 && !(r->all_ps = calloc((size_t)j->size, sizeof(*r->all_ps))))
		st_die("out of memory");
	MPI_Request q;
	MPI_Igather(&r->ps, (int)sizeof(r->ps), MPI_BYTE, r->all_ps, (int)sizeof(r->ps), MPI_BYTE,
		    0, MPI_COMM_WORLD, &q);
	st_step_await(j, &q, prep_start, "the end of preparing");
	for (int k = 0; j->rank == 0 && k < j->size; k++)
		st_wire_expect(k, "its preparation", r->all_ps[k].version, ST_WIRE_VERSION);
	int failed = r->ps.err != 0;
	MPI_Allreduce(&failed, &r->any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	r->direct_fallback = (r->ps.flags & ST_TF_DIRECT_FALLBACK) != 0;
}

/* The buffers every phase gathers through. */
static void alloc_results(struct job *j, struct combo_run *r)
{
	r->nt = st_worker_threads(r->w);
	r->mine = calloc((size_t)(r->nt ? r->nt : 1), sizeof(*r->mine));
	if (!r->mine)
		st_die("out of memory");
	if (j->rank == 0) {
		r->counts = calloc((size_t)j->size, sizeof(int));
		r->displs = calloc((size_t)j->size, sizeof(int));
		if (!r->counts || !r->displs)
			st_die("out of memory");
	}
}

/* A phase opens: the cache drop --mount needs before a read that follows a
 * write, then the barrier that releases every rank at once. Returns the
 * release time (local clock). */
static int64_t phase_open(struct job *j, struct combo_run *r, int p, char *cache_drop, size_t n,
			  char *note, size_t nn)
{
	if (j->cfg.o[ST_OPT_MOUNT].n && r->wrote &&
	    (p == ST_PHASE_READ || p == ST_PHASE_RANDREAD || ((1u << p) & ST_PHASES_MIXED))) {
		drop_cache_step(j, r->c, cache_drop, n, note, nn);
		r->wrote = 0;
	}
	char what[64], msg[200];
	if (r->rpc_kernel && st_rpc_read(r->rpc_point, r->rpc_before, msg, sizeof(msg)))
		r->rpc_before->nfs = 0;
	if (j->sampler && j->roles[j->rank] == ST_ROLE_SERVER) {
		/* a server rank's counters are primed here, before the start
		 * barrier, as a client's mountstats are: a call the clients send
		 * the moment they are released is the phase's (knfsd's calls per
		 * phase equal the clients'); the gap since the last phase is not */
		st_sampler_tick(j->sampler, j->my_offset);
		st_sampler_reset(j->sampler);
	}
	snprintf(what, sizeof(what), "the start of phase %s", st_phase_names[p]);
	MPI_Request q;
	int64_t since = st_now_ns();
	MPI_Ibarrier(MPI_COMM_WORLD, &q);
	st_step_await(j, &q, since, what);
	st_step_release(j, since, what);
	int64_t released = st_now_ns();
	st_watch_where(j->watch, (int)r->c->seq, p);
	return released;
}

/* The timed I/O: the client threads run the phase (rank 0 keeps the live
 * line meanwhile); rr and r->mine get this rank's figures. */
static void phase_io(struct job *j, struct combo_run *r, int p, int64_t release,
		     const char *cache_drop, const char *note, struct st_rank_result *rr,
		     struct st_stonewall *sw)
{
	st_stonewall_begin(j, sw, r->c, p);
	st_worker_phase_begin(r->w, p, release);
	if (j->progress == PROGRESS_LIVE) {
		st_progress_live(j, r->w, r->c, p, r->total, release, sw);
	} else if (sw->active || j->rank == 0) {
		/* a first client's end is seen within a millisecond (--stonewall);
		 * rank 0's own threads (a hard mount that never answers) must not
		 * hold the deadline that watches every rank */
		int64_t deadline = st_step_deadline(j, release);
		int64_t slice = sw->active ? 1000000 : 100000000LL;
		while (!st_worker_phase_wait(r->w, st_now_ns() + slice)) {
			if (sw->active)
				st_stonewall_poll(j, sw, r->w, 0);
			if (j->rank == 0 && st_now_ns() > deadline) {
				char what[64];
				snprintf(what, sizeof(what), "the end of phase %s", st_phase_names[p]);
				st_step_abort_local(j, what, release);
			}
		}
		if (sw->active)
			st_stonewall_poll(j, sw, r->w, 1);
	} else {
		st_worker_phase_wait(r->w, INT64_MAX);
	}
	st_worker_phase_end(r->w, rr, r->mine);
	memset(&r->rpc, 0, sizeof(r->rpc));
	st_worker_rpc(r->w, &r->rpc);
	st_copy(rr->cache_drop, sizeof(rr->cache_drop), cache_drop);
	st_copy(rr->cache_drop_note, sizeof(rr->cache_drop_note), note);
	r->wrote |= ((1u << p) & (ST_PHASES_WRITE | ST_PHASES_MIXED | 1u << ST_PHASE_CREATE |
				    1u << ST_PHASE_MKDIR)) != 0;
}

/* Once every client is done (the phase-end barrier): the kernel's counts
 * of this host's mount over the phase. */
static void rpc_after(struct combo_run *r, int p)
{
	char msg[200];
	if (!r->rpc_kernel || !r->rpc_before->nfs)
		return;
	struct st_rpc_snap *after = malloc(sizeof(*after));
	if (after && st_rpc_read(r->rpc_point, after, msg, sizeof(msg)) == 0) {
		r->rpc.rank = (uint32_t)r->wa.rank;
		r->rpc.phase = (uint32_t)p;
		st_rpc_delta(r->rpc_before, after, &r->rpc);
	}
	free(after);
}

/* The phase ends when every client is done: a barrier, until which the
 * server ranks sample (their rank result is then their sampling window and
 * CPU). Returns a server rank's samples, NULL elsewhere. */
static const struct st_sample *phase_close(struct job *j, struct combo_run *r, int p,
					   int64_t release, struct st_rank_result *rr,
					   size_t *nsamples)
{
	char what[64];
	snprintf(what, sizeof(what), "the end of phase %s", st_phase_names[p]);
	MPI_Request done;
	MPI_Ibarrier(MPI_COMM_WORLD, &done);
	*nsamples = 0;
	if (!j->sampler || j->roles[j->rank] != ST_ROLE_SERVER) {
		st_step_await(j, &done, release, what);
		rpc_after(r, p);
		return NULL;
	}
	int64_t u0, s0, u1, s1, t0 = st_now_ns();
	st_cpu_us(&u0, &s0);
	st_step_reached(j);
	const struct st_sample *samples = sample_until(j, &done, release, what, nsamples);
	if (j->rank == 0)
		st_step_drain(j);
	st_cpu_us(&u1, &s1);
	rr->start_ns = t0 - j->my_offset;
	rr->end_ns = st_now_ns() - j->my_offset;
	rr->cpu_user_us = u1 - u0;
	rr->cpu_sys_us = s1 - s0;
	if (st_sampler_restarts(j->sampler))
		rr->flags |= ST_TF_SERVER_RESTART;
	return samples;
}

/* Rank 0: every rank's phase pack (wire.h) taken apart into the phase's
 * record: the rank results and thread results in rank order, the RPC
 * counts of the ranks that counted any (nothing for the others: 11 KB a
 * rank at 1,024 ranks would be 11.5 MB of zeros a phase), the server
 * samples and the intervals, every rank's widened to the widest. */
static void unpack_phase(struct job *j, const struct combo_run *r, const unsigned char *all,
			 struct st_phase_record *ph)
{
	struct st_phase_parts *parts = calloc((size_t)j->size, sizeof(*parts));
	size_t nthreads = 0, nsamples = 0, niv = 0, nrpc = 0;
	if (!parts)
		st_die("out of memory");
	for (int q = 0; q < j->size; q++) {
		struct st_phase_parts *pt = &parts[q];
		int n = -1;
		if (st_phase_pack_parts(all + r->displs[q], (size_t)r->counts[q], pt) == 0)
			n = st_results_count(pt->results, pt->results_len);
		if (n < 0)
			st_die("rank %d sent a malformed phase result (%d bytes)", q, r->counts[q]);
		nthreads += (size_t)n;
		nrpc += pt->rpc != NULL;
		nsamples += pt->nsamples;
		niv += pt->niv;
	}
	struct st_rank_result *rr = calloc((size_t)j->size, sizeof(*rr));
	struct st_thread_result *tr = calloc(nthreads ? nthreads : 1, sizeof(*tr));
	struct st_rpc_result *rpc = nrpc ? calloc(nrpc, sizeof(*rpc)) : NULL;
	struct st_sample *sm = nsamples ? calloc(nsamples, sizeof(*sm)) : NULL;
	struct st_interval *iv = calloc(niv ? niv : 1, sizeof(*iv));
	if (!rr || !tr || (nrpc && !rpc) || (nsamples && !sm) || !iv)
		st_die("out of memory");
	size_t k = 0, kr = 0, ks = 0, ki = 0;
	for (int q = 0; q < j->size; q++) {
		const struct st_phase_parts *pt = &parts[q];
		if (st_results_unpack(pt->results, pt->results_len, &rr[q], tr + k))
			st_die("rank %d sent a malformed result (%zu bytes)", q, pt->results_len);
		st_wire_expect(q, "a rank result", rr[q].version, ST_WIRE_VERSION);
		for (int t = st_results_count(pt->results, pt->results_len); t > 0; t--, k++)
			st_wire_expect(q, "a thread result", tr[k].version, ST_WIRE_VERSION);
		if (pt->rpc) {
			memcpy(&rpc[kr], pt->rpc, sizeof(rpc[kr]));
			st_wire_expect(q, "its RPC counts", rpc[kr].version, ST_WIRE_VERSION);
			if (rpc[kr++].rank != (uint32_t)q)
				st_die("rank %d sent the RPC counts of rank %u", q, rpc[kr - 1].rank);
		}
		if (pt->nsamples)
			memcpy(sm + ks, pt->samples, pt->nsamples * sizeof(*sm));
		ks += pt->nsamples;
		if (pt->niv)
			memcpy(iv + ki, pt->iv, pt->niv * sizeof(*iv));
		ki += pt->niv;
	}
	free(parts);
	*ph = (struct st_phase_record){ .ranks = rr, .threads = tr, .nthreads = (int)nthreads,
					.samples = sm, .nsamples = nsamples, .intervals = iv,
					.nintervals = st_iv_normalize(iv, niv), .rpc = rpc,
					.nrpc = nrpc };
}

/* Every rank's results of phase p to rank 0 in one gather (a size each,
 * then the packs): its rank result and thread results (the histograms'
 * non-empty buckets only), its RPC counts when it counted any (11 KB, so a
 * rank that counted none sends none), a server rank's samples and its
 * intervals. Rank 0 keeps them as the phase's record. */
static void phase_gather(struct job *j, struct combo_run *r, int p,
			 const struct st_rank_result *rr, const struct st_sample *samples,
			 size_t nsamples)
{
	r->rpc.version = ST_WIRE_VERSION;
	r->rpc.rank = (uint32_t)j->rank;
	r->rpc.phase = (uint32_t)p;
	size_t niv;
	struct st_phase_pack pk = { .rr = rr, .tr = r->mine, .nt = r->nt,
				    .rpc = r->rpc.source != ST_RPC_NONE ? &r->rpc : NULL,
				    .samples = samples, .nsamples = nsamples,
				    .iv = st_worker_intervals(r->w, &niv) };
	pk.niv = niv;
	unsigned char *mine = malloc(st_phase_pack_bound(&pk)), *all;
	if (!mine)
		st_die("out of memory");
	size_t bytes = st_phase_pack_put(&pk, mine);
	if (bytes > INT_MAX)
		st_die("a phase's results of %zu bytes", bytes);
	all = gather_bytes(j, mine, (int)bytes, r->counts, r->displs);
	int64_t gathered = st_now_ns();
	free(mine);
	if (j->rank != 0)
		return;
	struct st_phase_record *ph = &r->ph[r->nph++];
	unpack_phase(j, r, all, ph);
	free(all);
	ph->phase = p;
	ph->gathered_ns = gathered;
	for (int q = 0; q < j->size; q++)
		r->direct_fallback |= (ph->ranks[q].flags & ST_TF_DIRECT_FALLBACK) != 0;
}

/* One phase: open, timed I/O, close, gather. */
static void run_phase(struct job *j, struct combo_run *r, int p)
{
	struct st_rank_result rr;
	struct st_stonewall sw;
	char cache_drop[24] = "", note[200] = "";
	size_t nsamples;
	int64_t release = phase_open(j, r, p, cache_drop, sizeof(cache_drop), note, sizeof(note));
	phase_io(j, r, p, release, cache_drop, note, &rr, &sw);
	const struct st_sample *samples = phase_close(j, r, p, release, &rr, &nsamples);
	st_stonewall_end(j, &sw);
	phase_gather(j, r, p, &rr, samples, nsamples);
	if (j->rank == 0 && j->progress == PROGRESS_PLAIN)
		st_progress_line(j, r->c, r->total, &r->ph[r->nph - 1], 1, ST_COMBO_OK);
}

static void finish_local(void *w)
{
	st_worker_finish(w);
}

/* After the last phase: partners may still read this rank's files until
 * everyone is here; then the worker removes its own files and ends. */
static void finish(struct job *j, struct combo_run *r)
{
	MPI_Request q;
	MPI_Ibarrier(MPI_COMM_WORLD, &q);
	st_step_await(j, &q, st_now_ns(), "the end of the combination");
	j->touched |= st_worker_touched(r->w);
	st_step_local(j, finish_local, r->w, st_now_ns(), "the end of removing its files");
	st_watch_where(j->watch, -1, -1);
}

/* Rank 0: the combination's status, and in msg the first failure that
 * explains it (a rank's preparation, else a rank's first phase error). */
static const char *outcome(const struct job *j, const struct combo_run *r, char *msg, size_t n)
{
	msg[0] = '\0';
	if (r->any_failed) {
		for (int q = 0; q < j->size; q++)
			if (r->all_ps[q].err) {
				snprintf(msg, n, "rank %d (%s): %s", q, j->hosts[q].hostname,
					 r->all_ps[q].message);
				break;
			}
		return ST_COMBO_UNPREPARED;
	}
	for (int i = 0; i < r->nph; i++)
		for (int q = 0; q < j->size; q++) {
			const struct st_rank_result *rr = &r->ph[i].ranks[q];
			if (!rr->error.err && !rr->bad_blocks && !(rr->flags & ST_TF_SERVER_RESTART))
				continue;
			char what[ST_ERR_MAX];
			st_rank_result_message(rr, what, sizeof(what));
			snprintf(msg, n, "%s: rank %d (%s): %s", st_phase_names[r->ph[i].phase], q,
				 j->hosts[q].hostname, what);
			return ST_COMBO_ERROR;
		}
	return ST_COMBO_OK;
}

/* Rank 0, once per run: a thread that could not keep --iodepth requests
 * in flight the best way (the kernel refused io_uring, or a file) says so;
 * every thread's mode is stored (thread_result.io_mode). */
static void note_io_mode(struct job *j, const struct combo_run *r)
{
	for (int i = 0; i < r->nph && !j->io_mode_noted; i++)
		for (int k = 0; k < r->ph[i].nthreads; k++) {
			const struct st_thread_result *t = &r->ph[i].threads[k];
			if (!strchr(t->io_mode, '('))
				continue;
			j->io_mode_noted = 1;
			if (!j->quiet)
				printf("    note: --iodepth %lld: rank %u thread %u issued its calls by %s "
				       "(thread_result.io_mode has every thread's)\n",
				       (long long)r->c->v[ST_OPT_IODEPTH], t->rank, t->thread, t->io_mode);
			return;
		}
}

/* Rank 0: the combination with every rank's facts, in one transaction;
 * then what the user sees of it. */
static void record(struct job *j, const struct combo_run *r)
{
	char msg[512];
	const char *status = outcome(j, r, msg, sizeof(msg));
	struct st_combo_record rec = {
		.run_id = j->run_id, .combo = r->c, .cfg = &j->cfg, .status = status,
		.message = msg[0] ? msg : NULL, .started_wall_ns = r->started_wall_ns,
		.finished_wall_ns = st_wall_ns(), .direct_fallback = r->direct_fallback,
		.nranks = j->size, .prep = r->all_ps, .phases = r->ph, .nphases = r->nph,
		.skipped_phases = r->any_failed ? 0 : r->skipped, .skip_message = r->why,
		.roles = j->roles,
	};
	char err[ST_ERR_MAX];
	if (st_store_combo(j->store, &rec, err, sizeof(err))) {
		fprintf(stderr, "stcluster: %s\n", err);
		j->store_failed = 1;
	}
	j->combos_done++;
	j->combos_done_ns = st_now_ns();
	if (j->progress == PROGRESS_LIVE || r->nph == 0 || strcmp(status, ST_COMBO_OK))
		st_progress_line(j, r->c, r->total, r->ph, r->nph, status);
	if (r->skipped && !r->any_failed && !j->quiet)
		printf("    skipped phases: %s\n", r->why);
	if (msg[0] && !j->quiet)
		printf("    %s\n", msg);
	note_io_mode(j, r);
}

static void release(struct combo_run *r)
{
	for (int i = 0; i < r->nph; i++) {
		free((void *)r->ph[i].ranks);
		free((void *)r->ph[i].threads);
		free((void *)r->ph[i].samples);
		free((void *)r->ph[i].intervals);
		free((void *)r->ph[i].rpc);
	}
	free(r->rpc_before);
	free(r->all_ps);
	free(r->counts);
	free(r->displs);
	free(r->mine);
}

void st_combo_run(struct job *j, struct st_combo *c, uint64_t total)
{
	struct combo_run r = { .c = c, .total = total, .started_wall_ns = st_wall_ns() };
	r.skipped = skip_phases(j, c, r.why, sizeof(r.why));
	if (r.skipped == j->phases) {
		record_skipped(j, &r);
		return;
	}
	prepare(j, &r);
	alloc_results(j, &r);
	for (int p = 0; !r.any_failed && p < ST_PHASE_COUNT; p++)
		if (r.wa.phases & (1u << p))
			run_phase(j, &r, p);
	finish(j, &r);
	if (j->rank == 0)
		record(j, &r);
	release(&r);
}

/*
 * Engines and the worker, in-process (no MPI): the posix engine through its
 * system-call seam (short writes, EINTR, ENOSPC), the worker's phase loop
 * on the null engine (bytes, ops, injected errors, the deadline) and on
 * real files (write, read, reorder, cleanup).
 */
#include "../../common/options.h"
#include "../../common/util.h"
#include "../../worker/engine.h"
#include "../../worker/engine_posix.h"
#include "../../worker/lnfs_url.h"
#include "../../worker/worker.h"
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- a fault-injecting system-call table ---- */

/* Tests run one at a time in one thread: the fault plan is a test fixture. */
static struct {
	int short_writes; /* pwrite moves at most half of what is asked */
	int eintr_left;	  /* the next N calls fail with EINTR */
	int enospc_after; /* bytes accepted before ENOSPC; -1 off */
	long written;
	int read_eio_after; /* pread: bytes read before EIO (a soft mount timing out); 0 off */
	long read;
	int preads;	    /* pread calls */
	int open_fds;	    /* descriptors opened through the seam and not closed yet */
} fault;

static ssize_t fault_pread(int fd, void *buf, size_t len, off_t off)
{
	fault.preads++;
	if (fault.read_eio_after > 0 && fault.read >= fault.read_eio_after) {
		errno = EIO;
		return -1;
	}
	if (fault.read_eio_after > 0 && fault.read + (long)len > fault.read_eio_after)
		len = (size_t)(fault.read_eio_after - fault.read);
	ssize_t n = pread(fd, buf, len, off);
	if (n > 0)
		fault.read += n;
	return n;
}

static int fault_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	int fd = openat(dirfd, path, flags, mode);
	fault.open_fds += fd >= 0;
	return fd;
}

static int fault_close(int fd)
{
	fault.open_fds--;
	return close(fd);
}

static ssize_t fault_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (fault.eintr_left > 0) {
		fault.eintr_left--;
		errno = EINTR;
		return -1;
	}
	if (fault.enospc_after >= 0 && fault.written >= fault.enospc_after) {
		errno = ENOSPC;
		return -1;
	}
	if (fault.short_writes && len > 1)
		len /= 2;
	ssize_t n = pwrite(fd, buf, len, off);
	if (n > 0)
		fault.written += n;
	return n;
}

static const struct st_posix_sys *faulty(void)
{
	static struct st_posix_sys t;
	t = st_posix_sys_real;
	t.pwrite = fault_pwrite;
	t.pread = fault_pread;
	t.openat = fault_openat;
	t.close = fault_close;
	return &t;
}

/* The posix engine over that table: a copy of its engine table whose setup
 * passes the seam (st_engine_posix itself is never patched). */
static int faulty_setup(const struct st_engine_env *env, void **rs, char *msg, size_t n)
{
	return st_posix_setup_with(env, faulty(), rs, msg, n);
}

static struct st_engine faulty_posix(void)
{
	struct st_engine e = st_engine_posix;
	e.setup = faulty_setup;
	return e;
}

static void cfg_for(struct st_config *c, const char *engine, const char *target)
{
	char err[ST_ERR_MAX];
	st_config_defaults(c);
	st_config_set(c, ST_OPT_ENGINE, engine, 1, NULL, err, sizeof(err));
	st_config_set(c, ST_OPT_TARGET, target, 1, NULL, err, sizeof(err));
}

static void posix_seam(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s", unit_tmpdir());
	struct st_config cfg;
	cfg_for(&cfg, "posix", dir);
	struct st_combo combo;
	st_plan_combo(&cfg, 0, &combo);
	struct st_engine_env env = { .cfg = &cfg, .combo = &combo };
	const struct st_engine fe = faulty_posix(), *e = &fe;
	void *rs = NULL, *ts = NULL, *fh = NULL;
	char msg[200];
	int direct = -1;
	memset(&fault, 0, sizeof(fault));
	fault.enospc_after = -1;
	CHECK(e->setup(&env, &rs, msg, sizeof(msg)) == 0);
	/* nothing of the target stays open between calls (a remount must not
	 * find it busy): not after setup, not after a file's open and close */
	CHECK_EQ_INT(fault.open_fds, 0);
	CHECK(e->thread_init(rs, 0, &ts, msg, sizeof(msg)) == 0);
	CHECK(e->open(ts, "f", ST_OPEN_WRITE | ST_OPEN_CREATE, &fh, &direct) == 0);
	CHECK_EQ_INT(fault.open_fds, 1); /* the file alone */
	char buf[8192];
	memset(buf, 'x', sizeof(buf));

	fault.short_writes = 1;
	CHECK(e->pwrite(ts, fh, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
	fault.short_writes = 0;
	fault.eintr_left = 3;
	CHECK(e->pwrite(ts, fh, buf, sizeof(buf), 8192) == (ssize_t)sizeof(buf));
	fault.enospc_after = 16384 + 4096;
	fault.written = 16384;
	fault.short_writes = 1; /* 4096 accepted, then ENOSPC: a short transfer */
	CHECK(e->pwrite(ts, fh, buf, sizeof(buf), 16384) == 4096);
	CHECK(e->pwrite(ts, fh, buf, sizeof(buf), 20480) == -ENOSPC);
	CHECK(e->close(ts, fh) == 0);
	CHECK_EQ_INT(fault.open_fds, 0);
	CHECK(e->mkdir(rs, "d") == 0 && e->rmdir(rs, "d") == 0);
	CHECK_EQ_INT(fault.open_fds, 0);

	/* a read that fails part-way (a soft mount timing out): the part, then
	 * the call's own errno at once, without asking the file again */
	fault.read_eio_after = 8192 + 4096;
	CHECK(e->open(ts, "f", ST_OPEN_READ, &fh, &direct) == 0);
	CHECK(e->pread(ts, fh, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
	CHECK(e->pread(ts, fh, buf, sizeof(buf), 8192) == 4096);
	int preads = fault.preads;
	CHECK(e->pread(ts, fh, buf, 4096, 12288) == -EIO);
	CHECK_EQ_INT(fault.preads, preads);
	CHECK(e->close(ts, fh) == 0);
	fault.read_eio_after = 0;
	struct stat st;
	char path[600];
	snprintf(path, sizeof(path), "%s/f", dir);
	CHECK(stat(path, &st) == 0 && st.st_size == 16384 + 4096);

	/* symbolic links are not followed out of the target */
	CHECK(symlink("/etc/passwd", (snprintf(path, sizeof(path), "%s/link", dir), path)) == 0);
	CHECK(e->open(ts, "link", ST_OPEN_READ, &fh, &direct) == -ELOOP);
	CHECK(e->unlink(rs, "link") == 0);
	/* a run directory swapped for a link to elsewhere: refused, nothing
	 * written or removed on the far side */
	char outside[512];
	snprintf(outside, sizeof(outside), "%s", unit_tmpdir());
	char victim[600], rundir[600];
	snprintf(victim, sizeof(victim), "%s/r0.t0", outside);
	FILE *vf = fopen(victim, "w");
	fputs("the user's file\n", vf);
	fclose(vf);
	snprintf(rundir, sizeof(rundir), "%s/run", dir);
	CHECK(symlink(outside, rundir) == 0);
	CHECK(e->unlink(rs, "run/r0.t0") == -ENOTDIR || e->unlink(rs, "run/r0.t0") == -ELOOP);
	CHECK(e->open(ts, "run/new", ST_OPEN_WRITE | ST_OPEN_CREATE, &fh, &direct) < 0);
	CHECK(e->rmdir(rs, "run/x") < 0);
	CHECK(access(victim, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/new", outside);
	CHECK(access(path, F_OK) != 0);
	unlink(victim);
	rmdir(outside);
	CHECK(e->unlink(rs, "run") == 0); /* the link itself, in the target */
	CHECK(e->unlink(rs, "f") == 0);
	e->thread_fini(ts);
	e->teardown(rs);
	rmdir(dir);
}

static struct st_worker *worker(struct st_config *cfg, struct st_combo *combo,
				hwloc_topology_t topo, int rank, int partner,
				struct st_prepare_status *ps)
{
	struct st_worker_args a = { .engine = st_engine_find(
					    st_options[ST_OPT_ENGINE].choices[cfg->o[ST_OPT_ENGINE].v[0]]),
				    .cfg = cfg, .combo = combo, .topo = topo, .rank = rank,
				    .role = ST_ROLE_CLIENT, .partner = partner,
				    .run_dir = "stcluster-test", .phases = st_config_phases(cfg),
				    .run_seed = 1234 };
	return st_worker_prepare(&a, ps);
}

static hwloc_topology_t topology(void)
{
	hwloc_topology_t t;
	hwloc_topology_init(&t);
	hwloc_topology_load(t);
	return t;
}

static void null_worker(void)
{
	struct st_config cfg;
	char err[ST_ERR_MAX];
	cfg_for(&cfg, "null", "/nonexistent");
	st_config_set(&cfg, ST_OPT_BLOCK, "4k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_SIZE, "64k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_THREADS, "3", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_NULL_ERROR, "EIO", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_NULL_ERROR_AT, "20", 1, NULL, err, sizeof(err));
	struct st_combo combo;
	st_plan_combo(&cfg, 0, &combo);
	hwloc_topology_t topo = topology();
	struct st_prepare_status ps;
	struct st_worker *w = worker(&cfg, &combo, topo, 0, 0, &ps);
	CHECK(w && ps.err == 0);
	CHECK(st_worker_threads(w) == 3);
	struct st_rank_result rr;
	struct st_thread_result tr[3];
	st_worker_phase(w, ST_PHASE_WRITE, st_now_ns(), &rr, tr);
	CHECK(rr.bytes == 3 * 65536 && rr.ops == 3 * 16 && rr.error.err == 0);
	CHECK(rr.hist.count == 48);
	for (int i = 0; i < 3; i++) {
		CHECK(tr[i].bytes == 65536 && tr[i].thread == (uint32_t)i);
		CHECK(tr[i].cpuset[0] != '\0'); /* bind=core: the binding is recorded */
		CHECK(tr[i].end_ns >= tr[i].start_ns);
	}
	/* calls 16..31 of each thread: the 21st (index 20) fails with EIO */
	st_worker_phase(w, ST_PHASE_READ, st_now_ns(), &rr, tr);
	CHECK(rr.error.err == EIO && rr.error.op == ST_OP_READ && rr.error.count == 3);
	CHECK(rr.bytes == 3 * 4 * 4096);
	CHECK(tr[1].error.offset == 4 * 4096);
	CHECK(strstr(rr.message, "offset 16384") != NULL);
	st_worker_finish(w);

	/* the deadline ends a phase that would take 64 x 10 ms */
	cfg_for(&cfg, "null", "/nonexistent");
	st_config_set(&cfg, ST_OPT_BLOCK, "1k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_SIZE, "64k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_NULL_DELAY, "10ms", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_DEADLINE, "0.1", 1, NULL, err, sizeof(err));
	st_plan_combo(&cfg, 0, &combo);
	w = worker(&cfg, &combo, topo, 0, 0, &ps);
	int64_t t0 = st_now_ns();
	st_worker_phase(w, ST_PHASE_WRITE, t0, &rr, tr);
	int64_t took = st_now_ns() - t0;
	CHECK(rr.error.err == ETIMEDOUT && (rr.flags & ST_TF_DEADLINE));
	/* the calls before the deadline, as many as fit the time it took (a
	 * busy machine makes fewer), never all 64 */
	CHECK(rr.ops >= 1 && rr.ops < 64 && rr.ops <= (uint64_t)(took / 10000000) + 1);
	CHECK(took < 400000000); /* far less than the 640 ms the phase would need */
	st_worker_finish(w);

	/* preparation failure is reported, not fatal */
	st_config_set(&cfg, ST_OPT_NULL_FAIL_SETUP, "1", 1, NULL, err, sizeof(err));
	w = worker(&cfg, &combo, topo, 1, 1, &ps);
	CHECK(w != NULL && ps.err == EIO && strstr(ps.message, "injected") != NULL);
	st_worker_finish(w);
	hwloc_topology_destroy(topo);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void posix_worker_files(void)
{
	const char *dir = unit_tmpdir();
	char err[ST_ERR_MAX], run_dir[600];
	struct st_config cfg;
	cfg_for(&cfg, "posix", dir);
	st_config_set(&cfg, ST_OPT_BLOCK, "4k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_SIZE, "32k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_THREADS, "2", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_PHASES, "write,read,randread,randwrite", 1, NULL, err,
		      sizeof(err));
	struct st_combo combo;
	st_plan_combo(&cfg, 0, &combo);
	hwloc_topology_t topo = topology();
	struct st_prepare_status ps0, ps1;
	/* two "ranks" in one process, each reading the other's files */
	struct st_worker *w0 = worker(&cfg, &combo, topo, 0, 1, &ps0);
	struct st_worker *w1 = worker(&cfg, &combo, topo, 1, 0, &ps1);
	CHECK(ps0.err == 0 && ps1.err == 0);
	struct st_rank_result rr;
	struct st_thread_result tr[2];
	st_worker_phase(w0, ST_PHASE_WRITE, st_now_ns(), &rr, tr);
	CHECK(rr.bytes == 65536 && rr.error.err == 0);
	snprintf(run_dir, sizeof(run_dir), "%s/stcluster-test", dir);
	CHECK(count_entries(run_dir) == 2);
	/* rank 1 has not written: reading its files fails, and says which */
	st_worker_phase(w0, ST_PHASE_READ, st_now_ns(), &rr, tr);
	CHECK(rr.error.err == ENOENT && rr.error.op == ST_OP_OPEN);
	CHECK(strstr(rr.message, "r1.t0") != NULL);
	st_worker_phase(w1, ST_PHASE_WRITE, st_now_ns(), &rr, tr);
	st_worker_phase(w0, ST_PHASE_READ, st_now_ns(), &rr, tr);
	CHECK(rr.bytes == 65536 && rr.error.err == 0 && rr.ops == 16);
	st_worker_phase(w1, ST_PHASE_RANDREAD, st_now_ns(), &rr, tr);
	CHECK(rr.bytes == 65536 && rr.error.err == 0);
	st_worker_phase(w1, ST_PHASE_RANDWRITE, st_now_ns(), &rr, tr);
	CHECK(rr.bytes == 65536 && rr.error.err == 0);
	CHECK(count_entries(run_dir) == 4);
	st_worker_finish(w0);
	CHECK(count_entries(run_dir) == 2); /* only rank 0's own files went */
	st_worker_finish(w1);
	CHECK(count_entries(run_dir) == 0);
	struct st_worker_args a = { .engine = &st_engine_posix, .cfg = &cfg, .combo = &combo,
				    .run_dir = "stcluster-test" };
	CHECK(st_worker_remove_run_dir(&a, 0, NULL, 0) == 0);
	CHECK(count_entries(dir) == 0);
	rmdir(dir);
	hwloc_topology_destroy(topo);
}

/* A write that fills the file system part-way through a block: the block
 * comes back short and the call for the rest fails. The worker records that
 * errno (ENOSPC) from write at the offset reached, not a bare short write. */
static void posix_worker_enospc_in_a_block(void)
{
	const char *dir = unit_tmpdir();
	char err[ST_ERR_MAX];
	struct st_config cfg;
	cfg_for(&cfg, "posix", dir);
	st_config_set(&cfg, ST_OPT_BLOCK, "8k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_SIZE, "64k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_PHASES, "write", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_DIRECT, "off", 1, NULL, err, sizeof(err));
	struct st_combo combo;
	st_plan_combo(&cfg, 0, &combo);
	hwloc_topology_t topo = topology();
	const struct st_engine fe = faulty_posix();
	struct st_worker_args a = { .engine = &fe, .cfg = &cfg, .combo = &combo, .topo = topo,
				    .role = ST_ROLE_CLIENT, .run_dir = "stcluster-test",
				    .phases = st_config_phases(&cfg) };
	memset(&fault, 0, sizeof(fault));
	fault.short_writes = 1;		/* every pwrite moves at most half */
	fault.enospc_after = 2 * 8192 + 4096; /* full half-way through the 3rd block */
	struct st_prepare_status ps;
	struct st_worker *w = st_worker_prepare(&a, &ps);
	CHECK(w && ps.err == 0);
	struct st_rank_result rr;
	struct st_thread_result tr[1];
	st_worker_phase(w, ST_PHASE_WRITE, st_now_ns(), &rr, tr);
	CHECK(rr.error.err == ENOSPC && rr.error.op == ST_OP_WRITE);
	CHECK(rr.error.offset == 20480 && rr.bytes == 20480 && rr.ops == 3);
	CHECK(strstr(rr.message, "write stcluster-test/r0.t0 at offset 20480: No space left") != NULL);
	st_worker_finish(w);
	fault.enospc_after = -1;
	fault.short_writes = 0;
	st_worker_remove_run_dir(&a, 0, NULL, 0);
	CHECK(count_entries(dir) == 0); /* the partial file went too */
	rmdir(dir);
	hwloc_topology_destroy(topo);
}

/* A read that times out part-way through a block (soft mount): recorded as
 * the read's own errno (EIO) at the offset reached, not as a short read
 * (ENODATA) that hides it. */
static void posix_worker_soft_timeout_in_a_read(void)
{
	const char *dir = unit_tmpdir();
	char err[ST_ERR_MAX];
	struct st_config cfg;
	cfg_for(&cfg, "posix", dir);
	st_config_set(&cfg, ST_OPT_BLOCK, "8k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_SIZE, "64k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_PHASES, "write,read", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_DIRECT, "off", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_REORDER, "off", 1, NULL, err, sizeof(err));
	struct st_combo combo;
	st_plan_combo(&cfg, 0, &combo);
	hwloc_topology_t topo = topology();
	const struct st_engine fe = faulty_posix();
	struct st_worker_args a = { .engine = &fe, .cfg = &cfg, .combo = &combo, .topo = topo,
				    .role = ST_ROLE_CLIENT, .run_dir = "stcluster-test",
				    .phases = st_config_phases(&cfg) };
	memset(&fault, 0, sizeof(fault));
	fault.enospc_after = -1;
	struct st_prepare_status ps;
	struct st_worker *w = st_worker_prepare(&a, &ps);
	CHECK(w && ps.err == 0);
	struct st_rank_result rr;
	struct st_thread_result tr[1];
	st_worker_phase(w, ST_PHASE_WRITE, st_now_ns(), &rr, tr);
	CHECK(rr.bytes == 65536 && rr.error.err == 0);
	fault.read_eio_after = 3 * 8192 + 2048;
	st_worker_phase(w, ST_PHASE_READ, st_now_ns(), &rr, tr);
	CHECK_EQ_INT(rr.error.err, EIO);
	CHECK(rr.error.op == ST_OP_READ && rr.error.offset == 3 * 8192 + 2048);
	CHECK(rr.ops == 4 && rr.bytes == 26624); /* the part of the 4th block counts */
	CHECK(strstr(rr.message, "read stcluster-test/r0.t0 at offset 26624: Input/output error") != NULL);
	fault.read_eio_after = 0;
	st_worker_finish(w);
	st_worker_remove_run_dir(&a, 0, NULL, 0);
	CHECK(count_entries(dir) == 0);
	rmdir(dir);
	hwloc_topology_destroy(topo);
}

static void layout_without_write_phase(void)
{
	const char *dir = unit_tmpdir();
	char err[ST_ERR_MAX];
	struct st_config cfg;
	cfg_for(&cfg, "posix", dir);
	st_config_set(&cfg, ST_OPT_BLOCK, "4k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_SIZE, "16k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_PHASES, "randread", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_REORDER, "off", 1, NULL, err, sizeof(err));
	struct st_combo combo;
	st_plan_combo(&cfg, 0, &combo);
	hwloc_topology_t topo = topology();
	struct st_prepare_status ps;
	struct st_worker *w = worker(&cfg, &combo, topo, 0, 0, &ps);
	CHECK(ps.err == 0);
	struct st_rank_result rr;
	struct st_thread_result tr[1];
	st_worker_phase(w, ST_PHASE_RANDREAD, st_now_ns(), &rr, tr);
	CHECK(rr.bytes == 16384 && rr.error.err == 0);
	st_worker_finish(w);
	struct st_worker_args a = { .engine = &st_engine_posix, .cfg = &cfg, .combo = &combo,
				    .run_dir = "stcluster-test" };
	st_worker_remove_run_dir(&a, 0, NULL, 0);
	CHECK(count_entries(dir) == 0);
	rmdir(dir);
	hwloc_topology_destroy(topo);
}

/* ---- the posix engine's queue (--iodepth > 1) ---- */

/* Which blocks the queue was handed, per phase: the worker's one thread
 * submits from its own thread, one at a time (a test fixture, as fault). */
static struct {
	unsigned char seen[64]; /* requests per block of the phase */
	uint64_t order[64];	/* blocks in the order submitted */
	int submitted;
	int max_inflight, inflight;
} queue_log;

static int logged_submit(void *q, void *fh, struct st_aio_req *r)
{
	uint64_t b = r->off / 4096;
	if (b < sizeof(queue_log.seen))
		queue_log.seen[b]++;
	if (queue_log.submitted < 64)
		queue_log.order[queue_log.submitted] = b;
	queue_log.submitted++;
	if (++queue_log.inflight > queue_log.max_inflight)
		queue_log.max_inflight = queue_log.inflight;
	return st_engine_posix.aio_submit(q, fh, r);
}

static int logged_reap(void *q, int min, struct st_aio_req **done, int max)
{
	int got = st_engine_posix.aio_reap(q, min, done, max);
	if (got > 0)
		queue_log.inflight -= got;
	return got;
}

/* Each of the 64 blocks exactly once. */
static int every_block_once(void)
{
	for (size_t b = 0; b < sizeof(queue_log.seen); b++)
		if (queue_log.seen[b] != 1)
			return 0;
	return queue_log.submitted == 64;
}

/* --iodepth 8 on real files through the real queue (io_uring here; the
 * submissions are only watched): every phase hands every block to the
 * queue exactly once, in a permutation for the random ones, with up to 8
 * in flight; the bytes are right, --verify holds, and a block changed
 * behind the run's back is found at its offset. */
static void posix_queue_depth(void)
{
	const char *dir = unit_tmpdir();
	char err[ST_ERR_MAX];
	struct st_config cfg;
	cfg_for(&cfg, "posix", dir);
	st_config_set(&cfg, ST_OPT_BLOCK, "4k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_SIZE, "256k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_IODEPTH, "8", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_VERIFY, "on", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_DATA, "random", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_REORDER, "off", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_PHASES, "write,read,randread,randwrite", 1, NULL, err,
		      sizeof(err));
	struct st_combo combo;
	st_plan_combo(&cfg, 0, &combo);
	hwloc_topology_t topo = topology();
	struct st_engine e = st_engine_posix;
	e.aio_submit = logged_submit;
	e.aio_reap = logged_reap;
	struct st_worker_args a = { .engine = &e, .cfg = &cfg, .combo = &combo, .topo = topo,
				    .role = ST_ROLE_CLIENT, .run_dir = "stcluster-test",
				    .phases = st_config_phases(&cfg), .run_seed = 99 };
	struct st_prepare_status ps;
	struct st_worker *w = st_worker_prepare(&a, &ps);
	CHECK(w && ps.err == 0);
	struct st_rank_result rr;
	struct st_thread_result tr[1];
	const int phases[] = { ST_PHASE_WRITE, ST_PHASE_READ, ST_PHASE_RANDREAD, ST_PHASE_RANDWRITE };
	for (size_t i = 0; i < ST_ARRAY_LEN(phases); i++) {
		memset(&queue_log, 0, sizeof(queue_log));
		st_worker_phase(w, phases[i], st_now_ns(), &rr, tr);
		CHECK(rr.bytes == 262144 && rr.ops == 64 && rr.error.err == 0 && rr.bad_blocks == 0);
		CHECK(rr.hist.count == 64);
		CHECK(every_block_once());
		CHECK(queue_log.max_inflight == 8 && queue_log.inflight == 0);
#ifdef ST_HAVE_LIBURING
		CHECK(strcmp(tr[0].io_mode, "io_uring") == 0);
#endif
		int in_order = 1;
		for (int k = 0; k < 64; k++)
			in_order &= queue_log.order[k] == (uint64_t)k;
		CHECK(in_order == (phases[i] == ST_PHASE_WRITE || phases[i] == ST_PHASE_READ));
	}
	/* a block changed behind the run's back: --verify finds it at depth 8 */
	char path[700];
	snprintf(path, sizeof(path), "%s/stcluster-test/r0.t0", dir);
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0);
	CHECK(pwrite(fd, "XXXXXXXX", 8, 40 * 4096 + 100) == 8);
	close(fd);
	memset(&queue_log, 0, sizeof(queue_log));
	st_worker_phase(w, ST_PHASE_RANDREAD, st_now_ns(), &rr, tr);
	CHECK(rr.bad_blocks == 1 && rr.first_bad_offset == 40 * 4096 && every_block_once());
	st_worker_finish(w);

	/* depth 1: one call at a time, and the thread says so */
	st_config_set(&cfg, ST_OPT_IODEPTH, "1", 1, NULL, err, sizeof(err));
	st_plan_combo(&cfg, 0, &combo);
	memset(&queue_log, 0, sizeof(queue_log));
	w = st_worker_prepare(&a, &ps);
	CHECK(w && ps.err == 0);
	st_worker_phase(w, ST_PHASE_WRITE, st_now_ns(), &rr, tr);
	CHECK(rr.bytes == 262144 && queue_log.submitted == 0 && strcmp(tr[0].io_mode, "sync") == 0);
	st_worker_finish(w);
	st_worker_remove_run_dir(&a, 0, NULL, 0);
	CHECK(count_entries(dir) == 0);
	rmdir(dir);
	hwloc_topology_destroy(topo);
}

static void registry(void)
{
	const char *missing = NULL;
	for (int i = 0; st_engines[i]; i++)
		CHECK(st_engine_check(st_engines[i], &missing) == 0);
	CHECK(st_engine_find("posix") == &st_engine_posix);
	CHECK(st_engine_find("nope") == NULL);
	/* every engine the --engine option offers is either built in or refused clearly */
	struct st_engine broken = st_engine_null;
	broken.fsync = NULL;
	CHECK(st_engine_check(&broken, &missing) == -1 && strcmp(missing, "fsync") == 0);
}

static void libnfs_url_check(void)
{
	char why[256];
	struct st_nfs_url u;
	CHECK(st_nfs_url_parse("nfs://10.77.5.9/export/dir?version=3&nfsport=2049", &u, why,
			       sizeof(why)) == 0);
	CHECK(strcmp(u.server, "10.77.5.9") == 0 && strcmp(u.host, "10.77.5.9") == 0);
	CHECK(strcmp(u.path, "/export/dir") == 0 && u.version == 3 && u.mountport == 0);
	/* an IPv6 server, in brackets or bare: libnfs connects to the address alone */
	CHECK(st_nfs_url_parse("nfs://[fd00::5]/export?mountport=20048", &u, why, sizeof(why)) == 0);
	CHECK(strcmp(u.server, "[fd00::5]") == 0 && strcmp(u.host, "fd00::5") == 0);
	CHECK(u.mountport == 20048);
	CHECK(st_nfs_url_parse("nfs://fd00::5/export", &u, why, sizeof(why)) == 0);
	CHECK(strcmp(u.server, "fd00::5") == 0 && strcmp(u.host, "fd00::5") == 0);
	static const struct {
		const char *url, *must;
	} bad[] = {
		{ "http://h/x", "is not an nfs:// URL" },
		{ "nfs:///x", "has no server" },
		{ "nfs://h:2049/x", "has a port" },
		{ "nfs://[fd00::5]:2049/x", "has a port" },
		{ "nfs://[fd00::5/x", "'[' that is not an IPv6 address" },
		{ "nfs://[h]/x", "'[' that is not an IPv6 address" },
		{ "nfs://fd00::5]/x", "stray" },
		{ "nfs://u@h/x", "user@" },
		{ "nfs://h/x?version=5", "version must be 3 or 4" },
		{ "nfs://h/x?version=3&", "ends with '&'" },
		/* once quoted back into the message, a second line */
		{ "nfs://h/x?version=\n3", "control character (0x0a)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		CHECK(st_nfs_url_parse(bad[i].url, &u, why, sizeof(why)) == -1);
		if (!strstr(why, bad[i].must))
			fprintf(stderr, "    %s: '%s' lacks '%s'\n", bad[i].url, why, bad[i].must);
		CHECK(strstr(why, bad[i].must) != NULL);
		CHECK(strchr(why, '\n') == NULL);
	}
}

const struct unit_test unit_engine[] = {
	{ "engine: registry and table check", registry },
	{ "engine: libnfs: the nfs:// URL parser", libnfs_url_check },
	{ "engine: posix seam: short writes, EINTR, ENOSPC; links never followed out", posix_seam },
	{ "worker: null engine: bytes, ops, errors, deadline, failed setup", null_worker },
	{ "worker: posix files: reorder, random phases, own files removed", posix_worker_files },
	{ "worker: files laid out when no write phase runs", layout_without_write_phase },
	{ "worker: posix --iodepth 8 queue: every block once, bytes, --verify finds a changed block", posix_queue_depth },
	{ "worker: ENOSPC part-way through a block: recorded as ENOSPC from write, file removed",
	  posix_worker_enospc_in_a_block },
	{ "worker: a read failing part-way (soft timeout): its EIO, not a short read",
	  posix_worker_soft_timeout_in_a_read },
	{ NULL, NULL },
};

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
	int estale_left;    /* the next N unlink/rmdir names answer ESTALE, doing nothing, */
	int estale_twice;   /* once each (twice if set) before the call is carried out */
	int estale_run;	    /* ESTALE answers in a row on the current name */
	int estale_seen;    /* ESTALE answers given */
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

/* unlink and rmdir as libnfs gives them when a directory on the way to the
 * name was removed meanwhile: ESTALE, and nothing done */
static int stale_now(void)
{
	if (fault.estale_left <= 0)
		return 0;
	if (fault.estale_run == 1 + fault.estale_twice) { /* this name's answers given */
		fault.estale_run = 0;
		fault.estale_left--;
		return 0;
	}
	fault.estale_run++;
	fault.estale_seen++;
	return 1;
}

static int stale_rmdir(void *rs, const char *path)
{
	return stale_now() ? -ESTALE : st_engine_posix.rmdir(rs, path);
}

static int stale_unlink(void *rs, const char *path)
{
	return stale_now() ? -ESTALE : st_engine_posix.unlink(rs, path);
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
	struct st_worker_args a = { .engine = st_engine_find(cfg->o[ST_OPT_ENGINE].s),
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

/* --null-surface: each combination's calls take the delay its options
 * give (4 ms at rsize=64k, 1 ms at 1m); with no noise the phase cannot be
 * shorter than its calls' delays, and the fast one ends before the slow
 * one could (the schedule is absolute: oversleeping does not add up) */
static void null_surface_worker(void)
{
	char path[600], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/surface.txt", unit_tmpdir());
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("base 2ms\nfactor rsize=64k 2\nfactor rsize=1m 0.5\n", f);
	fclose(f);
	struct st_config cfg;
	cfg_for(&cfg, "null", "/nonexistent");
	st_config_set(&cfg, ST_OPT_BLOCK, "4k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_SIZE, "64k", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_THREADS, "1", 1, NULL, err, sizeof(err));
	st_config_set(&cfg, ST_OPT_RSIZE, "64k,1m", 1, NULL, err, sizeof(err));
	CHECK(st_config_set(&cfg, ST_OPT_NULL_SURFACE, path, 1, NULL, err, sizeof(err)) == 0);
	CHECK(st_engine_null.validate(&cfg, 0, err, sizeof(err)) == 0);
	hwloc_topology_t topo = topology();
	int64_t took[2];
	for (int i = 0; i < 2; i++) {
		struct st_combo combo;
		st_plan_combo(&cfg, (uint64_t)i, &combo);
		struct st_prepare_status ps;
		struct st_worker *w = worker(&cfg, &combo, topo, 0, 0, &ps);
		CHECK(w && ps.err == 0);
		if (!w)
			break;
		struct st_rank_result rr;
		struct st_thread_result tr[1];
		st_worker_phase(w, ST_PHASE_WRITE, st_now_ns(), &rr, tr);
		CHECK(rr.ops == 16 && rr.error.err == 0);
		took[i] = rr.end_ns - rr.start_ns;
		st_worker_finish(w);
	}
	CHECK(took[0] >= 16 * 4000000LL); /* rsize=64k: 16 calls of 4 ms */
	CHECK(took[1] >= 16 * 1000000LL); /* rsize=1m: 16 of 1 ms */
	CHECK(took[1] < 16 * 4000000LL);
	/* it replaces --null-delay; a file that does not parse is refused */
	st_config_set(&cfg, ST_OPT_NULL_DELAY, "1ms", 1, NULL, err, sizeof(err));
	CHECK(st_engine_null.validate(&cfg, 0, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--null-delay cannot be given with it") != NULL);
	st_config_set(&cfg, ST_OPT_NULL_DELAY, "0", 1, NULL, err, sizeof(err));
	f = fopen(path, "w");
	if (f) {
		fputs("base 2ms\nfactor rsize=5000 2\n", f);
		fclose(f);
	}
	CHECK(st_engine_null.validate(&cfg, 0, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--null-surface: ") && strstr(err, "surface.txt:2: --rsize: "));
	remove(path);
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
		CHECK(strcmp(tr[0].io_mode, "io_uring fixed") == 0);
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

/* The queue on its own, given 4 buffers: requests in them go as the
 * registered buffers they are (io_uring fixed here), one in a buffer of its
 * own goes as a plain request, and the bytes land where they should either
 * way; a read cut short by the end of the file goes on inside its buffer and
 * returns what there was. */
static void posix_queue_buffers(void)
{
	const char *dir = unit_tmpdir();
	char path[700];
	snprintf(path, sizeof(path), "%s/q", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	unsigned char *bufs = NULL, *own = NULL;
	CHECK(posix_memalign((void **)&bufs, 4096, 4 * 4096) == 0);
	CHECK(posix_memalign((void **)&own, 4096, 4096) == 0);
	void *q = NULL;
	char mode[64];
	CHECK(st_posix_aio_init(&st_posix_sys_real, 4, bufs, 4096, &q, mode, sizeof(mode)) == 0);
#ifdef ST_HAVE_LIBURING
	CHECK(strcmp(mode, "io_uring fixed") == 0);
#endif
	struct st_aio_req r[5];
	struct st_aio_req *done[5];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 5; i++) {
		r[i].buf = i < 4 ? bufs + 4096 * i : own;
		memset(r[i].buf, 'a' + i, 4096);
		r[i].len = 4096;
		r[i].off = 4096 * (uint64_t)i;
		r[i].write = 1;
	}
	/* the 4 registered ones, then the one of its own */
	for (int i = 0; i < 4; i++)
		CHECK(st_posix_aio_submit(q, fd, &r[i]) == 0);
	int got = 0;
	while (got < 4) {
		int k = st_posix_aio_reap(q, 1, done, 5);
		CHECK(k > 0);
		got += k > 0 ? k : 4;
	}
	CHECK(st_posix_aio_submit(q, fd, &r[4]) == 0);
	CHECK(st_posix_aio_reap(q, 1, done, 5) == 1 && done[0] == &r[4]);
	for (int i = 0; i < 5; i++)
		CHECK(r[i].res == 4096);
	/* read back, the last block 904 bytes short of the end of the file */
	CHECK(ftruncate(fd, 4 * 4096 + 3192) == 0);
	for (int i = 0; i < 5; i++) {
		memset(r[i].buf, 0, 4096);
		r[i].write = 0;
	}
	for (int i = 0; i < 4; i++)
		CHECK(st_posix_aio_submit(q, fd, &r[i]) == 0);
	got = 0;
	while (got < 4) {
		int k = st_posix_aio_reap(q, 1, done, 5);
		CHECK(k > 0);
		got += k > 0 ? k : 4;
	}
	CHECK(st_posix_aio_submit(q, fd, &r[4]) == 0);
	CHECK(st_posix_aio_reap(q, 1, done, 5) == 1);
	int right = 1;
	for (int i = 0; i < 5; i++) {
		size_t want = i < 4 ? 4096 : 3192;
		right &= r[i].res == (ssize_t)want;
		for (size_t b = 0; b < 4096; b++)
			right &= ((unsigned char *)r[i].buf)[b] == (b < want ? 'a' + i : 0);
	}
	CHECK(right);
	st_posix_aio_file_done(q, fd, mode, sizeof(mode));
#ifdef ST_HAVE_LIBURING
	CHECK(strcmp(mode, "io_uring fixed") == 0);
#endif
	st_posix_aio_fini(q);
	close(fd);
	unlink(path);
	rmdir(dir);
	free(bufs);
	free(own);
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

/* An engine's own unsupported(): reads and stats, whatever the combination. */
static unsigned no_reads_or_stats(const struct st_config *cfg, const struct st_combo *c,
				  char *why, size_t n)
{
	(void)cfg;
	(void)c;
	snprintf(why, n, "injected: no reads or stats");
	return 1u << ST_PHASE_READ | 1u << ST_PHASE_STAT;
}

/* engine.h's contract for the metadata calls: all three or none, checked;
 * an engine without them has its metadata phases skipped, with the reason
 * the run stores; and the worker, asked anyway, calls none of them. */
static void metadata_all_or_none(void)
{
	const char *missing = NULL;
	struct st_engine e = st_engine_null;
	e.meta = NULL;
	CHECK(st_engine_check(&e, &missing) == -1 && strcmp(missing, "meta") == 0);
	e = st_engine_null;
	e.dir_open = NULL;
	CHECK(st_engine_check(&e, &missing) == -1 && strcmp(missing, "dir_open") == 0);
	e = st_engine_null;
	e.dir_close = NULL;
	CHECK(st_engine_check(&e, &missing) == -1 && strcmp(missing, "dir_close") == 0);
	e.dir_open = NULL;
	e.meta = NULL;
	CHECK(st_engine_check(&e, &missing) == 0);
	CHECK(!st_engine_has_meta(&e));
	for (int i = 0; st_engines[i]; i++)
		CHECK(st_engine_has_meta(st_engines[i]));

	struct st_config cfg;
	char err[ST_ERR_MAX], why[256];
	cfg_for(&cfg, "null", "/nonexistent");
	st_config_set(&cfg, ST_OPT_PHASES, "create,stat", 1, NULL, err, sizeof(err));
	struct st_combo combo;
	st_plan_combo(&cfg, 0, &combo);
	const unsigned all = (1u << ST_PHASE_COUNT) - 1;
	CHECK(st_engine_unsupported(&e, &cfg, &combo, all, why, sizeof(why)) == ST_PHASES_META);
	CHECK(strcmp(why, "the null engine has no metadata phases") == 0);
	CHECK(st_engine_unsupported(&e, &cfg, &combo, ST_PHASES_DATA, why, sizeof(why)) == 0);
	CHECK(why[0] == '\0');
	CHECK(st_engine_unsupported(&st_engine_null, &cfg, &combo, all, why, sizeof(why)) == 0);
	CHECK(why[0] == '\0');
	/* with the engine's own answer: both reasons, and each phase once */
	e.unsupported = no_reads_or_stats;
	CHECK(st_engine_unsupported(&e, &cfg, &combo, all, why, sizeof(why)) ==
	      (ST_PHASES_META | 1u << ST_PHASE_READ));
	CHECK(strcmp(why, "the null engine has no metadata phases; injected: no reads or stats") == 0);
	CHECK(st_engine_unsupported(&e, &cfg, &combo, 1u << ST_PHASE_STAT, why, sizeof(why)) ==
	      1u << ST_PHASE_STAT);
	CHECK(strcmp(why, "the null engine has no metadata phases") == 0);
	CHECK(st_engine_unsupported(&e, &cfg, &combo, 1u << ST_PHASE_WRITE, why, sizeof(why)) == 0);
	e.unsupported = NULL;

	/* the worker, given them anyway: a failed preparation and a failed
	 * phase that say so, and not one call of a missing entry */
	hwloc_topology_t topo = topology();
	struct st_worker_args a = { .engine = &e, .cfg = &cfg, .combo = &combo, .topo = topo,
				    .role = ST_ROLE_CLIENT, .run_dir = "stcluster-test",
				    .phases = st_config_phases(&cfg) };
	struct st_prepare_status ps;
	struct st_worker *w = st_worker_prepare(&a, &ps);
	CHECK(w && ps.err == EOPNOTSUPP);
	CHECK(strcmp(ps.message, "the null engine has no metadata phases") == 0);
	struct st_rank_result rr;
	struct st_thread_result tr[1];
	st_worker_phase(w, ST_PHASE_STAT, st_now_ns(), &rr, tr);
	CHECK(rr.error.err == EOPNOTSUPP && rr.ops == 0 && tr[0].ops == 0);
	st_worker_finish(w);
	hwloc_topology_destroy(topo);
}

/* What the engines declare: each says what it is, takes only classes the
 * options table knows, and takes a class only once mounted when it can
 * mount; and every option that needs a class is taken by some engine of
 * this build (else no run could ever give it). */
static void registry_declares_what_engines_take(void)
{
	for (int i = 0; st_engines[i]; i++) {
		const struct st_engine *e = st_engines[i];
		CHECK(e->name && *e->name && e->help && *e->help);
		CHECK(!(e->takes & ~ST_NEEDS_ALL) && !(e->takes_mounted & ~ST_NEEDS_ALL));
		CHECK(!(e->takes & e->takes_mounted));
		CHECK(!e->takes_mounted || (e->takes & ST_NEEDS_MOUNTER));
		CHECK(!(e->caps & ST_EC_NEEDS_TARGET_DIR) || !(e->caps & ST_EC_NO_TARGET));
		CHECK(st_engine_left_out(e->name) == NULL);
		for (int k = 0; k < i; k++)
			CHECK(strcmp(st_engines[k]->name, e->name) != 0);
	}
	for (int id = 0; id < ST_OPT_COUNT; id++) {
		char who[256];
		unsigned needs = st_options[id].needs;
		if (!needs)
			continue;
		CHECK(!(needs & ~ST_NEEDS_ALL));
		st_engine_takers(needs, who, sizeof(who));
		if (!*who)
			fprintf(stderr, "    --%s: no engine takes it\n", st_options[id].name);
		CHECK(*who != '\0');
	}
}

/* The choice of an engine refuses, in one line naming the option, its
 * value and the engines that take it, what the chosen one does not take;
 * an option at its default is no choice. */
static void choosing_an_engine(void)
{
	static const struct {
		const char *engine, *opt, *val, *opt2, *val2;
		const char *must; /* NULL: accepted */
	} cases[] = {
		{ "posix", "null-delay", "1ms", NULL, NULL,
		  "--null-delay: only for --engine null (given: 1ms, with --engine posix)" },
		{ "posix", "null-delay", "0", NULL, NULL, NULL },
		{ "posix", "null-error", "EIO", NULL, NULL, "--null-error: only for --engine null" },
		{ "posix", "rsize", "64k,1m", NULL, NULL,
		  "--rsize: a mount option needs --mount SOURCE (and root) with the posix engine; "
		  "without it the options in force are recorded (given: 64k,1m; taken by --engine "
		  "posix with --mount" },
		{ "posix", "set", "vers=3,block=4k", NULL, NULL, "--vers: a mount option needs --mount" },
		{ "posix", "rsize", "64k", "mount", "srv:/export", NULL },
		{ "posix", "mount-opts", "a=1;b=2", NULL, NULL, "--mount-opts: a mount option needs" },
		{ "posix", "mount-opts", "a=1;b=2", "mount", "srv:/export", NULL },
		{ "posix", "iodepth", "8", NULL, NULL, NULL },
		{ "null", "rsize", "64k", "null-delay", "1ms", NULL },
		{ "null", "set", "vers=3,rsize=64k", NULL, NULL, NULL },
		{ "null", "mount", "srv:/export", NULL, NULL,
		  "--mount: only for --engine posix (given: srv:/export, with --engine null)" },
		{ "null", "mount-opts", "a=1;b=2", NULL, NULL,
		  "--mount-opts: only for --engine posix with --mount (given: a=1;b=2, with --engine "
		  "null)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct st_config c;
		char err[ST_ERR_MAX] = "";
		const struct st_engine *e = NULL;
		st_config_defaults(&c);
		CHECK(st_config_set(&c, ST_OPT_ENGINE, cases[i].engine, 1, NULL, err, sizeof(err)) == 0);
		CHECK(st_config_set(&c, ST_OPT_TARGET, "/tmp", 1, NULL, err, sizeof(err)) == 0);
		CHECK(st_config_set(&c, st_opt_find(cases[i].opt), cases[i].val, 1, NULL, err,
				    sizeof(err)) == 0);
		if (cases[i].opt2)
			CHECK(st_config_set(&c, st_opt_find(cases[i].opt2), cases[i].val2, 1, NULL, err,
					    sizeof(err)) == 0);
		int rc = st_engine_choose(&c, &e, err, sizeof(err));
		int good = cases[i].must ? rc == -1 && strstr(err, cases[i].must) && !strchr(err, '\n')
					 : rc == 0 && e == st_engine_find(cases[i].engine);
		if (!good)
			fprintf(stderr, "    --engine %s --%s %s: %d '%s'\n", cases[i].engine,
				cases[i].opt, cases[i].val, rc, err);
		CHECK(good);
	}
	/* --target: only an engine that needs none runs without it (or --dry-run) */
	struct st_config c;
	char err[ST_ERR_MAX];
	const struct st_engine *e = NULL;
	st_config_defaults(&c);
	CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--target: missing (the directory to test; --engine null"));
	st_config_set(&c, ST_OPT_DRY_RUN, "", 1, NULL, err, sizeof(err));
	CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == 0 && e == st_engines[0]);
	st_config_defaults(&c);
	st_config_set(&c, ST_OPT_ENGINE, "null", 1, NULL, err, sizeof(err));
	CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == 0 && e == &st_engine_null);
	/* an engine this build left out says why; one nobody knows lists them all */
	st_config_set(&c, ST_OPT_ENGINE, "libnfs", 1, NULL, err, sizeof(err));
	if (st_engine_find("libnfs"))
		CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == -1 &&
		      strstr(err, "--target: missing"));
	else
		CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == -1 &&
		      strstr(err, "--engine: 'libnfs' is not built into this stcluster (it was built "
				  "without libnfs"));
	st_config_set(&c, ST_OPT_ENGINE, "ceph", 1, NULL, err, sizeof(err));
	CHECK(st_engine_choose(&c, &e, err, sizeof(err)) == -1 &&
	      strstr(err, "--engine: unknown value 'ceph' (one of: posix, null"));
	for (int i = 0; st_engines[i]; i++)
		CHECK(strstr(err, st_engines[i]->name) != NULL);
	CHECK(strstr(err, "libnfs") != NULL); /* built in or not, it is one */
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

/* The end of a run after a server freeze: a removal answered ESTALE (a
 * handle on the way no longer names anything) is looked up again; a name
 * that is gone is not "left behind", one still there is removed. */
static void remove_run_dir_after_estale(void)
{
	char dir[512], path[1024];
	snprintf(dir, sizeof(dir), "%s", unit_tmpdir());
	char err[ST_ERR_MAX];
	struct st_config cfg;
	cfg_for(&cfg, "posix", dir);
	st_config_set(&cfg, ST_OPT_THREADS, "2", 1, NULL, err, sizeof(err));
	struct st_combo combo;
	st_plan_combo(&cfg, 0, &combo);
	struct st_engine fe = st_engine_posix;
	fe.rmdir = stale_rmdir;
	fe.unlink = stale_unlink;
	struct st_worker_args a = { .engine = &fe, .cfg = &cfg, .combo = &combo,
				    .run_dir = "stcluster-test" };
	char left[512];
	/* every name already gone, each first answer ESTALE */
	for (int k = 1; k <= 6; k++) {
		snprintf(path, sizeof(path), "%s/stcluster-test", dir);
		CHECK(mkdir(path, 0755) == 0);
		memset(&fault, 0, sizeof(fault));
		fault.estale_left = k;
		left[0] = 'x';
		CHECK_EQ_INT(st_worker_remove_run_dir(&a, 0, left, sizeof(left)), 0);
		if (left[0])
			fprintf(stderr, "    %d ESTALE: left '%s'\n", k, left);
		CHECK(left[0] == '\0');
		CHECK_EQ_INT(fault.estale_seen, k);
		CHECK(count_entries(dir) == 0);
	}
	/* the names still there: removed on the second look */
	snprintf(path, sizeof(path), "%s/stcluster-test", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/stcluster-test/r0.t1.d", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/stcluster-test/r0.t1", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	memset(&fault, 0, sizeof(fault));
	fault.estale_left = 6;
	CHECK_EQ_INT(st_worker_remove_run_dir(&a, 0, left, sizeof(left)), 0);
	CHECK(left[0] == '\0');
	CHECK(count_entries(dir) == 0);
	/* ESTALE twice on one name: said, not taken for gone */
	snprintf(path, sizeof(path), "%s/stcluster-test", dir);
	CHECK(mkdir(path, 0755) == 0);
	memset(&fault, 0, sizeof(fault));
	fault.estale_left = 1;
	fault.estale_twice = 1;
	CHECK(st_worker_remove_run_dir(&a, 0, left, sizeof(left)) == -ESTALE);
	CHECK(strstr(left, "stcluster-test/r0.t0: ESTALE") != NULL);
	CHECK(strstr(left, "r0.t0.d") == NULL); /* the next name, not stale, is gone */
	CHECK(count_entries(dir) == 0);
	rmdir(dir);
}

const struct unit_test unit_engine[] = {
	{ "engine: null with --null-surface: each combination's delay as the surface gives it",
	  null_surface_worker },
	{ "engine: registry and table check", registry },
	{ "engine: metadata calls all or none; without them the metadata phases are skipped",
	  metadata_all_or_none },
	{ "engine: each declares what it takes; every option class is taken by one",
	  registry_declares_what_engines_take },
	{ "engine: the choice refuses an option the engine does not take, naming who does",
	  choosing_an_engine },
	{ "engine: libnfs: the nfs:// URL parser", libnfs_url_check },
	{ "engine: posix seam: short writes, EINTR, ENOSPC; links never followed out", posix_seam },
	{ "worker: null engine: bytes, ops, errors, deadline, failed setup", null_worker },
	{ "worker: posix files: reorder, random phases, own files removed", posix_worker_files },
	{ "worker: files laid out when no write phase runs", layout_without_write_phase },
	{ "worker: posix --iodepth 8 queue: every block once, bytes, --verify finds a changed block", posix_queue_depth },
	{ "engine: posix queue: registered buffers, a request outside them, a read cut short", posix_queue_buffers },
	{ "worker: ENOSPC part-way through a block: recorded as ENOSPC from write, file removed",
	  posix_worker_enospc_in_a_block },
	{ "worker: a read failing part-way (soft timeout): its EIO, not a short read",
	  posix_worker_soft_timeout_in_a_read },
	{ "worker: the end after a server freeze: ESTALE looked up again, gone is not left behind",
	  remove_run_dir_after_estale },
	{ NULL, NULL },
};

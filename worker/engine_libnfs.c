/*
 * engine_libnfs.c - NFS from userspace through libnfs 4.0: no mount(8), no root.
 *
 * --target is nfs://server/export/dir?version=3&nfsport=N&mountport=N; the
 * URL's path is mounted (NFSv3 MNT, or the NFSv4 path) and the worker's
 * paths are taken relative to it. This file is the engine's glue: the
 * plan of a combination, validate, the engine table's calls; the contexts
 * and the raw NFSv3 call pipeline are lnfs_rpc.c (lnfs.h says how the data
 * goes, and who owns what), the URL parser is lnfs_url.c. Every NFSv4
 * context gets its own client name, as the server drops the state of a
 * client whose name comes back with another verifier.
 *
 * validate() (rank 0, before anything exists) checks the URL strictly,
 * mounts it over NFSv3 within the job's deadline (any file is written over
 * v3) and asks ACCESS for write; when the mount is refused, a shorter path
 * that mounts tells "no such export" from "no such directory in it".
 * Nothing is created, no UMNT is sent (the server's mount list is advisory).
 *
 * How the NFS options map (the effective value of each is stored):
 *   vers     3: everything. 4: reads only - libnfs 4.0.0 cannot write over
 *            NFSv4, so the write phases are skipped with that reason, and the
 *            worker's untimed layout writes go over a per-thread NFSv3
 *            context. 4.1/4.2: skipped (libnfs 4.0.0 speaks NFSv4.0 only).
 *            Unset: the URL's version=, else 3.
 *   proto    tcp only; udp and rdma combinations are skipped.
 *   rsize,   bytes of each READ/WRITE call: a block is split into calls of
 *   wsize    that size. Asking more than the server's maximum (FSINFO
 *            rtmax/wtmax, which libnfs caps at 1 MiB; for NFSv4 the NFSv3
 *            value stands in) is clamped, and the clamp is the effective
 *            value; unset = the maximum. A READ above 1 MiB would hang
 *            libnfs 4.0 (it drops replies over 1 MiB + 4 KiB), so it never
 *            goes out.
 *   sync     sync: FILE_SYNC writes. async (the default, as NFS's): UNSTABLE
 *            writes, and a COMMIT in fsync() - or in close() when writes are
 *            still uncommitted - so both modes count durable bytes inside the
 *            timed phase. The write verifiers and the COMMIT verifier must
 *            agree; if they differ the server restarted and lost the unstable
 *            data: EIO.
 *   hard,    nothing waits past the phase deadline, in either mode: at open()
 *   soft     the engine notes open time + --deadline (the worker's own
 *            deadline is its barrier release + --deadline, a moment earlier)
 *            and gives every call that bound as its libnfs timeout
 *            (nfs_set_timeout, milliseconds, expired by rpc_service, which
 *            the loop runs at least every 100 ms). Connecting (setup,
 *            thread_init) ends by the worker's connect deadline; each mkdir,
 *            unlink, rmdir by --deadline from its start.
 *            hard: libnfs reconnects without limit and resends what was in
 *            flight (autoreconnect -1); a call still unanswered at the
 *            deadline fails with ETIMEDOUT. timeo and retrans do not shorten
 *            a hard call (there is nothing to retransmit on a live TCP
 *            connection).
 *            soft: a call fails with ETIMEDOUT after the time nfs(5) soft would
 *            wait over TCP: timeo, then retrans retransmissions each timeo
 *            longer than the last (linear backoff, at most 600 s each), i.e.
 *            sum(i = 1..retrans+1) min(i x timeo, 600 s) - 360 s for the
 *            defaults timeo=600, retrans=2. libnfs has no retransmission on a
 *            live connection, so this is one libnfs call timeout; connecting
 *            gives up after as long. A lost connection is not
 *            re-established (autoreconnect 0): its calls fail with EIO, and
 *            so do later calls on that connection in the combination.
 *   nconnect connections per client rank. A context belongs to one thread,
 *            so each thread owns ceil(nconnect / threads) contexts and sends
 *            its calls round-robin over them; effective = threads x that, at
 *            least threads (the options summary says why when it differs).
 *   iodepth  calls each thread keeps in flight (default 1). 1: a pread or
 *            pwrite returns when the server has answered all its calls (a
 *            block larger than rsize/wsize is several calls, one at a time).
 *            N > 1: a block's calls go out up to N at once; a pwrite returns
 *            as soon as its last call is queued (libnfs copies the data at
 *            queue time), so up to N calls of this and earlier blocks stay in
 *            flight - the next pwrite waits for a free slot, fsync and close
 *            wait for all (so the phase time covers every byte). An error of a
 *            call whose pwrite already returned is reported by the next
 *            pwrite, fsync or close of the file. Reads: the worker announces
 *            the next blocks (prefetch), whose READs go out at once when a
 *            block fits in one call, so N calls are in flight across blocks;
 *            a larger block keeps N in flight within itself.
 *            Latency, at every depth: each read's and write's issue (its first
 *            call queued) to its completion (its last call answered), timed
 *            here (time_calls) - not the pwrite's queueing or the pread's wait
 *            for data already read ahead.
 *   ac, actimeo  combinations that set them are skipped: the engine keeps
 *            no attribute cache to turn on or off.
 *   direct   granted: libnfs has no page cache on this data path.
 *
 * The metadata phases (NFSv3) are raw calls on the thread's contexts, from
 * the handle of the directory they work in (looked up once per directory),
 * so each operation is the calls a client that caches nothing sends:
 *   create  CREATE (GUARDED: an existing file is an error, as O_EXCL), then
 *           with --file-size its WRITEs and, when unstable, a COMMIT (the
 *           kernel's flush at close)
 *   stat    LOOKUP of the name, GETATTR of the handle
 *   open    LOOKUP, then with --file-size the READs of the file
 *   remove  REMOVE
 * Their directories are made with MKDIR (the thread's own with libnfs's
 * nfs_mkdir2) and removed with RMDIR.
 */
#include "engine.h"
#include "lnfs.h"

#include "../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* nfs(5), soft over TCP: the first try waits timeo, each of the retrans
 * retransmissions timeo longer than the one before, none over 600 s. */
static int64_t soft_bound_ns(int64_t timeo_ds, int64_t retrans)
{
	int64_t total = 0;
	for (int64_t i = 1; i <= retrans + 1; i++)
		total += i * timeo_ds < 6000 ? i * timeo_ds : 6000;
	return total * 100 * NS_PER_MS;
}

static int64_t or_default(int64_t v, int64_t def)
{
	return v == ST_UNSET ? def : v;
}

/* The combination's vers; unset: the URL's version=, else 3. */
static enum st_vers vers_of(const struct st_combo *c, const struct st_nfs_url *u)
{
	if (c->v[ST_OPT_VERS] != ST_UNSET)
		return (enum st_vers)c->v[ST_OPT_VERS];
	return u->version == 4 ? ST_VERS_4 : ST_VERS_3;
}

static void plan_make(const struct st_config *cfg, const struct st_combo *c,
		      const struct st_nfs_url *u, const struct lnfs_lib *lib, struct lnfs_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->lib = lib;
	p->u = *u;
	st_copy(p->url, sizeof(p->url), cfg->o[ST_OPT_TARGET].s);
	p->vers = vers_of(c, u) == ST_VERS_3 ? 3 : 4;
	p->stable = or_default(c->v[ST_OPT_SYNC], ST_SYNC_ASYNC) == ST_SYNC_SYNC ? FILE_SYNC : UNSTABLE;
	p->soft = or_default(c->v[ST_OPT_HARD], ST_HARD_HARD) == ST_HARD_SOFT;
	p->timeo = or_default(c->v[ST_OPT_TIMEO], 600);
	p->retrans = or_default(c->v[ST_OPT_RETRANS], 2);
	p->soft_ns = soft_bound_ns(p->timeo, p->retrans);
	int64_t threads = c->v[ST_OPT_THREADS] > 0 ? c->v[ST_OPT_THREADS] : 1;
	int64_t nconnect = or_default(c->v[ST_OPT_NCONNECT], 1);
	p->conns = (int)((nconnect + threads - 1) / threads);
	if (p->conns > LNFS_MAX_CONN)
		p->conns = LNFS_MAX_CONN;
	p->iodepth = (int)or_default(c->v[ST_OPT_IODEPTH], 1);
	p->deadline_ns = cfg->o[ST_OPT_DEADLINE].v[0];
}

/* After the rank's mount: the server's maxima clamp rsize and wsize. */
static uint32_t clamp_size(int64_t asked, uint32_t max)
{
	return asked == ST_UNSET || asked > (int64_t)max ? max : (uint32_t)asked;
}

static void plan_sizes(const struct st_combo *c, struct lnfs_plan *p, uint64_t readmax,
		       uint64_t writemax)
{
	p->readmax = readmax > LNFS_LIBNFS_MAX || readmax == 0 ? LNFS_LIBNFS_MAX : (uint32_t)readmax;
	p->writemax = writemax > LNFS_LIBNFS_MAX || writemax == 0 ? LNFS_LIBNFS_MAX
								   : (uint32_t)writemax;
	p->rsize = clamp_size(c->v[ST_OPT_RSIZE], p->readmax);
	p->wsize = clamp_size(c->v[ST_OPT_WSIZE], p->writemax);
}

/* Append to buf (size n) at *off, truncating quietly. */
static void addf(char *buf, size_t n, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void addf(char *buf, size_t n, size_t *off, const char *fmt, ...)
{
	if (*off >= n)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + *off, n - *off, fmt, ap);
	va_end(ap);
	*off = k < 0 ? n : *off + (size_t)k;
}

static void eff_set(struct st_effective *e, int id, int64_t v)
{
	st_effective_set(e, id, v);
}

static void effective_fill(const struct lnfs_plan *p, const struct st_combo *c,
			   struct st_effective *e)
{
	int64_t threads = c->v[ST_OPT_THREADS] > 0 ? c->v[ST_OPT_THREADS] : 1;
	int64_t nconnect = threads * p->conns;
	memset(e, 0, sizeof(*e));
	eff_set(e, ST_OPT_VERS, p->vers == 3 ? ST_VERS_3 : ST_VERS_4);
	eff_set(e, ST_OPT_PROTO, ST_PROTO_TCP);
	eff_set(e, ST_OPT_RSIZE, p->rsize);
	eff_set(e, ST_OPT_WSIZE, p->wsize);
	eff_set(e, ST_OPT_SYNC, p->stable == FILE_SYNC ? ST_SYNC_SYNC : ST_SYNC_ASYNC);
	eff_set(e, ST_OPT_HARD, p->soft ? ST_HARD_SOFT : ST_HARD_HARD);
	eff_set(e, ST_OPT_TIMEO, p->timeo);
	eff_set(e, ST_OPT_RETRANS, p->retrans);
	eff_set(e, ST_OPT_NCONNECT, nconnect);
	eff_set(e, ST_OPT_IODEPTH, p->iodepth);
	e->max[ST_OPT_RSIZE] = p->readmax;
	e->max[ST_OPT_WSIZE] = p->writemax;

	char *o = e->options;
	size_t n = sizeof(e->options), off = 0;
	addf(o, n, &off, "vers=%d,proto=tcp,rsize=%u", p->vers, p->rsize);
	if (c->v[ST_OPT_RSIZE] != ST_UNSET && c->v[ST_OPT_RSIZE] > p->rsize)
		addf(o, n, &off, " (asked %lld: the server's maximum)", (long long)c->v[ST_OPT_RSIZE]);
	addf(o, n, &off, ",wsize=%u", p->wsize);
	if (c->v[ST_OPT_WSIZE] != ST_UNSET && c->v[ST_OPT_WSIZE] > p->wsize)
		addf(o, n, &off, " (asked %lld: the server's maximum)", (long long)c->v[ST_OPT_WSIZE]);
	addf(o, n, &off, ",%s,%s,timeo=%lld,retrans=%lld", p->stable == FILE_SYNC ? "sync" : "async",
	     p->soft ? "soft" : "hard", (long long)p->timeo, (long long)p->retrans);
	if (p->soft)
		addf(o, n, &off, " (a call fails after %.1f s)", (double)p->soft_ns / 1e9);
	addf(o, n, &off, ",nconnect=%lld", (long long)nconnect);
	int64_t asked = c->v[ST_OPT_NCONNECT];
	if (asked == ST_UNSET && nconnect > 1)
		addf(o, n, &off, " (one context per thread: a libnfs context is not thread-safe)");
	else if (asked != ST_UNSET && asked != nconnect)
		addf(o, n, &off, " (asked %lld: %d context%s per thread, a libnfs context is not "
				 "thread-safe)", (long long)asked, p->conns, p->conns > 1 ? "s" : "");
	addf(o, n, &off, ",iodepth=%d", p->iodepth);
	if (p->vers == 4)
		addf(o, n, &off, " (NFSv4 reads only; files laid out over NFSv3)");
}

/* "/" + path: the worker's paths are relative to the mounted directory. */
static void abs_path(const char *path, char *buf, size_t n)
{
	snprintf(buf, n, "/%s", path);
}

static unsigned lnfs_unsupported(const struct st_config *cfg, const struct st_combo *c, char *why,
				 size_t n)
{
	struct st_nfs_url u;
	char err[256];
	const unsigned all = (1u << ST_PHASE_COUNT) - 1;
	const unsigned writes = ST_PHASES_WRITE | ST_PHASES_MIXED | ST_PHASES_META;
	if (st_nfs_url_parse(cfg->o[ST_OPT_TARGET].s, &u, err, sizeof(err)))
		return 0; /* validate() has said so already */
	if (c->v[ST_OPT_PROTO] != ST_UNSET && c->v[ST_OPT_PROTO] != ST_PROTO_TCP) {
		snprintf(why, n, "proto=%s: the libnfs engine speaks TCP only",
			 st_options[ST_OPT_PROTO].choices[c->v[ST_OPT_PROTO]]);
		return all;
	}
	if (c->v[ST_OPT_AC] != ST_UNSET) {
		snprintf(why, n, "%s: the libnfs engine keeps no attribute cache to turn on or off",
			 st_options[ST_OPT_AC].choices[c->v[ST_OPT_AC]]);
		return all;
	}
	if (c->v[ST_OPT_ACTIMEO] != ST_UNSET) {
		snprintf(why, n, "actimeo=%lld: the libnfs engine keeps no attribute cache",
			 (long long)c->v[ST_OPT_ACTIMEO]);
		return all;
	}
	enum st_vers v = vers_of(c, &u);
	const char *from = c->v[ST_OPT_VERS] == ST_UNSET ? " (the URL's version)" : "";
	if (v == ST_VERS_4_1 || v == ST_VERS_4_2) {
		snprintf(why, n, "vers=%s: libnfs 4.0.0 speaks NFSv4.0 only (no minor versions)",
			 st_options[ST_OPT_VERS].choices[v]);
		return all;
	}
	if (v == ST_VERS_4) {
		snprintf(why, n, "vers=4%s: libnfs 4.0.0 cannot write over NFSv4 (writes of more "
				 "than ~3.9 KB fail to encode; the metadata phases run over NFSv3)", from);
		return writes;
	}
	return 0;
}

/* Why the mount of the URL's path failed, as precisely as can be told:
 * a shorter path that mounts is the export, and the rest is looked up in it.
 * Nothing is created. */
static void diagnose_mount(const struct lnfs_plan *p, int64_t deadline, const char *first,
			   char *err, size_t n)
{
	char prefix[ST_STR_MAX];
	st_copy(prefix, sizeof(prefix), p->u.path);
	for (;;) {
		char *slash = strrchr(prefix, '/');
		if (!slash || slash == prefix)
			break; /* "/" is not tried: a pseudo root is no export */
		*slash = '\0';
		struct lnfs_conn c;
		char msg[ST_ERR_MAX];
		if (lnfs_conn_open(&c, p, prefix, 3, 1, NULL, deadline, msg, sizeof(msg)))
			continue;
		const char *rest = p->u.path + strlen(prefix);
		struct nfs_stat_64 st;
		int64_t t0 = st_now_ns();
		lnfs_sync_bound(p, &c, deadline);
		int rc = lnfs_sync_result(c.lib->nfs_stat64(c.nfs, rest, &st), t0, deadline, p);
		if (rc == 0 && (st.nfs_mode & S_IFMT) != S_IFDIR)
			snprintf(err, n, "--target: %s: '%s' in export '%s' is not a directory", p->url,
				 rest, prefix);
		else if (rc == 0)
			snprintf(err, n, "--target: %s: cannot mount '%s' (the server refuses "
					 "subdirectory mounts?): %s", p->url, p->u.path, first);
		else
			snprintf(err, n, "--target: %s: directory '%s' in export '%s': %s", p->url,
				 rest, prefix, rc == -ENOENT ? "does not exist" : strerror(-rc));
		lnfs_conn_close(&c);
		return;
	}
	snprintf(err, n, "--target: %s: cannot mount export '%s': %s", p->url, p->u.path, first);
}

static int lnfs_validate(const struct st_config *cfg, int64_t deadline, char *err, size_t n)
{
	const char *target = cfg->o[ST_OPT_TARGET].s;
	struct st_nfs_url u;
	char why[ST_ERR_MAX];
	if (st_nfs_url_parse(target, &u, why, sizeof(why))) {
		snprintf(err, n, "--target: '%s' %s", target, why);
		return -1;
	}
	struct st_combo none;
	st_plan_combo(cfg, 0, &none);
	struct lnfs_lib lib;
	if (lnfs_lib_load(&lib, why, sizeof(why))) {
		snprintf(err, n, "--engine libnfs: %s", why);
		return -1;
	}
	struct lnfs_plan *p = malloc(sizeof(*p));
	if (!p) {
		lnfs_lib_unload(&lib);
		snprintf(err, n, "out of memory");
		return -1;
	}
	plan_make(cfg, &none, &u, &lib, p);
	p->soft = 1; /* no reconnecting while checking */

	/* NFSv3 whatever the combinations say: every file is written over it */
	struct lnfs_conn c;
	char msg[ST_ERR_MAX];
	int rc = lnfs_conn_open(&c, p, NULL, 3, 1, NULL, deadline, msg, sizeof(msg));
	if (rc == -ETIMEDOUT) {
		snprintf(err, n, "--target: %s: %s", target, msg);
	} else if (rc && strstr(msg, "MNT3ERR")) {
		const char *why_mnt = strstr(msg, "): ");
		diagnose_mount(p, deadline, why_mnt ? why_mnt + 3 : msg, err, n);
	} else if (rc && !u.mountport) {
		snprintf(err, n, "--target: %s: no NFSv3 MOUNT service through the portmapper of %s "
				 "(give ?mountport=N: files are written over NFSv3 even for vers=4): %s",
			 target, u.server, msg);
	} else if (rc) {
		snprintf(err, n, "--target: %s: cannot connect to %s (nfsport, mountport?): %s",
			 target, u.server, msg);
	} else {
		int64_t t0 = st_now_ns();
		lnfs_sync_bound(p, &c, deadline);
		rc = lnfs_sync_result(c.lib->nfs_access(c.nfs, "/", W_OK | X_OK), t0, deadline, p);
		if (rc == -EACCES || rc == -EPERM || rc == -EROFS)
			snprintf(err, n, "--target: %s: directory '%s' is not writable (NFS ACCESS: %s)",
				 target, u.path, strerror(-rc));
		else if (rc)
			snprintf(err, n, "--target: %s: checking directory '%s': %s", target, u.path,
				 strerror(-rc));
		lnfs_conn_close(&c);
	}
	free(p);
	lnfs_lib_unload(&lib);
	/* one line, whatever libnfs put into its message */
	for (char *q = err; *q; q++)
		if (*q == '\n' || *q == '\r')
			*q = ' ';
	return rc ? -1 : 0;
}

static int lnfs_setup(const struct st_engine_env *env, void **rs, char *msg, size_t n)
{
	const char *target = env->cfg->o[ST_OPT_TARGET].s;
	struct st_nfs_url u;
	char why[ST_ERR_MAX];
	memset(env->eff, 0, sizeof(*env->eff));
	if (st_nfs_url_parse(target, &u, why, sizeof(why))) {
		snprintf(msg, n, "--target '%s' %s", target, why);
		return -EINVAL;
	}
	/* libnfs 4.0 mallocs a buffer for every request and every reply and
	 * frees it when the call ends. With several 1 MiB calls in flight glibc
	 * hands the freed top of the heap back to the kernel and faults it in
	 * again for the next call: at iodepth 8 that tripled the client's CPU
	 * time per byte and cost ~40 % of the write rate here. Keep call-sized
	 * buffers in the heap and freed memory in the process (process-wide,
	 * the same values every time). */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	struct lnfs_rank *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	int rc = lnfs_lib_load(&r->lib, msg, n);
	if (rc) {
		free(r);
		return rc;
	}
	plan_make(env->cfg, env->combo, &u, &r->lib, &r->p);
	r->rank = env->rank;
	/* soft: connecting gives up as a soft call does */
	r->setup_deadline = env->deadline_ns;
	if (r->p.soft && st_now_ns() + r->p.soft_ns < r->setup_deadline)
		r->setup_deadline = st_now_ns() + r->p.soft_ns;
	rc = lnfs_conn_open(&r->ns, &r->p, NULL, 3, r->p.soft, NULL, r->setup_deadline, msg, n);
	if (rc) {
		lnfs_lib_unload(&r->lib);
		free(r);
		return rc;
	}
	plan_sizes(env->combo, &r->p, r->lib.nfs_get_readmax(r->ns.nfs),
		   r->lib.nfs_get_writemax(r->ns.nfs));
	effective_fill(&r->p, env->combo, env->eff);
	*rs = r;
	return 0;
}

static void lnfs_teardown(void *rs)
{
	struct lnfs_rank *r = rs;
	if (!r)
		return;
	lnfs_conn_close(&r->ns);
	lnfs_lib_unload(&r->lib);
	free(r);
}

/* A unique NFSv4 client name per context: libnfs names every context of a
 * process alike, and a second SETCLIENTID with that name and another
 * verifier makes the server drop the first one's state. */
static void client_name(const struct lnfs_thread *t, int i, char *buf, size_t n)
{
	char host[64] = "";
	gethostname(host, sizeof(host) - 1);
	snprintf(buf, n, "stcluster %s pid %ld rank %d thread %d conn %d t %lld", host,
		 (long)getpid(), t->r->rank, t->index, i, (long long)st_now_ns());
}

/* Connect the thread's contexts of the combination's version. */
static int open_io(struct lnfs_thread *t, int64_t deadline, char *msg, size_t n)
{
	const struct lnfs_plan *p = &t->r->p;
	for (int i = t->nio; i < p->conns; i++) {
		char name[200];
		client_name(t, i, name, sizeof(name));
		int rc = lnfs_conn_open(&t->io[i], p, NULL, p->vers, p->soft, name, deadline, msg, n);
		if (rc)
			return rc;
		t->nio = i + 1;
	}
	return 0;
}

static void stats_reset(struct lnfs_thread *t);

static int lnfs_thread_init(void *rs, int thread, void **ts, char *msg, size_t n)
{
	struct lnfs_rank *r = rs;
	struct lnfs_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->r = r;
	t->index = thread;
	t->ncalls = r->p.iodepth;
	t->calls = calloc((size_t)t->ncalls, sizeof(*t->calls));
	t->blks = calloc((size_t)t->ncalls + 1, sizeof(*t->blks));
	if (!t->calls || !t->blks) {
		free(t->calls);
		free(t->blks);
		free(t);
		return -ENOMEM;
	}
	/* NFSv4: only the layout context now; the v4 ones once the file is laid
	 * out, so a long layout cannot outlast their lease */
	int rc = r->p.vers == 4
			 ? lnfs_conn_open(&t->lay, &r->p, NULL, 3, r->p.soft, NULL, r->setup_deadline, msg, n)
			 : open_io(t, r->setup_deadline, msg, n);
	if (rc) {
		for (int i = 0; i < t->nio; i++)
			lnfs_conn_close(&t->io[i]);
		lnfs_conn_close(&t->lay);
		free(t->calls);
		free(t->blks);
		free(t);
		return rc;
	}
	stats_reset(t);
	*ts = t;
	return 0;
}

static void stats_reset(struct lnfs_thread *t)
{
	memset(&t->stats, 0, sizeof(t->stats));
	for (int k = 0; k < LNFS_K_COUNT; k++)
		st_hist_init(&t->stats.k[k].hist);
}

/* The engine's own count of this thread's calls into the rank's (rpc_stat:
 * source libnfs; stable_how measured: what each WRITE asked for). */
static void lnfs_thread_rpc(void *ts, struct st_rpc_result *into)
{
	struct lnfs_thread *t = ts;
	static const char *const names[LNFS_K_COUNT] = { "READ",    "WRITE",  "COMMIT",
							  "LOOKUP",  "CREATE", "MKDIR",
							  "GETATTR", "REMOVE", "RMDIR",
							  "READDIRPLUS" };
	for (int k = 0; into && k < LNFS_K_COUNT; k++) {
		const struct lnfs_kind_stats *s = &t->stats.k[k];
		if (k > LNFS_K_COMMIT && !s->trans && !s->ops)
			continue; /* a metadata operation this thread never sent */
		uint32_t i = 0;
		while (i < into->nops && strcmp(into->op[i].name, names[k]))
			i++;
		if (i == into->nops) {
			if (into->nops >= ST_RPC_OPS)
				continue;
			st_copy(into->op[into->nops++].name, sizeof(into->op[0].name), names[k]);
		}
		struct st_rpc_op *o = &into->op[i];
		o->ops += s->ops;
		o->trans += s->trans;
		o->timeouts += s->timeouts;
		o->errors += s->errors;
		o->bytes_sent += s->bytes_sent;
		o->bytes_recv += s->bytes_recv;
		o->rtt_us += s->time_ns / 1000;
		o->exe_us += s->time_ns / 1000;
		o->file_sync += s->file_sync;
		o->data_sync += s->data_sync;
		o->unstable += s->unstable;
		if (k < ST_RPC_HISTS)
			st_hist_merge(&into->hist[k], &s->hist);
		into->sends += s->trans;
		into->recvs += s->ops;
	}
	if (into) {
		into->xprts += (uint32_t)(t->nio ? t->nio : 1);
		into->connects += t->stats.lost; /* libnfs 4.0 reconnects inside: the losses */
	}
	stats_reset(t);
}

static void lnfs_thread_fini(void *ts)
{
	struct lnfs_thread *t = ts;
	if (!t)
		return;
	/* contexts first: destroying one cancels its calls into the slots */
	for (int i = 0; i < t->nio; i++)
		lnfs_conn_close(&t->io[i]);
	lnfs_conn_close(&t->lay);
	free(t->calls);
	free(t->blks);
	free(t);
}

/* Each read and write is timed here, from its first call's issue to its
 * last call's completion: with --iodepth > 1 a read may be in flight long
 * before its pread (read-ahead) and a write long after its pwrite returned
 * (write-behind), so the worker's clock around the call would time the
 * wait, not the call. */
static void lnfs_time_calls(void *ts, struct st_hist *h)
{
	struct lnfs_thread *t = ts;
	t->lat = h;
}

static int lnfs_open(void *ts, const char *path, unsigned flags, void **fh, int *direct)
{
	struct lnfs_thread *t = ts;
	const struct lnfs_plan *p = &t->r->p;
	char full[ST_STR_MAX + 2];
	abs_path(path, full, sizeof(full));
	int64_t t0 = st_now_ns();
	t->call_deadline = t0 + p->deadline_ns;
	*direct = (flags & ST_OPEN_DIRECT) != 0; /* libnfs caches nothing on this path */

	struct lnfs_file *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->layout = (flags & ST_OPEN_LAYOUT) != 0;
	int rc = 0;
	if (p->vers == 4 && !f->layout) {
		if (flags & ST_OPEN_WRITE) { /* unsupported() keeps these away */
			free(f);
			return -EOPNOTSUPP;
		}
		char msg[ST_ERR_MAX];
		rc = open_io(t, t->call_deadline, msg, sizeof(msg));
		f->v4 = 1;
		f->conns = t->io;
		f->nconns = t->nio;
		for (int i = 0; !rc && i < t->nio; i++) {
			if (!t->io[i].nfs || t->io[i].dead)
				continue;
			lnfs_sync_bound(p, &t->io[i], t->call_deadline);
			rc = lnfs_sync_result(
				p->lib->nfs_open2(t->io[i].nfs, full, O_RDONLY, 0, &f->h4[i]), t0,
				t->call_deadline, p);
			if (rc)
				f->h4[i] = NULL;
		}
		if (!rc && lnfs_pick_conn(t, f) < 0)
			rc = -EIO;
	} else {
		f->conns = p->vers == 4 ? &t->lay : t->io;
		f->nconns = p->vers == 4 ? 1 : t->nio;
		int of = (flags & ST_OPEN_WRITE) ? ((flags & ST_OPEN_READ) ? O_RDWR : O_WRONLY)
						  : O_RDONLY;
		if (flags & ST_OPEN_CREATE)
			of |= (flags & ST_OPEN_SHARED) ? O_CREAT : O_CREAT | O_TRUNC;
		int i = lnfs_pick_conn(t, f);
		struct nfsfh *h = NULL;
		if (i < 0) {
			rc = -EIO;
		} else {
			lnfs_sync_bound(p, &f->conns[i], t->call_deadline);
			rc = lnfs_sync_result(p->lib->nfs_open2(f->conns[i].nfs, full, of, 0644, &h),
					      t0, t->call_deadline, p);
		}
		if (!rc) {
			/* libnfs's struct nfs_fh is laid out as nfs_fh3 (its
			 * examples/nfs-fh.c casts it the same way) */
			const struct nfs_fh3 *fh3 =
				(const struct nfs_fh3 *)f->conns[i].lib->nfs_get_fh(h);
			if (fh3->data.data_len > sizeof(f->fh3)) {
				rc = -EIO;
			} else {
				f->fh3_len = fh3->data.data_len;
				memcpy(f->fh3, fh3->data.data_val, f->fh3_len);
			}
			/* NFSv3 close of a handle never written through is local */
			f->conns[i].lib->nfs_close(f->conns[i].nfs, h);
		}
	}
	if (rc) {
		for (int i = 0; i < LNFS_MAX_CONN; i++)
			if (f->h4[i] && t->io[i].nfs)
				t->io[i].lib->nfs_close(t->io[i].nfs, f->h4[i]);
		free(f);
		return rc;
	}
	*fh = f;
	return 0;
}

static ssize_t lnfs_pwrite(void *ts, void *fh, const void *buf, size_t len, uint64_t off)
{
	struct lnfs_thread *t = ts;
	struct lnfs_file *f = fh;
	if (f->v4)
		return -EOPNOTSUPP;
	return lnfs_xfer(t, f, CALL_WRITE, NULL, buf, len, off, t->r->p.wsize);
}

/* One READ for a block the worker will want soon (lnfs_rpc.c has which). */
static int lnfs_prefetch(void *ts, void *fh, size_t len, uint64_t off)
{
	return lnfs_ra_start(ts, fh, len, off);
}

static ssize_t lnfs_pread(void *ts, void *fh, void *buf, size_t len, uint64_t off)
{
	struct lnfs_thread *t = ts;
	struct lnfs_file *f = fh;
	ssize_t got;
	/* its READ went out earlier (read-ahead): wait for it, keep the others going */
	if (lnfs_ra_take(t, f, buf, len, off, &got))
		return got;
	return lnfs_xfer(t, f, f->v4 ? CALL_READ4 : CALL_READ, buf, NULL, len, off, t->r->p.rsize);
}

static int lnfs_fsync(void *ts, void *fh)
{
	return lnfs_settle(ts, fh);
}

static unsigned lnfs_events(void *ts)
{
	struct lnfs_thread *t = ts;
	unsigned e = t->events;
	t->events = 0;
	return e;
}

static int lnfs_close(void *ts, void *fh)
{
	struct lnfs_thread *t = ts;
	struct lnfs_file *f = fh;
	const struct lnfs_plan *p = &t->r->p;
	/* as a kernel client flushes at close: what is written is durable */
	int rc = lnfs_settle(t, f);
	for (int i = 0; i < LNFS_MAX_CONN; i++) {
		if (!f->h4[i] || !t->io[i].nfs)
			continue;
		int64_t t0 = st_now_ns();
		int64_t bound = t->io[i].dead ? t0 : t->call_deadline;
		lnfs_sync_bound(p, &t->io[i], bound);
		int e = lnfs_sync_result(p->lib->nfs_close(t->io[i].nfs, f->h4[i]), t0, bound, p);
		if (!rc)
			rc = e;
	}
	int layout_done = f->layout && p->vers == 4 && !rc;
	if (f->restarted && !f->layout)
		t->events |= ST_TF_SERVER_RESTART;
	lnfs_ra_free(f);
	free(f);
	if (layout_done) {
		/* the NFSv4 contexts, now that the file is there (see thread_init) */
		char msg[ST_ERR_MAX];
		rc = open_io(t, st_now_ns() + p->deadline_ns, msg, sizeof(msg));
	}
	return rc;
}

/* A directory of the metadata phases: its handle, reached over the thread's contexts. */
static int lnfs_dir_open(void *ts, void *parent, const char *name, int create, void **dh)
{
	struct lnfs_thread *t = ts;
	const struct lnfs_plan *p = &t->r->p;
	if (p->vers != 3 || !t->nio)
		return -EOPNOTSUPP; /* unsupported() keeps NFSv4 away */
	struct lnfs_file *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->conns = t->io;
	d->nconns = t->nio;
	int rc = 0;
	if (parent) {
		rc = lnfs_meta_call(t, parent, create ? CALL_MKDIR : CALL_LOOKUP, name, d);
		if (!rc && !d->fh3_len)
			rc = lnfs_meta_call(t, parent, CALL_LOOKUP, name, d);
	} else {
		/* the first directory of a phase: its calls end by --deadline from now */
		char full[ST_STR_MAX + 2];
		abs_path(name, full, sizeof(full));
		int64_t t0 = st_now_ns();
		t->call_deadline = t0 + p->deadline_ns;
		int i = lnfs_pick_conn(t, d);
		struct nfsfh *h = NULL;
		if (i < 0) {
			rc = -EIO;
		} else {
			lnfs_sync_bound(p, &d->conns[i], t->call_deadline);
			if (create)
				rc = lnfs_sync_result(p->lib->nfs_mkdir2(d->conns[i].nfs, full, 0755),
						      t0, t->call_deadline, p);
			if (!rc)
				rc = lnfs_sync_result(
					p->lib->nfs_open2(d->conns[i].nfs, full, O_RDONLY, 0, &h), t0,
					t->call_deadline, p);
		}
		if (!rc) {
			const struct nfs_fh3 *fh3 =
				(const struct nfs_fh3 *)d->conns[i].lib->nfs_get_fh(h);
			if (fh3->data.data_len > sizeof(d->fh3)) {
				rc = -EIO;
			} else {
				d->fh3_len = fh3->data.data_len;
				memcpy(d->fh3, fh3->data.data_val, d->fh3_len);
			}
			d->conns[i].lib->nfs_close(d->conns[i].nfs, h);
		}
	}
	if (rc) {
		free(d);
		return rc;
	}
	*dh = d;
	return 0;
}

static void lnfs_dir_close(void *ts, void *dh)
{
	(void)ts;
	struct lnfs_file *d = dh;
	if (d && d->list)
		free(d->list->names);
	if (d)
		free(d->list);
	free(d);
}

/* The next entry of the directory's listing, as `ls -l` over NFSv3 lists
 * it: READDIRPLUS from cookie 0, each reply's entries with their
 * attributes, the next call from the last entry's cookie until a reply
 * says it is the end. */
static int lnfs_dir_next(void *ts, void *dh, uint64_t want, char *name, size_t n)
{
	(void)want; /* the server's directory says how many there are */
	struct lnfs_thread *t = ts;
	struct lnfs_file *d = dh;
	if (!d->list && !(d->list = calloc(1, sizeof(*d->list))))
		return -ENOMEM;
	struct lnfs_list *l = d->list;
	while (l->pos >= l->len) {
		if (l->eof)
			return 0;
		l->len = l->pos = 0;
		int rc = lnfs_meta_call(t, d, CALL_READDIRPLUS, NULL, NULL);
		if (rc)
			return rc;
	}
	const char *e = l->names + l->pos;
	l->pos += strlen(e) + 1;
	snprintf(name, n, "%s", e);
	return 1;
}

static ssize_t lnfs_meta(void *ts, void *dh, int op, const char *name, void *buf, size_t len,
			 unsigned flags)
{
	(void)flags; /* an unstable write is committed at close whatever --fsync says */
	struct lnfs_thread *t = ts;
	struct lnfs_file *dir = dh, f;
	memset(&f, 0, sizeof(f));
	f.conns = dir->conns;
	f.nconns = dir->nconns;
	int rc;
	ssize_t n = 0;
	switch (op) {
	case ST_META_STAT:
		rc = lnfs_meta_call(t, dir, CALL_LOOKUP, name, &f);
		return rc ? rc : lnfs_meta_call(t, &f, CALL_GETATTR, NULL, NULL);
	case ST_META_REMOVE:
		return lnfs_meta_call(t, dir, CALL_REMOVE, name, NULL);
	case ST_META_RMDIR:
		return lnfs_meta_call(t, dir, CALL_RMDIR, name, NULL);
	case ST_META_MKDIR:
		return lnfs_meta_call(t, dir, CALL_MKDIR, name, &f);
	case ST_META_CREATE:
		rc = lnfs_meta_call(t, dir, CALL_CREATE, name, &f);
		if (!rc && !f.fh3_len)
			rc = lnfs_meta_call(t, dir, CALL_LOOKUP, name, &f);
		if (rc || !len)
			return rc;
		n = lnfs_xfer(t, &f, CALL_WRITE, NULL, buf, len, 0, t->r->p.wsize);
		/* every call of f is over before f goes: settle waits for them */
		rc = lnfs_settle(t, &f);
		return n < 0 ? n : rc ? rc : (ssize_t)len;
	case ST_META_OPEN:
		rc = lnfs_meta_call(t, dir, CALL_LOOKUP, name, &f);
		if (rc || !len)
			return rc;
		n = lnfs_xfer(t, &f, CALL_READ, buf, NULL, len, 0, t->r->p.rsize);
		return n;
	default:
		return -EINVAL;
	}
}

/* Name-space calls of the rank: each bounded by --deadline from its start. */
static int ns_call(struct lnfs_rank *r, const char *path, int op)
{
	if (!r->ns.nfs || r->ns.dead)
		return -EIO;
	char full[ST_STR_MAX + 2];
	abs_path(path, full, sizeof(full));
	int64_t t0 = st_now_ns(), deadline = t0 + r->p.deadline_ns;
	lnfs_sync_bound(&r->p, &r->ns, deadline);
	const struct lnfs_lib *L = r->ns.lib;
	int rc = op == 0   ? L->nfs_mkdir2(r->ns.nfs, full, 0755)
		 : op == 1 ? L->nfs_rmdir(r->ns.nfs, full)
			   : L->nfs_unlink(r->ns.nfs, full);
	return lnfs_sync_result(rc, t0, deadline, &r->p);
}

static int lnfs_mkdir(void *rs, const char *path)
{
	return ns_call(rs, path, 0);
}

static int lnfs_rmdir(void *rs, const char *path)
{
	return ns_call(rs, path, 1);
}

static int lnfs_unlink(void *rs, const char *path)
{
	return ns_call(rs, path, 2);
}

static int lnfs_available(char *why, size_t n)
{
	struct lnfs_lib lib;
	if (lnfs_lib_load(&lib, why, n))
		return -1;
	lnfs_lib_unload(&lib);
	return 0;
}

const struct st_engine st_engine_libnfs = {
	.name = "libnfs",
	.help = "a userspace NFS client (libnfs) on --target nfs://server/export/dir: no "
		"mount and no root; it applies the NFS options itself",
	.takes = ST_NEEDS_NFS,
	.unsupported = lnfs_unsupported,
	.validate = lnfs_validate,
	.available = lnfs_available,
	.setup = lnfs_setup,
	.teardown = lnfs_teardown,
	.thread_init = lnfs_thread_init,
	.thread_fini = lnfs_thread_fini,
	.thread_rpc = lnfs_thread_rpc,
	.open = lnfs_open,
	.pwrite = lnfs_pwrite,
	.pread = lnfs_pread,
	.fsync = lnfs_fsync,
	.close = lnfs_close,
	.prefetch = lnfs_prefetch,
	.time_calls = lnfs_time_calls,
	.dir_open = lnfs_dir_open,
	.dir_close = lnfs_dir_close,
	.meta = lnfs_meta,
	.dir_next = lnfs_dir_next,
	.events = lnfs_events,
	.mkdir = lnfs_mkdir,
	.rmdir = lnfs_rmdir,
	.unlink = lnfs_unlink,
};

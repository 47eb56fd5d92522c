/*
 * engine_libnfs.c - NFS from userspace through libnfs 4.0: no mount(8), no root.
 *
 * --target is nfs://server/export/dir?version=3&nfsport=N&mountport=N; the
 * URL's path is mounted (NFSv3 MNT, or the NFSv4 path) and the worker's
 * paths are taken relative to it. libnfs contexts are not thread-safe, so
 * every context has one owner: the rank's own NFSv3 context does mkdir,
 * rmdir and unlink (main thread only); each I/O thread owns its contexts.
 *
 * Data path. NFSv3 files are opened through libnfs's high-level API only
 * to learn their file handle (a v3 handle is valid on any connection to the
 * server); every READ, WRITE and COMMIT is then a raw NFSv3 RPC sent by this
 * file with its own poll/rpc_service loop, so the size and stability of each
 * call on the wire are exactly what the options say (a short READ or WRITE
 * is sent again for the rest). NFSv4 reads go through libnfs's
 * nfs_pread_async (the raw layer is v3 only), one READ per call; every
 * NFSv4 context gets its own client name, as the server drops the state of
 * a client whose name comes back with another verifier.
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
 *            wait for all (so the phase time covers every byte). The latency
 *            recorded for such a pwrite is its queueing time. An error of a
 *            call whose pwrite already returned is reported by the next
 *            pwrite, fsync or close of the file. Reads: depth within one
 *            block only (pread returns when its data is there).
 *   ac, actimeo  combinations that set them are skipped: the engine keeps
 *            no attribute cache to turn on or off.
 *   direct   granted: libnfs has no page cache on this data path.
 */
#include "engine.h"

#include "../common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sys/time.h> /* libnfs.h needs struct timeval first */

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

#define LNFS_MAX_CONN 16	       /* contexts per thread: nconnect is at most 16 */
#define LNFS_LIBNFS_MAX (1u << 20)     /* libnfs 4.0's largest READ/WRITE */
#define LNFS_POLL_MS 100	       /* libnfs expires calls only inside rpc_service */
#define LNFS_GRACE_NS 2000000000LL     /* past a call's bound before the engine steps in */
#define NS_PER_MS 1000000LL

/* The --target URL, checked strictly (libnfs's own parser ignores what it
 * does not know and reads numbers with atoi). */
struct lnfs_url {
	char server[256];	/* host name or address */
	char path[ST_STR_MAX];	/* directory mounted, "/export/dir" */
	int version;		/* ?version=: 3 or 4; 0 not given */
	int mountport;		/* ?mountport=; 0: the portmapper is asked */
};

/* What one combination runs with: the effective settings. */
struct lnfs_plan {
	struct lnfs_url u;
	char url[ST_STR_MAX];	/* the --target text (libnfs reads the ports from it) */
	int vers;		/* 3 or 4 */
	int stable;		/* FILE_SYNC (sync) or UNSTABLE (async) */
	int soft;		/* 0 hard, 1 soft */
	int64_t soft_ns;	/* soft: longest wait of one call, ns */
	int64_t timeo;		/* deciseconds */
	int64_t retrans;	/* retransmissions */
	uint32_t rsize, wsize;	/* bytes per READ / WRITE call */
	uint32_t readmax, writemax; /* the server's (libnfs-capped) maxima, bytes */
	int conns;		/* contexts per thread */
	int iodepth;		/* calls in flight per thread */
	int64_t deadline_ns;	/* --deadline: bound of a phase, ns */
};

/* One libnfs context and its connection. */
struct lnfs_conn {
	struct nfs_context *nfs; /* NULL: not connected */
	struct rpc_context *rpc; /* its RPC layer (raw calls) */
	int dead;		 /* lost for good (soft): calls on it fail at once */
	int inflight;		 /* calls of ours waiting on it */
};

struct lnfs_rank {
	struct lnfs_plan p;
	struct lnfs_conn ns;	/* NFSv3: mkdir, rmdir, unlink (main thread) */
	int64_t setup_deadline; /* local clock: threads connect by then */
	int rank;		/* MPI rank (NFSv4 client names) */
};

enum { CALL_READ, CALL_WRITE, CALL_COMMIT, CALL_READ4 };

struct lnfs_thread;
struct lnfs_file;

/* A pread or pwrite in progress: what its calls report into. */
struct lnfs_xfer {
	uint64_t end;	 /* off + len */
	uint64_t eof_at; /* lowest offset a read found the end of file at */
	int err;	 /* first error, -errno */
};

/* One READ, WRITE or COMMIT on the wire. A slot is busy from the moment it
 * is queued until libnfs has called its callback - also when the context
 * is destroyed under it (libnfs then cancels it) - so slots live as long
 * as the thread. */
struct lnfs_call {
	struct lnfs_thread *t;
	struct lnfs_file *f;
	struct lnfs_xfer *x;	  /* the pread/pwrite waiting for it; NULL once returned */
	int busy;		  /* queued, callback not run yet */
	int kind;		  /* CALL_* */
	int conn;		  /* index into the file's contexts */
	uint64_t off;		  /* file offset, bytes */
	uint32_t count;		  /* bytes asked for */
	unsigned char *dst;	  /* READ: where the data goes */
	const unsigned char *src; /* WRITE: the data; NULL once pwrite returned */
	int64_t bound_ns;	  /* local clock: libnfs times the call out by then */
};

/* A block read ahead (--iodepth > 1): its READ is in flight or done, the
 * data waits in buf for the pread of exactly [off, off + len). */
struct lnfs_ra {
	uint64_t off;	    /* file offset, bytes */
	size_t len;	    /* bytes */
	unsigned char *buf; /* len bytes (kept for the next block) */
	size_t cap;	    /* bytes allocated in buf */
	struct lnfs_xfer x; /* what its call found */
	int used;	    /* a prefetch owns this slot */
};

struct lnfs_file {
	struct lnfs_conn *conns;	   /* the contexts its calls go over */
	int nconns;			   /* how many */
	int v4;				   /* read through libnfs's NFSv4 API */
	int layout;			   /* opened for the worker's untimed layout */
	struct nfsfh *h4[LNFS_MAX_CONN];   /* v4: the file opened on each context */
	char fh3[NFS3_FHSIZE];		   /* v3: file handle (good on any context) */
	uint32_t fh3_len;		   /* bytes of fh3 in use */
	int err;			   /* first error of a call whose pwrite returned */
	int uncommitted;		   /* writes answered UNSTABLE since the last COMMIT */
	int have_verf;			   /* verf holds the write verifier */
	char verf[NFS3_WRITEVERFSIZE];
	struct lnfs_ra *ra;		   /* read-ahead slots (iodepth of them), or NULL */
	int nra;
};

struct lnfs_thread {
	const struct lnfs_rank *r;
	int index;			    /* thread number in the rank */
	struct lnfs_conn io[LNFS_MAX_CONN]; /* contexts of the combination's version */
	int nio;			    /* of them in use (0: v4, not made yet) */
	struct lnfs_conn lay;		    /* vers 4: NFSv3 context for the layout */
	int rr;				    /* round robin: next context */
	struct lnfs_call *calls;	    /* iodepth slots */
	int ncalls;			    /* = iodepth */
	int inflight;	       /* busy slots */
	int64_t call_deadline; /* local clock: no call waits past this (from open) */
};

/* ---- the URL ---- */

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi || (*s != '-' && (*s < '0' || *s > '9')))
		return -1;
	*out = v;
	return 0;
}

/* 0, or -1 with the problem in why. A pure function of the text. */
static int url_parse(const char *s, struct lnfs_url *u, char *why, size_t n)
{
	memset(u, 0, sizeof(*u));
	if (strncmp(s, "nfs://", 6) != 0) {
		snprintf(why, n, "is not an nfs:// URL (nfs://server/export/dir?version=3&nfsport=N&mountport=N)");
		return -1;
	}
	/* no URL holds one, and the text is quoted back in one-line messages */
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			snprintf(why, n, "has a control character (0x%02x)", (unsigned)(unsigned char)*c);
			return -1;
		}
	const char *p = s + 6;
	size_t len = strcspn(p, "/?");
	if (len == 0) {
		snprintf(why, n, "has no server (nfs://server/export/dir)");
		return -1;
	}
	if (len >= sizeof(u->server)) {
		snprintf(why, n, "has a server name longer than %zu bytes", sizeof(u->server) - 1);
		return -1;
	}
	memcpy(u->server, p, len);
	u->server[len] = '\0';
	if (strchr(u->server, '@')) {
		snprintf(why, n, "has user@ in the server part (give ?uid=N&gid=N)");
		return -1;
	}
	char *colon = strchr(u->server, ':');
	if (colon && !strchr(colon + 1, ':')) { /* host:port (an IPv6 address has several) */
		snprintf(why, n, "has a port in the server part (give ?nfsport=N&mountport=N)");
		return -1;
	}
	p += len;
	if (*p != '/') {
		snprintf(why, n, "has no export path (nfs://server/export/dir)");
		return -1;
	}
	len = strcspn(p, "?");
	if (len >= sizeof(u->path)) {
		snprintf(why, n, "has a path longer than %zu bytes", sizeof(u->path) - 1);
		return -1;
	}
	memcpy(u->path, p, len);
	u->path[len] = '\0';
	p += len;
	if (*p == '?')
		p++;
	while (*p) {
		char item[ST_STR_MAX];
		len = strcspn(p, "&");
		if (len == 0 || len >= sizeof(item)) {
			snprintf(why, n, "has an empty or overlong parameter");
			return -1;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		p += len;
		if (*p == '&' && !*++p) {
			snprintf(why, n, "ends with '&'");
			return -1;
		}
		char *eq = strchr(item, '=');
		if (!eq || !eq[1]) {
			snprintf(why, n, "parameter '%s' has no value", item);
			return -1;
		}
		*eq = '\0';
		const char *k = item, *v = eq + 1;
		long num;
		if (!strcmp(k, "version")) {
			if (strcmp(v, "3") && strcmp(v, "4")) {
				snprintf(why, n, "version must be 3 or 4, not '%s'", v);
				return -1;
			}
			u->version = v[0] - '0';
		} else if (!strcmp(k, "nfsport") || !strcmp(k, "mountport")) {
			if (parse_int(v, 1, 65535, &num)) {
				snprintf(why, n, "%s must be a port number (1-65535), not '%s'", k, v);
				return -1;
			}
			if (k[0] == 'm')
				u->mountport = (int)num;
		} else if (!strcmp(k, "uid") || !strcmp(k, "gid")) {
			if (parse_int(v, 0, INT_MAX, &num)) {
				snprintf(why, n, "%s must be a number, not '%s'", k, v);
				return -1;
			}
		} else if (!strcmp(k, "tcp-syncnt") || !strcmp(k, "debug") ||
			   !strcmp(k, "dircache") || !strcmp(k, "auto-traverse-mounts")) {
			if (parse_int(v, 0, 255, &num)) {
				snprintf(why, n, "%s must be a small number, not '%s'", k, v);
				return -1;
			}
		} else if (!strcmp(k, "if")) {
			/* an interface name: libnfs binds to it */
		} else if (!strcmp(k, "autoreconnect")) {
			snprintf(why, n, "sets autoreconnect: --hard decides it (hard: reconnect until "
					 "the deadline; soft: never)");
			return -1;
		} else if (!strcmp(k, "readahead") || !strcmp(k, "pagecache")) {
			snprintf(why, n, "sets %s: the engine measures the server, with no client cache", k);
			return -1;
		} else {
			snprintf(why, n, "has an unknown parameter '%s' (known: version, nfsport, "
					 "mountport, uid, gid, tcp-syncnt, if, debug, dircache, "
					 "auto-traverse-mounts)", k);
			return -1;
		}
	}
	return 0;
}

int st_lnfs_url_check(const char *url, char *server, size_t sn, char *path, size_t pn,
		      char *why, size_t n)
{
	struct lnfs_url u;
	if (url_parse(url, &u, why, n))
		return -1;
	if (server)
		st_copy(server, sn, u.server);
	if (path)
		st_copy(path, pn, u.path);
	return 0;
}

/* ---- the plan: a pure function of the options ---- */

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

/* vers as an index into the choices {"3","4","4.1","4.2"}. */
static int vers_index(const struct st_combo *c, const struct lnfs_url *u)
{
	if (c->v[ST_OPT_VERS] != ST_UNSET)
		return (int)c->v[ST_OPT_VERS];
	return u->version == 4 ? 1 : 0;
}

static void plan_make(const struct st_config *cfg, const struct st_combo *c,
		      const struct lnfs_url *u, struct lnfs_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->u = *u;
	st_copy(p->url, sizeof(p->url), cfg->o[ST_OPT_TARGET].s);
	p->vers = vers_index(c, u) == 0 ? 3 : 4;
	p->stable = or_default(c->v[ST_OPT_SYNC], 1) == 0 ? FILE_SYNC : UNSTABLE;
	p->soft = or_default(c->v[ST_OPT_HARD], 0) == 1;
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
	e->known |= 1ull << id;
	e->v[id] = v;
}

static void effective_fill(const struct lnfs_plan *p, const struct st_combo *c,
			   struct st_effective *e)
{
	int64_t threads = c->v[ST_OPT_THREADS] > 0 ? c->v[ST_OPT_THREADS] : 1;
	int64_t nconnect = threads * p->conns;
	memset(e, 0, sizeof(*e));
	eff_set(e, ST_OPT_VERS, p->vers == 3 ? 0 : 1);
	eff_set(e, ST_OPT_PROTO, 0);
	eff_set(e, ST_OPT_RSIZE, p->rsize);
	eff_set(e, ST_OPT_WSIZE, p->wsize);
	eff_set(e, ST_OPT_SYNC, p->stable == FILE_SYNC ? 0 : 1);
	eff_set(e, ST_OPT_HARD, p->soft);
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

/* ---- contexts ---- */

struct mount_wait {
	int done;   /* the mount callback ran */
	int status; /* its status: 0 or -errno */
};

static void mount_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	(void)nfs;
	(void)data;
	struct mount_wait *w = priv;
	w->done = 1;
	w->status = status;
}

static int ms_until(int64_t deadline)
{
	int64_t left = deadline - st_now_ns();
	if (left <= 0)
		return 1; /* libnfs: 0 or less means "no timeout" */
	left = (left + NS_PER_MS - 1) / NS_PER_MS;
	return left > INT_MAX ? INT_MAX : (int)left;
}

static void conn_close(struct lnfs_conn *c)
{
	/* No UMNT: the MOUNT list on the server is advisory, and v3 UMNT would
	 * mean reconnecting to mountd. Destroying cancels what is in flight. */
	if (c->nfs)
		nfs_destroy_context(c->nfs);
	memset(c, 0, sizeof(*c));
}

/*
 * Connect and mount `path` (NULL: the URL's) with NFS version vers, giving
 * up at deadline. soft: no reconnection. 0, or -errno with one line in msg.
 * The mount is driven by this loop (not libnfs's synchronous nfs_mount),
 * so a server that accepts and never answers, or never accepts, cannot hold
 * it past the deadline.
 */
static int conn_open(struct lnfs_conn *c, const struct lnfs_plan *p, const char *path, int vers,
		     int soft, const char *client, int64_t deadline, char *msg, size_t n)
{
	memset(c, 0, sizeof(*c));
	int64_t t0 = st_now_ns();
	struct nfs_context *nfs = nfs_init_context();
	if (!nfs) {
		snprintf(msg, n, "cannot create a libnfs context");
		return -ENOMEM;
	}
	/* libnfs reads nfsport/mountport/uid/... only from a URL (no setters in 4.0) */
	struct nfs_url *u = nfs_parse_url_dir(nfs, p->url);
	if (!u) {
		snprintf(msg, n, "%s: %s", p->url, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return -EINVAL;
	}
	nfs_destroy_url(u);
	nfs_set_version(nfs, vers); /* NFS_V3 = 3, NFS_V4 = 4 (libnfs-raw-nfs4.h) */
	if (vers == 4 && client)
		nfs4_set_client_name(nfs, client);
	nfs_set_autoreconnect(nfs, soft ? 0 : -1); /* read by the mount: set before it */
	/* the mount's own calls expire after our deadline: the loop below decides */
	int ms = ms_until(deadline);
	nfs_set_timeout(nfs, ms < INT_MAX - 1000 ? ms + 1000 : INT_MAX);

	struct mount_wait w = { 0, 0 };
	const char *mpath = path ? path : p->u.path;
	if (nfs_mount_async(nfs, p->u.server, mpath, mount_cb, &w) != 0) {
		snprintf(msg, n, "cannot start mounting %s:%s: %s", p->u.server, mpath,
			 nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return -EIO;
	}
	while (!w.done) {
		int64_t left = deadline - st_now_ns();
		if (left <= 0)
			break;
		struct pollfd pfd = { .fd = nfs_get_fd(nfs), .events = (short)nfs_which_events(nfs) };
		int wait = left / NS_PER_MS + 1 < LNFS_POLL_MS ? (int)(left / NS_PER_MS + 1) : LNFS_POLL_MS;
		int rc = poll(&pfd, 1, wait);
		if (nfs_service(nfs, rc > 0 ? pfd.revents : 0) < 0 && !w.done) {
			w.done = 1;
			w.status = -ECONNREFUSED;
		}
	}
	if (!w.done) {
		snprintf(msg, n, "server %s did not answer within %.0f s", p->u.server,
			 (double)(deadline - t0) / 1e9);
		nfs_destroy_context(nfs);
		return -ETIMEDOUT;
	}
	if (w.status < 0) {
		snprintf(msg, n, "cannot mount %s:%s (NFSv%d): %s", p->u.server, mpath, vers,
			 nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return w.status;
	}
	c->nfs = nfs;
	c->rpc = nfs_get_rpc_context(nfs);
	return 0;
}

/* Bound a synchronous libnfs call (open, close, mkdir...): its RPCs expire
 * at deadline, capped by the soft limit. */
static void sync_bound(const struct lnfs_plan *p, struct lnfs_conn *c, int64_t deadline)
{
	int64_t now = st_now_ns();
	if (p->soft && now + p->soft_ns < deadline)
		deadline = now + p->soft_ns;
	nfs_set_timeout(c->nfs, ms_until(deadline));
}

/* A synchronous call's result: libnfs reports an expired RPC as EINTR or
 * EFAULT; say what happened. */
static int sync_result(int rc, int64_t started, int64_t deadline, const struct lnfs_plan *p)
{
	if (rc >= 0)
		return rc;
	int64_t now = st_now_ns();
	if (now >= deadline || (p->soft && now - started >= p->soft_ns))
		return -ETIMEDOUT;
	return rc == -EFAULT || rc == -EINTR ? -EIO : rc;
}

/* "/" + path: the worker's paths are relative to the mounted directory. */
static void abs_path(const char *path, char *buf, size_t n)
{
	snprintf(buf, n, "/%s", path);
}

/* ---- the I/O loop ---- */

static int rpc_status_err(int status)
{
	switch (status) {
	case RPC_STATUS_SUCCESS: return 0;
	case RPC_STATUS_TIMEOUT: return -ETIMEDOUT;
	case RPC_STATUS_CANCEL: return -ECANCELED;
	default: return -EIO;
	}
}

static int nfs3_err(int nfsstat)
{
	int e = nfsstat3_to_errno(nfsstat);
	return e < 0 ? e : -EIO;
}

static int call_send(struct lnfs_call *c);

/* A call is over: count it out and file its error where it will be seen. */
static void call_done(struct lnfs_call *c, int err)
{
	struct lnfs_thread *t = c->t;
	c->busy = 0;
	t->inflight--;
	c->f->conns[c->conn].inflight--;
	if (!err)
		return;
	if (c->x) {
		if (!c->x->err)
			c->x->err = err;
	} else if (!c->f->err) {
		c->f->err = err;
	}
}

/* Send what is left of a call again (the server did part of it). */
static void call_resend(struct lnfs_call *c, uint32_t done)
{
	struct lnfs_file *f = c->f;
	f->conns[c->conn].inflight--;
	c->t->inflight--;
	c->busy = 0;
	c->off += done;
	c->count -= done;
	if (c->dst)
		c->dst += done;
	if (c->src)
		c->src += done;
	int rc = call_send(c);
	if (rc) {
		if (c->x && !c->x->err)
			c->x->err = rc;
		else if (!c->x && !f->err)
			f->err = rc;
	}
}

static void write_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	struct lnfs_call *c = priv;
	struct lnfs_file *f = c->f;
	int err = rpc_status_err(status);
	if (!err) {
		WRITE3res *res = data;
		if (res->status != NFS3_OK) {
			err = nfs3_err(res->status);
		} else {
			WRITE3resok *ok = &res->WRITE3res_u.resok;
			if (!f->have_verf || !memcmp(f->verf, ok->verf, sizeof(f->verf))) {
				memcpy(f->verf, ok->verf, sizeof(f->verf));
				f->have_verf = 1;
			} else if (f->uncommitted) {
				err = -EIO; /* new verifier: the server restarted, unstable data lost */
			} else {
				memcpy(f->verf, ok->verf, sizeof(f->verf));
			}
			if (ok->committed != FILE_SYNC)
				f->uncommitted = 1;
			uint32_t got = ok->count < c->count ? ok->count : c->count;
			if (!err && got < c->count) {
				if (got > 0 && c->src) {
					call_resend(c, got);
					return;
				}
				/* no progress, or the data was handed back already */
				err = -EIO;
			}
		}
	}
	call_done(c, err);
}

static void commit_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	struct lnfs_call *c = priv;
	struct lnfs_file *f = c->f;
	int err = rpc_status_err(status);
	if (!err) {
		COMMIT3res *res = data;
		if (res->status != NFS3_OK)
			err = nfs3_err(res->status);
		else if (f->have_verf && memcmp(f->verf, res->COMMIT3res_u.resok.verf, sizeof(f->verf)))
			err = -EIO; /* the server restarted since the writes: they are lost */
		else
			f->uncommitted = 0;
	}
	call_done(c, err);
}

/* Data arrived for a read call: copy it (the reply buffer dies with the
 * callback), note the end of file, send the rest of a short read again. */
static void read_data(struct lnfs_call *c, const void *data, uint32_t got, int eof)
{
	if (got > c->count)
		got = c->count;
	if (got && c->dst)
		memcpy(c->dst, data, got);
	if (got < c->count) {
		if (!eof && got > 0) {
			call_resend(c, got);
			return;
		}
		if (c->x && c->off + got < c->x->eof_at)
			c->x->eof_at = c->off + got;
	}
	call_done(c, 0);
}

static void read_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	struct lnfs_call *c = priv;
	int err = rpc_status_err(status);
	if (!err) {
		READ3res *res = data;
		if (res->status != NFS3_OK) {
			err = nfs3_err(res->status);
		} else {
			READ3resok *ok = &res->READ3res_u.resok;
			read_data(c, ok->data.data_val, ok->data.data_len, ok->eof);
			return;
		}
	}
	call_done(c, err);
}

static void read4_cb(int status, struct nfs_context *nfs, void *data, void *priv)
{
	(void)nfs;
	struct lnfs_call *c = priv;
	if (status >= 0) {
		/* NFSv4 via libnfs: no eof flag; a short read is resent, an empty one is the end */
		read_data(c, data, (uint32_t)status, 0);
		return;
	}
	/* libnfs reports an expired call as EINTR "Command timed out", a lost one as EFAULT */
	int err = status;
	if (status == -EINTR && data && strstr((const char *)data, "timed out"))
		err = -ETIMEDOUT;
	else if (status == -EINTR && data && strstr((const char *)data, "cancel"))
		err = -ECANCELED;
	else if (status == -EFAULT || status == -EINTR)
		err = -EIO;
	call_done(c, err);
}

/* Pick a live context of the file, round-robin. -1: none left. */
static int pick_conn(struct lnfs_thread *t, const struct lnfs_file *f)
{
	for (int k = 0; k < f->nconns; k++) {
		int i = (t->rr + k) % f->nconns;
		const struct lnfs_conn *cn = &f->conns[i];
		if (cn->nfs && !cn->dead && (!f->v4 || f->h4[i])) {
			t->rr = (i + 1) % f->nconns;
			return i;
		}
	}
	return -1;
}

/* Queue call c (its fields filled in) on the file's next context. */
static int call_send(struct lnfs_call *c)
{
	struct lnfs_thread *t = c->t;
	struct lnfs_file *f = c->f;
	const struct lnfs_plan *p = &t->r->p;
	int i = pick_conn(t, f);
	if (i < 0)
		return -EIO;
	struct lnfs_conn *cn = &f->conns[i];
	int64_t bound = t->call_deadline;
	int64_t now = st_now_ns();
	if (p->soft && now + p->soft_ns < bound)
		bound = now + p->soft_ns;
	nfs_set_timeout(cn->nfs, ms_until(bound));
	c->bound_ns = bound;
	c->conn = i;

	nfs_fh3 fh = { .data = { .data_len = f->fh3_len, .data_val = f->fh3 } };
	int rc;
	switch (c->kind) {
	case CALL_WRITE: {
		WRITE3args a;
		memset(&a, 0, sizeof(a));
		a.file = fh;
		a.offset = c->off;
		a.count = c->count;
		a.stable = (stable_how)p->stable;
		a.data.data_len = c->count;
		a.data.data_val = (char *)c->src; /* libnfs copies it into the request */
		rc = rpc_nfs3_write_async(cn->rpc, write_cb, &a, c);
		break;
	}
	case CALL_READ: {
		READ3args a;
		memset(&a, 0, sizeof(a));
		a.file = fh;
		a.offset = c->off;
		a.count = c->count;
		rc = rpc_nfs3_read_async(cn->rpc, read_cb, &a, c);
		break;
	}
	case CALL_COMMIT: {
		COMMIT3args a;
		memset(&a, 0, sizeof(a));
		a.file = fh; /* offset 0, count 0: the whole file */
		rc = rpc_nfs3_commit_async(cn->rpc, commit_cb, &a, c);
		break;
	}
	default:
		rc = nfs_pread_async(cn->nfs, f->h4[i], c->off, c->count, read4_cb, c);
		break;
	}
	if (rc != 0)
		return -EIO;
	c->busy = 1;
	t->inflight++;
	cn->inflight++;
	return 0;
}

/* A context failed. soft: give up on it (its calls fail now, with EIO).
 * hard: libnfs is reconnecting; its calls expire at their bound. */
static void conn_failed(struct lnfs_thread *t, struct lnfs_conn *cn)
{
	if (!t->r->p.soft)
		return;
	cn->dead = 1;
	rpc_disconnect(cn->rpc, "connection lost (soft)");
}

/* A call long past its bound: libnfs did not expire it (it cannot while a
 * request sits half-written in its queue). Drop the connection under it;
 * destroying the context cancels its calls through their callbacks. */
static void reap_overdue(struct lnfs_thread *t)
{
	int64_t now = st_now_ns();
	for (int k = 0; k < t->ncalls; k++) {
		struct lnfs_call *c = &t->calls[k];
		if (!c->busy || now < c->bound_ns + LNFS_GRACE_NS)
			continue;
		struct lnfs_file *f = c->f;
		struct lnfs_conn *cn = &f->conns[c->conn];
		int i = c->conn;
		if (!cn->nfs)
			continue;
		cn->dead = 1;
		rpc_disconnect(cn->rpc, "call overdue");
		if (c->busy) {
			/* not connected, so not failed by the disconnect: the v4 open
			 * on this context goes with it (libnfs cannot close it now) */
			nfs_destroy_context(cn->nfs);
			cn->nfs = NULL;
			cn->rpc = NULL;
			f->h4[i] = NULL;
		}
	}
}

/* One round of the event loop: wait up to 100 ms on every context with
 * calls in flight, then let libnfs read, write and expire calls. */
static void pump(struct lnfs_thread *t, struct lnfs_file *f)
{
	struct pollfd pfd[LNFS_MAX_CONN];
	struct lnfs_conn *cs[LNFS_MAX_CONN];
	int n = 0;
	for (int i = 0; i < f->nconns; i++) {
		struct lnfs_conn *cn = &f->conns[i];
		if (!cn->nfs || !cn->inflight)
			continue;
		cs[n] = cn;
		pfd[n].fd = rpc_get_fd(cn->rpc);
		pfd[n].events = (short)rpc_which_events(cn->rpc);
		pfd[n].revents = 0;
		n++;
	}
	if (!n)
		return;
	int rc = poll(pfd, (nfds_t)n, LNFS_POLL_MS);
	int failed = 0;
	for (int i = 0; i < n; i++) {
		if (!cs[i]->nfs)
			continue;
		if (rpc_service(cs[i]->rpc, rc > 0 ? pfd[i].revents : 0) < 0) {
			conn_failed(t, cs[i]);
			failed = 1;
		}
	}
	if (failed && !t->r->p.soft) {
		/* hard, server refusing: libnfs reconnects at once; do not spin */
		struct timespec ts = { 0, 20 * NS_PER_MS };
		nanosleep(&ts, NULL);
	}
}

/* Run the loop until at most `max` calls are in flight. */
static void drain(struct lnfs_thread *t, struct lnfs_file *f, int max)
{
	while (t->inflight > max) {
		pump(t, f);
		if (t->inflight > max)
			reap_overdue(t);
	}
}

static struct lnfs_call *free_slot(struct lnfs_thread *t)
{
	for (int k = 0; k < t->ncalls; k++)
		if (!t->calls[k].busy)
			return &t->calls[k];
	return NULL;
}

/* The first error a returned pwrite's call left, once. */
static int take_err(struct lnfs_file *f)
{
	int e = f->err;
	f->err = 0;
	return e;
}

/* Split [off, off+len) into calls of `size`, at most iodepth in flight.
 * Writes return once the last call is queued when iodepth > 1. */
static ssize_t xfer(struct lnfs_thread *t, struct lnfs_file *f, int kind, unsigned char *dst,
		    const unsigned char *src, size_t len, uint64_t off, uint32_t size)
{
	struct lnfs_xfer x = { .end = off + len, .eof_at = off + len, .err = 0 };
	int depth = t->ncalls;
	for (size_t pos = 0; pos < len && !x.err;) {
		drain(t, f, depth - 1);
		if (x.err)
			break;
		struct lnfs_call *c = free_slot(t);
		uint32_t n = len - pos < size ? (uint32_t)(len - pos) : size;
		*c = (struct lnfs_call){ .t = t, .f = f, .x = &x, .kind = kind, .off = off + pos,
					 .count = n, .dst = dst ? dst + pos : NULL,
					 .src = src ? src + pos : NULL };
		int rc = call_send(c);
		if (rc)
			x.err = rc;
		pos += n;
	}
	if (kind == CALL_WRITE && depth > 1 && !x.err) {
		/* write-behind: the caller may reuse buf; its calls report to the file */
		for (int k = 0; k < t->ncalls; k++)
			if (t->calls[k].busy && t->calls[k].x == &x) {
				t->calls[k].x = NULL;
				t->calls[k].src = NULL;
			}
	} else {
		drain(t, f, 0);
	}
	if (x.err)
		return x.err;
	if (f->err)
		return take_err(f);
	return x.eof_at < x.end ? (ssize_t)(x.eof_at - off) : (ssize_t)len;
}

/* ---- the engine ---- */

static unsigned lnfs_unsupported(const struct st_config *cfg, const struct st_combo *c, char *why,
				 size_t n)
{
	struct lnfs_url u;
	char err[256];
	const unsigned all = (1u << ST_PHASE_COUNT) - 1;
	const unsigned writes = 1u << ST_PHASE_WRITE | 1u << ST_PHASE_REWRITE |
				1u << ST_PHASE_RANDWRITE;
	if (url_parse(cfg->o[ST_OPT_TARGET].s, &u, err, sizeof(err)))
		return 0; /* validate() has said so already */
	if (c->v[ST_OPT_PROTO] != ST_UNSET && c->v[ST_OPT_PROTO] != 0) {
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
	int v = vers_index(c, &u);
	const char *from = c->v[ST_OPT_VERS] == ST_UNSET ? " (the URL's version)" : "";
	if (v >= 2) {
		snprintf(why, n, "vers=%s: libnfs 4.0.0 speaks NFSv4.0 only (no minor versions)",
			 st_options[ST_OPT_VERS].choices[v]);
		return all;
	}
	if (v == 1) {
		snprintf(why, n, "vers=4%s: libnfs 4.0.0 cannot write over NFSv4 (writes of more "
				 "than ~3.9 KB fail to encode)", from);
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
		if (conn_open(&c, p, prefix, 3, 1, NULL, deadline, msg, sizeof(msg)))
			continue;
		const char *rest = p->u.path + strlen(prefix);
		struct nfs_stat_64 st;
		int64_t t0 = st_now_ns();
		sync_bound(p, &c, deadline);
		int rc = sync_result(nfs_stat64(c.nfs, rest, &st), t0, deadline, p);
		if (rc == 0 && (st.nfs_mode & S_IFMT) != S_IFDIR)
			snprintf(err, n, "--target: %s: '%s' in export '%s' is not a directory", p->url,
				 rest, prefix);
		else if (rc == 0)
			snprintf(err, n, "--target: %s: cannot mount '%s' (the server refuses "
					 "subdirectory mounts?): %s", p->url, p->u.path, first);
		else
			snprintf(err, n, "--target: %s: directory '%s' in export '%s': %s", p->url,
				 rest, prefix, rc == -ENOENT ? "does not exist" : strerror(-rc));
		conn_close(&c);
		return;
	}
	snprintf(err, n, "--target: %s: cannot mount export '%s': %s", p->url, p->u.path, first);
}

static int lnfs_validate(const struct st_config *cfg, int64_t deadline, char *err, size_t n)
{
	const char *target = cfg->o[ST_OPT_TARGET].s;
	struct lnfs_url u;
	char why[ST_ERR_MAX];
	if (url_parse(target, &u, why, sizeof(why))) {
		snprintf(err, n, "--target: '%s' %s", target, why);
		return -1;
	}
	struct st_combo none;
	st_plan_combo(cfg, 0, &none);
	struct lnfs_plan *p = malloc(sizeof(*p));
	if (!p) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	plan_make(cfg, &none, &u, p);
	p->soft = 1; /* no reconnecting while checking */

	/* NFSv3 whatever the combinations say: every file is written over it */
	struct lnfs_conn c;
	char msg[ST_ERR_MAX];
	int rc = conn_open(&c, p, NULL, 3, 1, NULL, deadline, msg, sizeof(msg));
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
		sync_bound(p, &c, deadline);
		rc = sync_result(nfs_access(c.nfs, "/", W_OK | X_OK), t0, deadline, p);
		if (rc == -EACCES || rc == -EPERM || rc == -EROFS)
			snprintf(err, n, "--target: %s: directory '%s' is not writable (NFS ACCESS: %s)",
				 target, u.path, strerror(-rc));
		else if (rc)
			snprintf(err, n, "--target: %s: checking directory '%s': %s", target, u.path,
				 strerror(-rc));
		conn_close(&c);
	}
	free(p);
	/* one line, whatever libnfs put into its message */
	for (char *q = err; *q; q++)
		if (*q == '\n' || *q == '\r')
			*q = ' ';
	return rc ? -1 : 0;
}

static int lnfs_setup(const struct st_engine_env *env, void **rs, char *msg, size_t n)
{
	const char *target = env->cfg->o[ST_OPT_TARGET].s;
	struct lnfs_url u;
	char why[ST_ERR_MAX];
	memset(env->eff, 0, sizeof(*env->eff));
	if (url_parse(target, &u, why, sizeof(why))) {
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
	plan_make(env->cfg, env->combo, &u, &r->p);
	r->rank = env->rank;
	/* soft: connecting gives up as a soft call does */
	r->setup_deadline = env->deadline_ns;
	if (r->p.soft && st_now_ns() + r->p.soft_ns < r->setup_deadline)
		r->setup_deadline = st_now_ns() + r->p.soft_ns;
	int rc = conn_open(&r->ns, &r->p, NULL, 3, r->p.soft, NULL, r->setup_deadline, msg, n);
	if (rc) {
		free(r);
		return rc;
	}
	plan_sizes(env->combo, &r->p, nfs_get_readmax(r->ns.nfs), nfs_get_writemax(r->ns.nfs));
	effective_fill(&r->p, env->combo, env->eff);
	*rs = r;
	return 0;
}

static void lnfs_teardown(void *rs)
{
	struct lnfs_rank *r = rs;
	if (!r)
		return;
	conn_close(&r->ns);
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
		int rc = conn_open(&t->io[i], p, NULL, p->vers, p->soft, name, deadline, msg, n);
		if (rc)
			return rc;
		t->nio = i + 1;
	}
	return 0;
}

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
	if (!t->calls) {
		free(t);
		return -ENOMEM;
	}
	/* NFSv4: only the layout context now; the v4 ones once the file is laid
	 * out, so a long layout cannot outlast their lease */
	int rc = r->p.vers == 4
			 ? conn_open(&t->lay, &r->p, NULL, 3, r->p.soft, NULL, r->setup_deadline, msg, n)
			 : open_io(t, r->setup_deadline, msg, n);
	if (rc) {
		for (int i = 0; i < t->nio; i++)
			conn_close(&t->io[i]);
		conn_close(&t->lay);
		free(t->calls);
		free(t);
		return rc;
	}
	*ts = t;
	return 0;
}

static void lnfs_thread_fini(void *ts)
{
	struct lnfs_thread *t = ts;
	if (!t)
		return;
	/* contexts first: destroying one cancels its calls into the slots */
	for (int i = 0; i < t->nio; i++)
		conn_close(&t->io[i]);
	conn_close(&t->lay);
	free(t->calls);
	free(t);
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
			sync_bound(p, &t->io[i], t->call_deadline);
			rc = sync_result(nfs_open2(t->io[i].nfs, full, O_RDONLY, 0, &f->h4[i]), t0,
					 t->call_deadline, p);
			if (rc)
				f->h4[i] = NULL;
		}
		if (!rc && pick_conn(t, f) < 0)
			rc = -EIO;
	} else {
		f->conns = p->vers == 4 ? &t->lay : t->io;
		f->nconns = p->vers == 4 ? 1 : t->nio;
		int of = (flags & ST_OPEN_WRITE) ? ((flags & ST_OPEN_READ) ? O_RDWR : O_WRONLY)
						  : O_RDONLY;
		if (flags & ST_OPEN_CREATE)
			of |= O_CREAT | O_TRUNC;
		int i = pick_conn(t, f);
		struct nfsfh *h = NULL;
		if (i < 0) {
			rc = -EIO;
		} else {
			sync_bound(p, &f->conns[i], t->call_deadline);
			rc = sync_result(nfs_open2(f->conns[i].nfs, full, of, 0644, &h), t0,
					 t->call_deadline, p);
		}
		if (!rc) {
			/* libnfs's struct nfs_fh is laid out as nfs_fh3 (its
			 * examples/nfs-fh.c casts it the same way) */
			const struct nfs_fh3 *fh3 = (const struct nfs_fh3 *)nfs_get_fh(h);
			if (fh3->data.data_len > sizeof(f->fh3)) {
				rc = -EIO;
			} else {
				f->fh3_len = fh3->data.data_len;
				memcpy(f->fh3, fh3->data.data_val, f->fh3_len);
			}
			/* NFSv3 close of a handle never written through is local */
			nfs_close(f->conns[i].nfs, h);
		}
	}
	if (rc) {
		for (int i = 0; i < LNFS_MAX_CONN; i++)
			if (f->h4[i] && t->io[i].nfs)
				nfs_close(t->io[i].nfs, f->h4[i]);
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
	return xfer(t, f, CALL_WRITE, NULL, buf, len, off, t->r->p.wsize);
}

/* Any call of read-ahead slot a still in flight? */
static int ra_busy(const struct lnfs_thread *t, const struct lnfs_ra *a)
{
	for (int k = 0; k < t->ncalls; k++)
		if (t->calls[k].busy && t->calls[k].x == &a->x)
			return 1;
	return 0;
}

/* One READ for a block the worker will want soon: only a block that fits
 * in one call (a larger one already keeps iodepth calls in flight within
 * itself), only into a free call slot. */
static int lnfs_prefetch(void *ts, void *fh, size_t len, uint64_t off)
{
	struct lnfs_thread *t = ts;
	struct lnfs_file *f = fh;
	if (len > t->r->p.rsize || t->inflight >= t->ncalls)
		return -EAGAIN;
	if (!f->ra) {
		f->ra = calloc((size_t)t->ncalls, sizeof(*f->ra));
		if (!f->ra)
			return -ENOMEM;
		f->nra = t->ncalls;
	}
	struct lnfs_ra *a = NULL;
	for (int i = 0; i < f->nra && !a; i++)
		if (!f->ra[i].used)
			a = &f->ra[i];
	if (!a)
		return -EAGAIN;
	if (a->cap < len) {
		unsigned char *nb = realloc(a->buf, len);
		if (!nb)
			return -ENOMEM;
		a->buf = nb;
		a->cap = len;
	}
	a->off = off;
	a->len = len;
	a->x = (struct lnfs_xfer){ .end = off + len, .eof_at = off + len, .err = 0 };
	struct lnfs_call *c = free_slot(t);
	*c = (struct lnfs_call){ .t = t, .f = f, .x = &a->x, .kind = f->v4 ? CALL_READ4 : CALL_READ,
				 .off = off, .count = (uint32_t)len, .dst = a->buf };
	int rc = call_send(c);
	if (rc)
		return rc;
	a->used = 1;
	return 0;
}

static ssize_t lnfs_pread(void *ts, void *fh, void *buf, size_t len, uint64_t off)
{
	struct lnfs_thread *t = ts;
	struct lnfs_file *f = fh;
	for (int i = 0; i < f->nra; i++) {
		struct lnfs_ra *a = &f->ra[i];
		if (!a->used || a->off != off || a->len != len)
			continue;
		/* its READ went out earlier: wait for it, keep the others going */
		while (ra_busy(t, a)) {
			pump(t, f);
			if (ra_busy(t, a))
				reap_overdue(t);
		}
		a->used = 0;
		if (a->x.err)
			return a->x.err;
		size_t got = a->x.eof_at < a->x.end ? (size_t)(a->x.eof_at - off) : len;
		memcpy(buf, a->buf, got);
		return (ssize_t)got;
	}
	return xfer(t, f, f->v4 ? CALL_READ4 : CALL_READ, buf, NULL, len, off, t->r->p.rsize);
}

/* Drop the read-ahead of a file (its calls have been drained). */
static void ra_free(struct lnfs_file *f)
{
	for (int i = 0; i < f->nra; i++)
		free(f->ra[i].buf);
	free(f->ra);
	f->ra = NULL;
	f->nra = 0;
}

/* Wait for every call, then COMMIT what the server holds unstably. */
static int settle(struct lnfs_thread *t, struct lnfs_file *f)
{
	drain(t, f, 0);
	if (f->err)
		return take_err(f);
	if (!f->uncommitted)
		return 0;
	struct lnfs_xfer x = { .err = 0 };
	struct lnfs_call *c = free_slot(t);
	*c = (struct lnfs_call){ .t = t, .f = f, .x = &x, .kind = CALL_COMMIT };
	int rc = call_send(c);
	if (rc)
		return rc;
	drain(t, f, 0);
	return x.err;
}

static int lnfs_fsync(void *ts, void *fh)
{
	return settle(ts, fh);
}

static int lnfs_close(void *ts, void *fh)
{
	struct lnfs_thread *t = ts;
	struct lnfs_file *f = fh;
	const struct lnfs_plan *p = &t->r->p;
	/* as a kernel client flushes at close: what is written is durable */
	int rc = settle(t, f);
	for (int i = 0; i < LNFS_MAX_CONN; i++) {
		if (!f->h4[i] || !t->io[i].nfs)
			continue;
		int64_t t0 = st_now_ns();
		int64_t bound = t->io[i].dead ? t0 : t->call_deadline;
		sync_bound(p, &t->io[i], bound);
		int e = sync_result(nfs_close(t->io[i].nfs, f->h4[i]), t0, bound, p);
		if (!rc)
			rc = e;
	}
	int layout_done = f->layout && p->vers == 4 && !rc;
	ra_free(f);
	free(f);
	if (layout_done) {
		/* the NFSv4 contexts, now that the file is there (see thread_init) */
		char msg[ST_ERR_MAX];
		rc = open_io(t, st_now_ns() + p->deadline_ns, msg, sizeof(msg));
	}
	return rc;
}

/* Name-space calls of the rank: each bounded by --deadline from its start. */
static int ns_call(struct lnfs_rank *r, const char *path, int op)
{
	if (!r->ns.nfs || r->ns.dead)
		return -EIO;
	char full[ST_STR_MAX + 2];
	abs_path(path, full, sizeof(full));
	int64_t t0 = st_now_ns(), deadline = t0 + r->p.deadline_ns;
	sync_bound(&r->p, &r->ns, deadline);
	int rc = op == 0 ? nfs_mkdir2(r->ns.nfs, full, 0755)
			 : op == 1 ? nfs_rmdir(r->ns.nfs, full) : nfs_unlink(r->ns.nfs, full);
	return sync_result(rc, t0, deadline, &r->p);
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

const struct st_engine st_engine_libnfs = {
	.name = "libnfs",
	.version = "1 (libnfs 4.0)",
	.caps = ST_EC_DIRECT | ST_EC_REAL_IO,
	.unsupported = lnfs_unsupported,
	.validate = lnfs_validate,
	.setup = lnfs_setup,
	.teardown = lnfs_teardown,
	.thread_init = lnfs_thread_init,
	.thread_fini = lnfs_thread_fini,
	.open = lnfs_open,
	.pwrite = lnfs_pwrite,
	.pread = lnfs_pread,
	.fsync = lnfs_fsync,
	.close = lnfs_close,
	.prefetch = lnfs_prefetch,
	.mkdir = lnfs_mkdir,
	.rmdir = lnfs_rmdir,
	.unlink = lnfs_unlink,
};

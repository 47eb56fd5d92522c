/*
 * lnfs_rpc.c - the libnfs engine's contexts and its raw NFSv3 call
 * pipeline (see lnfs.h).
 *
 * Invariants. A call slot is busy from the moment its call is queued until
 * libnfs has run its callback - also when the context is destroyed under
 * it (libnfs then cancels it, through the callback) - so slots live as long
 * as their thread. Every busy slot is counted in t->inflight and in its
 * context's inflight; only call_done and call_resend count one out. A call
 * whose pwrite already returned (write-behind, iodepth > 1) reports its
 * error to the file (f->err), which the file's next call returns; every
 * other call reports to the pread/pwrite waiting for it (its lnfs_xfer).
 * No call waits past its bound: libnfs expires it inside rpc_service,
 * which pump runs at least every LNFS_POLL_MS, and one libnfs cannot expire
 * (a request half-written in its queue) is reaped by dropping its
 * connection LNFS_GRACE_NS later.
 */
#include "lnfs.h"

#include "../common/hist.h"
#include "../common/util.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int lnfs_ms_until(int64_t deadline)
{
	int64_t left = deadline - st_now_ns();
	if (left <= 0)
		return 1; /* libnfs: 0 or less means "no timeout" */
	left = (left + NS_PER_MS - 1) / NS_PER_MS;
	return left > INT_MAX ? INT_MAX : (int)left;
}

void lnfs_conn_close(struct lnfs_conn *c)
{
	/* No UMNT: the MOUNT list on the server is advisory, and v3 UMNT would
	 * mean reconnecting to mountd. Destroying cancels what is in flight. */
	if (c->nfs)
		c->lib->nfs_destroy_context(c->nfs);
	memset(c, 0, sizeof(*c));
}

/*
 * Connect and mount `path` (NULL: the URL's) with NFS version vers, giving
 * up at deadline. soft: no reconnection. 0, or -errno with one line in msg.
 * The mount is driven by this loop (not libnfs's synchronous nfs_mount),
 * so a server that accepts and never answers, or never accepts, cannot hold
 * it past the deadline.
 */
int lnfs_conn_open(struct lnfs_conn *c, const struct lnfs_plan *p, const char *path, int vers,
		     int soft, const char *client, int64_t deadline, char *msg, size_t n)
{
	const struct lnfs_lib *L = p->lib;
	memset(c, 0, sizeof(*c));
	c->lib = L;
	int64_t t0 = st_now_ns();
	struct nfs_context *nfs = L->nfs_init_context();
	if (!nfs) {
		snprintf(msg, n, "cannot create a libnfs context");
		return -ENOMEM;
	}
	/* libnfs reads nfsport/mountport/uid/... only from a URL (no setters in 4.0) */
	struct nfs_url *u = L->nfs_parse_url_dir(nfs, p->url);
	if (!u) {
		snprintf(msg, n, "%s: %s", p->url, L->nfs_get_error(nfs));
		L->nfs_destroy_context(nfs);
		return -EINVAL;
	}
	L->nfs_destroy_url(u);
	L->nfs_set_version(nfs, vers); /* NFS_V3 = 3, NFS_V4 = 4 (libnfs-raw-nfs4.h) */
	if (vers == 4 && client)
		L->nfs4_set_client_name(nfs, client);
	L->nfs_set_autoreconnect(nfs, soft ? 0 : -1); /* read by the mount: set before it */
	/* the mount's own calls expire after our deadline: the loop below decides */
	int ms = lnfs_ms_until(deadline);
	L->nfs_set_timeout(nfs, ms < INT_MAX - 1000 ? ms + 1000 : INT_MAX);

	struct mount_wait w = { 0, 0 };
	const char *mpath = path ? path : p->u.path;
	if (L->nfs_mount_async(nfs, p->u.host, mpath, mount_cb, &w) != 0) {
		snprintf(msg, n, "cannot start mounting %s:%s: %s", p->u.server, mpath,
			 L->nfs_get_error(nfs));
		L->nfs_destroy_context(nfs);
		return -EIO;
	}
	while (!w.done) {
		int64_t left = deadline - st_now_ns();
		if (left <= 0)
			break;
		struct pollfd pfd = { .fd = L->nfs_get_fd(nfs),
				      .events = (short)L->nfs_which_events(nfs) };
		int wait = left / NS_PER_MS + 1 < LNFS_POLL_MS ? (int)(left / NS_PER_MS + 1) : LNFS_POLL_MS;
		int rc = poll(&pfd, 1, wait);
		if (L->nfs_service(nfs, rc > 0 ? pfd.revents : 0) < 0 && !w.done) {
			w.done = 1;
			w.status = -ECONNREFUSED;
		}
	}
	if (!w.done) {
		snprintf(msg, n, "server %s did not answer within %.0f s", p->u.server,
			 (double)(deadline - t0) / 1e9);
		L->nfs_destroy_context(nfs);
		return -ETIMEDOUT;
	}
	if (w.status < 0) {
		snprintf(msg, n, "cannot mount %s:%s (NFSv%d): %s", p->u.server, mpath, vers,
			 L->nfs_get_error(nfs));
		L->nfs_destroy_context(nfs);
		return w.status;
	}
	c->nfs = nfs;
	c->rpc = L->nfs_get_rpc_context(nfs);
	return 0;
}

/* Bound a synchronous libnfs call (open, close, mkdir...): its RPCs expire
 * at deadline, capped by the soft limit. */
void lnfs_sync_bound(const struct lnfs_plan *p, struct lnfs_conn *c, int64_t deadline)
{
	int64_t now = st_now_ns();
	if (p->soft && now + p->soft_ns < deadline)
		deadline = now + p->soft_ns;
	c->lib->nfs_set_timeout(c->nfs, lnfs_ms_until(deadline));
}

/* A synchronous call's result: libnfs reports an expired RPC as EINTR or
 * EFAULT; say what happened. */
int lnfs_sync_result(int rc, int64_t started, int64_t deadline, const struct lnfs_plan *p)
{
	if (rc >= 0)
		return rc;
	int64_t now = st_now_ns();
	if (now >= deadline || (p->soft && now - started >= p->soft_ns))
		return -ETIMEDOUT;
	return rc == -EFAULT || rc == -EINTR ? -EIO : rc;
}

static int rpc_status_err(int status)
{
	switch (status) {
	case RPC_STATUS_SUCCESS: return 0;
	case RPC_STATUS_TIMEOUT: return -ETIMEDOUT;
	case RPC_STATUS_CANCEL: return -ECANCELED;
	default: return -EIO;
	}
}

static int nfs3_err(const struct lnfs_call *c, int nfsstat)
{
	int e = c->t->r->p.lib->nfsstat3_to_errno(nfsstat);
	return e < 0 ? e : -EIO;
}

static int call_send(struct lnfs_call *c);

struct lnfs_blk *lnfs_blk_begin(struct lnfs_thread *t)
{
	for (int k = 0; t->blks && k <= t->ncalls; k++)
		if (!t->blks[k].used) {
			t->blks[k] = (struct lnfs_blk){ .issued_ns = st_now_ns(), .used = 1 };
			return &t->blks[k];
		}
	return NULL;
}

/* b is over when no call of it is in flight: its issue-to-completion time
 * goes to the worker's histogram, unless a call of it failed. */
void lnfs_blk_settle(struct lnfs_thread *t, struct lnfs_blk *b)
{
	if (!b || !b->used || b->pending)
		return;
	if (!b->err && t->lat)
		st_hist_add(t->lat, (uint64_t)(st_now_ns() - b->issued_ns));
	b->used = 0;
}

/* The NFS operation a call is counted under (a metadata call under its
 * own: they were all counted as READs). */
static int kind_of(const struct lnfs_call *c)
{
	switch (c->kind) {
	case CALL_WRITE:
		return LNFS_K_WRITE;
	case CALL_COMMIT:
		return LNFS_K_COMMIT;
	case CALL_LOOKUP:
		return LNFS_K_LOOKUP;
	case CALL_CREATE:
		return LNFS_K_CREATE;
	case CALL_MKDIR:
		return LNFS_K_MKDIR;
	case CALL_GETATTR:
		return LNFS_K_GETATTR;
	case CALL_REMOVE:
		return LNFS_K_REMOVE;
	case CALL_RMDIR:
		return LNFS_K_RMDIR;
	case CALL_READDIRPLUS:
		return LNFS_K_READDIRPLUS;
	case CALL_READ:
	case CALL_READ4:
		break;
	}
	return LNFS_K_READ;
}

/* One call answered (err 0), expired or failed: its time, and for a READ
 * the bytes that came back. */
static void call_count(struct lnfs_call *c, int err, uint32_t got)
{
	struct lnfs_kind_stats *k = &c->t->stats.k[kind_of(c)];
	uint64_t took = (uint64_t)(st_now_ns() - c->sent_ns);
	k->ops++;
	k->time_ns += took;
	st_hist_add(&k->hist, took);
	if (err == -ETIMEDOUT)
		k->timeouts++;
	if (err)
		k->errors++;
	if (kind_of(c) == LNFS_K_READ)
		k->bytes_recv += got;
}

/* A call is over: count it out and file its error where it will be seen. */
static void call_done(struct lnfs_call *c, int err)
{
	struct lnfs_thread *t = c->t;
	if (c->busy && c->sent_ns)
		call_count(c, err, 0);
	c->sent_ns = 0;
	c->busy = 0;
	t->inflight--;
	c->f->conns[c->conn].inflight--;
	if (c->blk) {
		c->blk->err |= err != 0;
		c->blk->pending--;
		lnfs_blk_settle(t, c->blk);
		c->blk = NULL;
	}
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
	call_count(c, 0, c->kind == CALL_WRITE ? 0 : done);
	c->sent_ns = 0;
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
		if (c->blk) {
			c->blk->err = 1;
			c->blk->pending--;
			lnfs_blk_settle(c->t, c->blk);
			c->blk = NULL;
		}
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
			err = nfs3_err(c, res->status);
		} else {
			WRITE3resok *ok = &res->WRITE3res_u.resok;
			if (!f->have_verf || !memcmp(f->verf, ok->verf, sizeof(f->verf))) {
				memcpy(f->verf, ok->verf, sizeof(f->verf));
				f->have_verf = 1;
			} else if (f->uncommitted) {
				err = -EIO; /* new verifier: the server restarted, unstable data lost */
				f->restarted = 1;
			} else {
				/* FILE_SYNC data is safe, but the phase ran across a restart */
				memcpy(f->verf, ok->verf, sizeof(f->verf));
				f->restarted = 1;
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
			err = nfs3_err(c, res->status);
		else if (f->have_verf && memcmp(f->verf, res->COMMIT3res_u.resok.verf, sizeof(f->verf))) {
			err = -EIO; /* the server restarted since the writes: they are lost */
			f->restarted = 1;
		}
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
	c->t->stats.k[LNFS_K_READ].bytes_recv += got;
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
			err = nfs3_err(c, res->status);
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

/* A READDIRPLUS's entries into the directory's listing: their names after
 * what is left of the last reply's, the cookie of the last, the verifier,
 * the end. 0 or -ENOMEM. */
static int list_add(struct lnfs_list *l, const READDIRPLUS3resok *ok)
{
	memcpy(l->verf, ok->cookieverf, sizeof(l->verf));
	l->eof = ok->reply.eof != 0;
	/* libnfs's decoder lays the entries out 4-byte aligned: each is copied
	 * whole before a member is read (its 64-bit cookie and pointers) */
	for (const void *p = ok->reply.entries; p;) {
		entryplus3 e;
		memcpy(&e, p, sizeof(e));
		p = e.nextentry;
		l->cookie = e.cookie;
		if (!strcmp(e.name, ".") || !strcmp(e.name, ".."))
			continue;
		size_t k = strlen(e.name) + 1;
		if (l->len + k > l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 4096;
			while (cap < l->len + k)
				cap *= 2;
			char *n = realloc(l->names, cap);
			if (!n)
				return -ENOMEM;
			l->names = n;
			l->cap = cap;
		}
		memcpy(l->names + l->len, e.name, k);
		l->len += k;
	}
	return 0;
}

/* A metadata call's answer: every NFSv3 result begins with its status;
 * LOOKUP, CREATE and MKDIR hand back the handle of what they found or made. */
static void meta_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc;
	struct lnfs_call *c = priv;
	int err = rpc_status_err(status);
	if (!err) {
		nfsstat3 st = *(const nfsstat3 *)data;
		const nfs_fh3 *fh = NULL;
		if (st != NFS3_OK) {
			err = nfs3_err(c, st);
		} else if (c->kind == CALL_LOOKUP) {
			fh = &((LOOKUP3res *)data)->LOOKUP3res_u.resok.object;
		} else if (c->kind == CALL_READDIRPLUS) {
			err = list_add(c->f->list, &((READDIRPLUS3res *)data)->READDIRPLUS3res_u.resok);
		} else if (c->kind == CALL_CREATE || c->kind == CALL_MKDIR) {
			post_op_fh3 *p = c->kind == CALL_CREATE ? &((CREATE3res *)data)->CREATE3res_u.resok.obj
								: &((MKDIR3res *)data)->MKDIR3res_u.resok.obj;
			if (p->handle_follows)
				fh = &p->post_op_fh3_u.handle;
		}
		if (fh && c->res) {
			if (fh->data.data_len > sizeof(c->res->fh3)) {
				err = -EIO;
			} else {
				c->res->fh3_len = fh->data.data_len;
				memcpy(c->res->fh3, fh->data.data_val, fh->data.data_len);
			}
		}
	}
	call_done(c, err);
}

/* Pick a live context of the file, round-robin. -1: none left. */
int lnfs_pick_conn(struct lnfs_thread *t, const struct lnfs_file *f)
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

/* The RPC of a data call (WRITE, READ, COMMIT; an NFSv4 read through
 * libnfs) on context i of the file, fh its handle: libnfs's answer. */
static int send_data(struct lnfs_call *c, struct lnfs_conn *cn, int i, nfs_fh3 fh)
{
	const struct lnfs_plan *p = &c->t->r->p;
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
		return cn->lib->rpc_nfs3_write_async(cn->rpc, write_cb, &a, c);
	}
	case CALL_READ: {
		READ3args a;
		memset(&a, 0, sizeof(a));
		a.file = fh;
		a.offset = c->off;
		a.count = c->count;
		return cn->lib->rpc_nfs3_read_async(cn->rpc, read_cb, &a, c);
	}
	case CALL_COMMIT: {
		COMMIT3args a;
		memset(&a, 0, sizeof(a));
		a.file = fh; /* offset 0, count 0: the whole file */
		return cn->lib->rpc_nfs3_commit_async(cn->rpc, commit_cb, &a, c);
	}
	default:
		return cn->lib->nfs_pread_async(cn->nfs, c->f->h4[i], c->off, c->count, read4_cb,
						c);
	}
}

/* The RPC of a metadata call (LOOKUP, CREATE, MKDIR, GETATTR, REMOVE,
 * RMDIR) in directory fh (GETATTR: of fh); -1 for another kind. */
static int send_meta(struct lnfs_call *c, struct lnfs_conn *cn, nfs_fh3 fh)
{
	switch (c->kind) {
	case CALL_LOOKUP: {
		LOOKUP3args a;
		memset(&a, 0, sizeof(a));
		a.what.dir = fh;
		a.what.name = (char *)c->name;
		return cn->lib->rpc_nfs3_lookup_async(cn->rpc, meta_cb, &a, c);
	}
	case CALL_CREATE: {
		CREATE3args a;
		memset(&a, 0, sizeof(a));
		a.where.dir = fh;
		a.where.name = (char *)c->name;
		a.how.mode = GUARDED; /* an existing file is an error, as O_EXCL */
		a.how.createhow3_u.g_obj_attributes.mode.set_it = 1;
		a.how.createhow3_u.g_obj_attributes.mode.set_mode3_u.mode = 0644;
		return cn->lib->rpc_nfs3_create_async(cn->rpc, meta_cb, &a, c);
	}
	case CALL_MKDIR: {
		MKDIR3args a;
		memset(&a, 0, sizeof(a));
		a.where.dir = fh;
		a.where.name = (char *)c->name;
		a.attributes.mode.set_it = 1;
		a.attributes.mode.set_mode3_u.mode = 0755;
		return cn->lib->rpc_nfs3_mkdir_async(cn->rpc, meta_cb, &a, c);
	}
	case CALL_GETATTR: {
		GETATTR3args a;
		memset(&a, 0, sizeof(a));
		a.object = fh;
		return cn->lib->rpc_nfs3_getattr_async(cn->rpc, meta_cb, &a, c);
	}
	case CALL_REMOVE: {
		REMOVE3args a;
		memset(&a, 0, sizeof(a));
		a.object.dir = fh;
		a.object.name = (char *)c->name;
		return cn->lib->rpc_nfs3_remove_async(cn->rpc, meta_cb, &a, c);
	}
	case CALL_RMDIR: {
		RMDIR3args a;
		memset(&a, 0, sizeof(a));
		a.object.dir = fh;
		a.object.name = (char *)c->name;
		return cn->lib->rpc_nfs3_rmdir_async(cn->rpc, meta_cb, &a, c);
	}
	case CALL_READDIRPLUS: {
		/* as Linux lists a directory: its dircount of 4 KiB of names and
		 * cookies, each reply up to 32 KiB with the entries' attributes */
		const struct lnfs_list *l = c->f->list;
		READDIRPLUS3args a;
		memset(&a, 0, sizeof(a));
		a.dir = fh;
		a.cookie = l->cookie;
		memcpy(a.cookieverf, l->verf, sizeof(a.cookieverf));
		a.dircount = 4096;
		a.maxcount = 32768;
		return cn->lib->rpc_nfs3_readdirplus_async(cn->rpc, meta_cb, &a, c);
	}
	default:
		return -1;
	}
}

static int is_meta_call(int kind)
{
	return kind == CALL_LOOKUP || kind == CALL_CREATE || kind == CALL_MKDIR ||
	       kind == CALL_GETATTR || kind == CALL_REMOVE || kind == CALL_RMDIR ||
	       kind == CALL_READDIRPLUS;
}

/* Queue call c (its fields filled in) on the file's next context. */
static int call_send(struct lnfs_call *c)
{
	struct lnfs_thread *t = c->t;
	struct lnfs_file *f = c->f;
	const struct lnfs_plan *p = &t->r->p;
	int i = lnfs_pick_conn(t, f);
	if (i < 0)
		return -EIO;
	struct lnfs_conn *cn = &f->conns[i];
	int64_t bound = t->call_deadline;
	int64_t now = st_now_ns();
	if (p->soft && now + p->soft_ns < bound)
		bound = now + p->soft_ns;
	cn->lib->nfs_set_timeout(cn->nfs, lnfs_ms_until(bound));
	c->bound_ns = bound;
	c->conn = i;

	nfs_fh3 fh = { .data = { .data_len = f->fh3_len, .data_val = f->fh3 } };
	int rc = is_meta_call(c->kind) ? send_meta(c, cn, fh) : send_data(c, cn, i, fh);
	if (rc != 0)
		return -EIO;
	c->busy = 1;
	c->sent_ns = now;
	t->inflight++;
	cn->inflight++;
	struct lnfs_kind_stats *k = &t->stats.k[kind_of(c)];
	k->trans++;
	if (c->kind == CALL_WRITE) {
		k->bytes_sent += c->count;
		if (p->stable == FILE_SYNC)
			k->file_sync++;
		else if (p->stable == DATA_SYNC)
			k->data_sync++;
		else
			k->unstable++;
	}
	return 0;
}

/* A context failed. soft: give up on it (its calls fail now, with EIO).
 * hard: libnfs is reconnecting; its calls expire at their bound. */
static void conn_failed(struct lnfs_thread *t, struct lnfs_conn *cn)
{
	t->stats.lost++;
	if (!t->r->p.soft) {
		/* libnfs sends again what was in flight once it has reconnected */
		for (int k = 0; k < t->ncalls; k++) {
			struct lnfs_call *c = &t->calls[k];
			if (c->busy && &c->f->conns[c->conn] == cn)
				t->stats.k[kind_of(c)].trans++;
		}
		return;
	}
	cn->dead = 1;
	cn->lib->rpc_disconnect(cn->rpc, "connection lost (soft)");
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
		cn->lib->rpc_disconnect(cn->rpc, "call overdue");
		if (c->busy) {
			/* not connected, so not failed by the disconnect: the v4 open
			 * on this context goes with it (libnfs cannot close it now) */
			cn->lib->nfs_destroy_context(cn->nfs);
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
		pfd[n].fd = cn->lib->rpc_get_fd(cn->rpc);
		pfd[n].events = (short)cn->lib->rpc_which_events(cn->rpc);
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
		if (cs[i]->lib->rpc_service(cs[i]->rpc, rc > 0 ? pfd[i].revents : 0) < 0) {
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
ssize_t lnfs_xfer(struct lnfs_thread *t, struct lnfs_file *f, int kind, unsigned char *dst,
		    const unsigned char *src, size_t len, uint64_t off, uint32_t size)
{
	struct lnfs_xfer x = { .end = off + len, .eof_at = off + len, .err = 0 };
	int depth = t->ncalls;
	struct lnfs_blk *b = NULL;
	for (size_t pos = 0; pos < len && !x.err;) {
		drain(t, f, depth - 1);
		if (x.err)
			break;
		/* timed from its first call's issue (after waiting for a slot) */
		if (!pos)
			b = lnfs_blk_begin(t);
		struct lnfs_call *c = free_slot(t);
		uint32_t n = len - pos < size ? (uint32_t)(len - pos) : size;
		*c = (struct lnfs_call){ .t = t, .f = f, .x = &x, .kind = kind, .off = off + pos,
					 .count = n, .dst = dst ? dst + pos : NULL,
					 .src = src ? src + pos : NULL, .blk = b };
		/* counted before the send: a callback may run inside it */
		if (b)
			b->pending++;
		int rc = call_send(c);
		if (rc) {
			c->blk = NULL;
			x.err = rc;
			if (b) {
				b->err = 1;
				b->pending--;
			}
		}
		pos += n;
	}
	lnfs_blk_settle(t, b); /* none of its calls went out */
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

/* Wait for every call, then COMMIT what the server holds unstably. */
int lnfs_settle(struct lnfs_thread *t, struct lnfs_file *f)
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
int lnfs_ra_start(struct lnfs_thread *t, struct lnfs_file *f, size_t len, uint64_t off)
{
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
	struct lnfs_blk *b = lnfs_blk_begin(t);
	*c = (struct lnfs_call){ .t = t, .f = f, .x = &a->x, .kind = f->v4 ? CALL_READ4 : CALL_READ,
				 .off = off, .count = (uint32_t)len, .dst = a->buf, .blk = b };
	if (b)
		b->pending = 1; /* before the send: a callback may run inside it */
	int rc = call_send(c);
	if (rc) {
		c->blk = NULL;
		if (b)
			b->used = 0;
		return rc;
	}
	a->used = 1;
	return 0;
}

int lnfs_ra_take(struct lnfs_thread *t, struct lnfs_file *f, void *buf, size_t len, uint64_t off,
		 ssize_t *got)
{
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
		if (a->x.err) {
			*got = a->x.err;
			return 1;
		}
		size_t have = a->x.eof_at < a->x.end ? (size_t)(a->x.eof_at - off) : len;
		memcpy(buf, a->buf, have);
		*got = (ssize_t)have;
		return 1;
	}
	return 0;
}

/* Drop the read-ahead of a file (its calls have been drained). */
void lnfs_ra_free(struct lnfs_file *f)
{
	for (int i = 0; i < f->nra; i++)
		free(f->ra[i].buf);
	free(f->ra);
	f->ra = NULL;
	f->nra = 0;
}

int lnfs_meta_call(struct lnfs_thread *t, struct lnfs_file *f, int kind, const char *name,
		   struct lnfs_file *res)
{
	/* one call at a time, as a system call: room for it first */
	drain(t, f, t->ncalls - 1);
	struct lnfs_xfer x = { .err = 0 };
	struct lnfs_call *c = free_slot(t);
	if (!c)
		return -EIO;
	if (res)
		res->fh3_len = 0;
	*c = (struct lnfs_call){ .t = t, .f = f, .x = &x, .kind = kind, .name = name, .res = res };
	int rc = call_send(c);
	if (rc)
		return rc;
	drain(t, f, 0);
	return x.err;
}

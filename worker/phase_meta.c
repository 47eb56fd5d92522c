/*
 * phase_meta.c - the one metadata phase loop (see pool.h): create, stat,
 * open and remove are the same loop over a thread's --files names, each
 * call ended as a data phase's are (pool_account), and the untimed
 * preparation and cleanup of the files and directories it works in.
 *
 * Where a thread's files are: its directory "<run_dir>/r<rank>.t<thread>.d"
 * (st_worker_meta_dir), with --fanout N > 1 spread over its subdirectories
 * d0 .. d<N-1>, file i in d<i / ceil(files / N)>, named f<i>. With
 * --dir-mode shared every thread of every rank works in the one directory
 * "<run_dir>/shared.d" (and its d0 .. d<N-1>, file i of each thread in the
 * same one as in its own), its file i named f<i>.r<rank>.t<thread>, so no
 * two threads' names meet; every thread makes the directories it needs
 * (one that another made first is opened: EEXIST) and tries to remove them
 * after (one that still holds another's files stays for that one). The
 * directory phases (mkdir, dirstat, rmdir) work the same way on --files
 * directories per thread, m<i> (m<i>.r<rank>.t<thread> when shared), where
 * its files would be. What a create
 * writes there is the data pattern at offset i << 32, so --verify checks
 * every file's bytes. The readdir phase lists each directory its files are
 * in (the top, or the leaves of the tree that hold files), one operation
 * per entry listed, each entry's attributes fetched (dir_next: `ls -l`
 * shows them, and the attribute cache and READDIRPLUS are what it
 * measures); the files it finds there must be the --files made, else the
 * phase fails. With --dir-mode shared the rank lists the shared directory
 * once, as mdtest lists per rank: its threads share the leaves (leaf d is
 * thread d mod --threads's; without --depth thread 0 lists it all), and
 * each leaf must hold every client thread's files. A thread records which of its files exist
 * (meta_lo .. meta_hi), so that cleanup removes exactly those.
 */
#include "pool.h"

#include "../common/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The leaf of the tree (-1: none, the top) file i of a thread is in. */
static int64_t meta_subdir(const struct st_worker *w, uint64_t i)
{
	if (w->depth <= 0)
		return -1;
	uint64_t per = ((uint64_t)w->nfiles + (uint64_t)w->leaves - 1) / (uint64_t)w->leaves;
	return (int64_t)(i / per);
}

/* Leaf d's path below the top, "d<a1>/d<a2>/.../d<aD>" (its digits in base
 * --fanout, the first level's first), into buf; with names[k] pointing at
 * level k's name (buf is cut into names when names is given). */
static void meta_leaf_path(const struct st_worker *w, int64_t d, char *buf, size_t n,
			   char **names)
{
	size_t at = 0;
	int64_t scale = w->leaves;
	buf[0] = '\0';
	for (int k = 0; k < w->depth && at < n; k++) {
		scale /= w->fanout;
		if (names)
			names[k] = buf + at;
		int m = snprintf(buf + at, n - at, "%sd%lld", k && !names ? "/" : "",
				 (long long)(d / scale % w->fanout));
		at += (size_t)m + (names ? 1 : 0); /* names: each its own string */
	}
}

/* The directory the files of (owner, thread) are in, or its subdirectories. */
static void meta_top(const struct st_worker *w, int owner, int thread, char *buf, size_t n)
{
	if (w->shared_dir)
		st_worker_meta_shared_dir(w->a.run_dir, buf, n);
	else
		st_worker_meta_dir(w->a.run_dir, owner, thread, buf, n);
}

/* The name of file i (f), or directory i (m), of (owner, thread) in its directory. */
static void meta_name(const struct st_worker *w, char kind, int owner, int thread, uint64_t i,
		      char *buf, size_t n)
{
	if (w->shared_dir)
		snprintf(buf, n, "%c%llu.r%d.t%d", kind, (unsigned long long)i, owner, thread);
	else
		snprintf(buf, n, "%c%llu", kind, (unsigned long long)i);
}

void pool_meta_path(const struct st_worker *w, int phase, int owner, int thread, uint64_t i,
		    char *buf, size_t n)
{
	char dir[ST_STR_MAX], name[64];
	meta_top(w, owner, thread, dir, sizeof(dir));
	meta_name(w, (1u << phase) & ST_PHASES_DIR ? 'm' : 'f', owner, thread, i, name,
		  sizeof(name));
	int64_t d = meta_subdir(w, i);
	char leaf[ST_STR_MAX];
	if (d < 0)
		snprintf(buf, n, "%s/%s", dir, name);
	else {
		meta_leaf_path(w, d, leaf, sizeof(leaf), NULL);
		snprintf(buf, n, "%s/%s/%s", dir, leaf, name);
	}
}

/* A directory made and opened; under --dir-mode shared one another thread
 * made first is opened. 0 or -errno. */
static int meta_make_dir(struct io_thread *t, void *parent, const char *name, void **dh)
{
	int rc = t->w->e->dir_open(t->ts, parent, name, 1, dh);
	if (rc == -EEXIST && t->w->shared_dir)
		rc = t->w->e->dir_open(t->ts, parent, name, 0, dh);
	return rc;
}

/* One metadata phase of one thread, as its loop sees it. */
struct meta_run {
	int phase;	/* ST_PHASE_* */
	int op;		/* ST_META_* */
	int owner;	/* rank whose files these are (stat, open: --reorder) */
	int verify;	/* --verify on */
	size_t len;	/* bytes per file */
	unsigned flags; /* ST_META_FSYNC */
	char kind;	/* 'f': its files; 'm': its directories */
	void *top;	/* the thread's directory */
	void *dh;	/* the directory the current file is in (top, or a subdirectory) */
	int64_t cur;	/* which subdirectory dh is (-1: top) */
};

/* dh becomes the directory of file i, opened as the loop reaches it (the
 * one before closed): inside the phase's span, outside every call's
 * latency. 0, or -errno with the error set. */
static int meta_enter(struct io_thread *t, struct meta_run *m, uint64_t i)
{
	struct st_worker *w = t->w;
	int64_t d = meta_subdir(w, i);
	if (d == m->cur)
		return 0;
	if (m->dh != m->top)
		w->e->dir_close(t->ts, m->dh);
	m->dh = m->top;
	char path[ST_STR_MAX], *names[ST_META_DEPTH_MAX];
	if (d >= 0)
		meta_leaf_path(w, d, path, sizeof(path), names);
	/* down the tree one level at a time, each level but the leaf closed */
	for (int k = 0; d >= 0 && k < w->depth; k++) {
		void *next = NULL;
		int rc = w->e->dir_open(t->ts, m->dh, names[k], 0, &next);
		if (m->dh != m->top)
			w->e->dir_close(t->ts, m->dh);
		m->dh = rc < 0 ? m->top : next;
		if (rc < 0) {
			m->cur = -1;
			pool_set_error(&t->res, -rc, ST_OP_OPEN, m->phase, i);
			return rc;
		}
	}
	m->cur = d;
	return 0;
}

/* File i's call, timed: 0, or -1 when the phase stops (its error set). */
static int meta_call(struct io_thread *t, struct meta_run *m, uint64_t i)
{
	static const int err_op[] = { [ST_META_CREATE] = ST_OP_CREATE, [ST_META_STAT] = ST_OP_STAT,
				      [ST_META_OPEN] = ST_OP_OPEN, [ST_META_REMOVE] = ST_OP_REMOVE,
				      [ST_META_RMDIR] = ST_OP_RMDIR, [ST_META_MKDIR] = ST_OP_MKDIR };
	struct st_worker *w = t->w;
	struct st_thread_result *r = &t->res;
	char name[64];
	meta_name(w, m->kind, m->owner, t->index, i, name, sizeof(name));
	uint64_t foff = i << 32; /* where file i's bytes are in the data pattern */
	void *data = t->buf;
	if (m->op == ST_META_CREATE && m->len)
		data = (void *)pool_make_data(t, foff, m->len);
	int64_t t0 = st_now_ns();
	ssize_t n = w->e->meta(t->ts, m->dh, m->op, name, data, m->len, m->flags);
	int64_t t1 = st_now_ns();
	if (n < 0) {
		pool_set_error(r, (int)-n, err_op[m->op], m->phase, i);
		return -1;
	}
	if (m->op == ST_META_OPEN && m->len) {
		t->buf_dirty = 1;
		if ((size_t)n < m->len) {
			pool_set_error(r, ENODATA, ST_OP_SHORT, m->phase, i);
			return -1;
		}
		if (m->verify && pool_check(t, t->buf, m->len, m->owner, foff) &&
		    !r->bad_blocks++)
			r->first_bad_offset = i;
	}
	if (m->op == ST_META_CREATE)
		t->meta_hi = i + 1;
	if (m->op == ST_META_REMOVE)
		t->meta_lo = i + 1;
	if (m->op == ST_META_MKDIR)
		t->mdir_hi = i + 1;
	if (m->op == ST_META_RMDIR)
		t->mdir_lo = i + 1;
	pool_account(t, t0, t1, (uint64_t)n, m->op == ST_META_OPEN);
	return 0;
}

/* The listing of the directory dh is (that of files i0 ..), `expect` files
 * in it: each entry listed one call, timed. 0, or -1 with the error set. */
static int meta_list_dir(struct io_thread *t, struct meta_run *m, uint64_t i0, uint64_t expect,
			 int untimed)
{
	struct st_worker *w = t->w;
	struct st_thread_result *r = &t->res;
	uint64_t files = 0;
	for (;;) {
		if (!untimed && st_now_ns() > w->deadline_ns) {
			r->flags |= ST_TF_DEADLINE;
			pool_set_error(r, ETIMEDOUT, ST_OP_DEADLINE, m->phase, i0 + files);
			return -1;
		}
		char name[ST_STR_MAX];
		int64_t t0 = st_now_ns();
		int rc = w->e->dir_next(t->ts, m->dh, files < expect ? expect - files : 0, name,
					sizeof(name));
		int64_t t1 = st_now_ns();
		if (rc < 0) {
			pool_set_error(r, -rc, ST_OP_READDIR, m->phase, i0 + files);
			return -1;
		}
		if (rc == 0)
			break;
		files += name[0] == 'f';
		pool_account(t, t0, t1, 0, 0);
	}
	if (files != expect) {
		/* fewer: the first missing one named; more: one not made */
		pool_set_error(r, files < expect ? ENOENT : EEXIST, ST_OP_READDIR, m->phase,
			       i0 + (files < expect ? files : expect));
		return -1;
	}
	return 0;
}

/* The readdir phase of one thread: the directories of its files (its
 * share of the shared directory's), each listed once. */
static void meta_list(struct io_thread *t, struct meta_run *m, int untimed)
{
	struct st_worker *w = t->w;
	uint64_t nf = (uint64_t)w->nfiles;
	uint64_t per = w->depth > 0 ? (nf + (uint64_t)w->leaves - 1) / (uint64_t)w->leaves : nf;
	uint64_t nleaf = w->depth > 0 ? (nf + per - 1) / per : 1;
	uint64_t share = w->shared_dir ? (uint64_t)w->a.nclients * (uint64_t)w->nthreads : 1;
	uint64_t step = w->shared_dir ? (uint64_t)w->nthreads : 1;
	for (uint64_t d = w->shared_dir ? (uint64_t)t->index : 0; d < nleaf; d += step) {
		uint64_t i0 = d * per, i1 = i0 + per < nf ? i0 + per : nf;
		if (w->depth > 0 && meta_enter(t, m, i0) < 0)
			return;
		if (meta_list_dir(t, m, i0, (i1 - i0) * share, untimed) < 0)
			return;
	}
}

/*
 * The one metadata phase loop: each of the thread's files in turn, in its
 * directory (the subdirectories of --fanout one after the other). stat and
 * open, with --reorder on, go to the files of the rank whose data files
 * this one reads. `untimed`: preparation or cleanup (no deadline; the
 * results are not figures).
 */
void pool_meta_phase(struct io_thread *t, int phase, int untimed)
{
	struct st_worker *w = t->w;
	const struct st_combo *c = w->a.combo;
	struct st_thread_result *r = &t->res;
	pool_result_begin(t, phase);
	if (!st_engine_has_meta(w->e)) {
		/* the job skips these phases (st_engine_unsupported): no call is
		 * made of an engine without them, should one be asked for */
		pool_set_error(r, EOPNOTSUPP, ST_OP_PREPARE, phase, 0);
		pool_result_end(t, st_now_ns(), st_now_ns(), 0);
		return;
	}
	static const int ops[ST_PHASE_COUNT] = {
		[ST_PHASE_CREATE] = ST_META_CREATE, [ST_PHASE_STAT] = ST_META_STAT,
		[ST_PHASE_READDIR] = ST_META_STAT,
		[ST_PHASE_OPEN] = ST_META_OPEN,	    [ST_PHASE_REMOVE] = ST_META_REMOVE,
		[ST_PHASE_MKDIR] = ST_META_MKDIR,   [ST_PHASE_DIRSTAT] = ST_META_STAT,
		[ST_PHASE_RMDIR] = ST_META_RMDIR,
	};
	int dirs = ((1u << phase) & ST_PHASES_DIR) != 0;
	struct meta_run m = { .phase = phase, .cur = -1, .op = ops[phase], .kind = dirs ? 'm' : 'f',
			      .len = dirs ? 0 : (size_t)w->file_size,
			      .verify = w->a.cfg->o[ST_OPT_VERIFY].v[0] == ST_ON };
	int reorder = (m.op == ST_META_STAT || m.op == ST_META_OPEN) && c->v[ST_OPT_REORDER] == ST_ON &&
		      !(phase == ST_PHASE_READDIR && w->shared_dir);
	m.owner = reorder ? w->a.partner : w->a.rank;
	m.flags = c->v[ST_OPT_FSYNC] == ST_ON && m.len ? ST_META_FSYNC : 0;
	uint64_t lo = 0, hi = (uint64_t)w->nfiles;
	if (m.op == ST_META_REMOVE || m.op == ST_META_RMDIR) {
		lo = dirs ? t->mdir_lo : t->meta_lo;
		hi = dirs ? t->mdir_hi : t->meta_hi;
	}
	if (m.op == ST_META_CREATE)
		t->meta_lo = t->meta_hi = 0;
	if (m.op == ST_META_MKDIR)
		t->mdir_lo = t->mdir_hi = 0;

	char dir[ST_STR_MAX];
	meta_top(w, m.owner, t->index, dir, sizeof(dir));
	int64_t start = st_now_ns();
	int rc = w->e->dir_open(t->ts, NULL, dir, 0, &m.top);
	if (rc < 0)
		pool_set_error(r, -rc, ST_OP_OPEN, phase, 0);
	m.dh = m.top;
	if (rc == 0 && phase == ST_PHASE_READDIR)
		meta_list(t, &m, untimed);
	for (uint64_t i = lo; rc == 0 && phase != ST_PHASE_READDIR && i < hi; i++) {
		if (!untimed && st_now_ns() > w->deadline_ns) {
			r->flags |= ST_TF_DEADLINE;
			pool_set_error(r, ETIMEDOUT, ST_OP_DEADLINE, phase, i);
			break;
		}
		if (meta_enter(t, &m, i) < 0 || meta_call(t, &m, i) < 0)
			break;
	}
	if (m.dh != m.top)
		w->e->dir_close(t->ts, m.dh);
	w->e->dir_close(t->ts, m.top);
	if (w->e->events)
		r->flags |= w->e->events(t->ts);
	pool_result_end(t, start, st_now_ns(), 0);
}

/* The tree below parent from level `level` on: --fanout directories d<k>
 * in each, --depth levels. 0, or -errno with the error set. */
static int meta_make_tree(struct io_thread *t, void *parent, int level)
{
	struct st_worker *w = t->w;
	for (int64_t k = 0; level < w->depth && k < w->fanout; k++) {
		char sub[32];
		void *dh = NULL;
		snprintf(sub, sizeof(sub), "d%lld", (long long)k);
		int rc = meta_make_dir(t, parent, sub, &dh);
		if (!rc)
			rc = meta_make_tree(t, dh, level + 1);
		if (dh)
			w->e->dir_close(t->ts, dh);
		if (rc < 0) {
			if (!t->res.error.err)
				pool_set_error(&t->res, -rc, ST_OP_MKDIR, -1, (uint64_t)k);
			return rc;
		}
	}
	return 0;
}

/* The tree below parent removed, the deepest level first; best effort. */
static void meta_remove_tree(struct io_thread *t, void *parent, int level)
{
	struct st_worker *w = t->w;
	for (int64_t k = 0; level < w->depth && k < w->fanout; k++) {
		char sub[32];
		void *dh = NULL;
		snprintf(sub, sizeof(sub), "d%lld", (long long)k);
		if (level + 1 < w->depth && w->e->dir_open(t->ts, parent, sub, 0, &dh) == 0) {
			meta_remove_tree(t, dh, level + 1);
			w->e->dir_close(t->ts, dh);
		}
		w->e->meta(t->ts, parent, ST_META_RMDIR, sub, NULL, 0, ST_META_CLEANUP);
	}
}

/* Preparation of the metadata phases (untimed): the thread's directory and
 * its subdirectories; without a create phase, the files too (for stat,
 * readdir, open, remove), and without a mkdir phase its directories (for dirstat,
 * rmdir). An error is left in t->res. */
void pool_meta_prep(struct io_thread *t)
{
	struct st_worker *w = t->w;
	pool_result_begin(t, ST_PHASE_CREATE);
	char dir[ST_STR_MAX];
	meta_top(w, w->a.rank, t->index, dir, sizeof(dir));
	void *top = NULL;
	int rc = meta_make_dir(t, NULL, dir, &top);
	if (rc < 0) {
		pool_set_error(&t->res, -rc, ST_OP_MKDIR, -1, 0);
		return;
	}
	t->meta_dirs = 1;
	rc = meta_make_tree(t, top, 0);
	w->e->dir_close(t->ts, top);
	unsigned ph = w->a.phases;
	if (!rc && (ph & ST_PHASES_META & ~ST_PHASES_DIR) && !(ph & (1u << ST_PHASE_CREATE)))
		pool_meta_phase(t, ST_PHASE_CREATE, 1);
	if (!t->res.error.err && (ph & ST_PHASES_DIR) && !(ph & (1u << ST_PHASE_MKDIR)))
		pool_meta_phase(t, ST_PHASE_MKDIR, 1);
}

/* After the combination (untimed): the thread's metadata files that are
 * left, its subdirectories, its directory. Best effort: what cannot be
 * removed stays (st_worker_remove_run_dir tries the directory again). */
void pool_meta_clean(struct io_thread *t)
{
	struct st_worker *w = t->w;
	if (!t->meta_dirs)
		return;
	if (t->meta_hi > t->meta_lo)
		pool_meta_phase(t, ST_PHASE_REMOVE, 1);
	if (t->mdir_hi > t->mdir_lo)
		pool_meta_phase(t, ST_PHASE_RMDIR, 1);
	char dir[ST_STR_MAX], leaf[64];
	meta_top(w, w->a.rank, t->index, dir, sizeof(dir));
	void *dh = NULL;
	if (w->depth > 0 && w->e->dir_open(t->ts, NULL, dir, 0, &dh) == 0) {
		meta_remove_tree(t, dh, 0);
		w->e->dir_close(t->ts, dh);
	}
	if (w->e->dir_open(t->ts, NULL, w->a.run_dir, 0, &dh) == 0) {
		snprintf(leaf, sizeof(leaf), "%s", strrchr(dir, '/') + 1);
		w->e->meta(t->ts, dh, ST_META_RMDIR, leaf, NULL, 0, ST_META_CLEANUP);
		w->e->dir_close(t->ts, dh);
	}
	t->meta_dirs = 0;
}

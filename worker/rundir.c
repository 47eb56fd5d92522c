/*
 * rundir.c - the names of a rank's files under the run's directory, and
 * their removal at the end of a run (see worker.h).
 *
 * Every name a rank uses is made here: its data files r<rank>.t<thread>
 * (or the one shared file), its metadata directories r<rank>.t<thread>.d.
 * The end of a run removes only those names (and the shared file, which
 * any rank may remove), so a rank never removes another's files; a
 * directory still holding another rank's files is that rank's to name.
 */
#include "worker.h"

#include "../common/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void st_worker_file_path(const char *run_dir, int rank, int thread, char *buf, size_t n)
{
	snprintf(buf, n, "%s/r%d.t%d", run_dir, rank, thread);
}

void st_worker_meta_dir(const char *run_dir, int rank, int thread, char *buf, size_t n)
{
	snprintf(buf, n, "%s/r%d.t%d.d", run_dir, rank, thread);
}

void st_worker_meta_shared_dir(const char *run_dir, char *buf, size_t n)
{
	snprintf(buf, n, "%s/shared.d", run_dir);
}

/* "what: ERRNO" appended to left (n bytes), ", " between items */
static void left_add(char *left, size_t n, const char *what, int err)
{
	if (!left || !n)
		return;
	size_t l = strlen(left);
	char e[32];
	snprintf(left + l, n - l, "%s%s: %s", l ? ", " : "", what, st_errno_name(err, e, sizeof(e)));
}

/* One removal (rmdir or unlink) of a name this rank may remove. ESTALE
 * says a handle on the way to it no longer names anything: the name was
 * looked up through a directory removed meanwhile (another rank's end, or
 * a call the client gave up on while the server was frozen that the server
 * carried out later: "left behind: r0.t1.d: ESTALE" was stored after a
 * freeze with nothing left). Looked up again from the root, the name is
 * either still there (and goes now) or gone (ENOENT). */
static int remove_name(const struct st_engine *e, void *rs, const char *path, int dir)
{
	int rc = dir ? e->rmdir(rs, path) : e->unlink(rs, path);
	if (rc == -ESTALE)
		rc = dir ? e->rmdir(rs, path) : e->unlink(rs, path);
	return rc;
}

int st_worker_remove_run_dir(const struct st_worker_args *a, int64_t give_up_ns, char *left,
			     size_t n)
{
	if (a->cfg->o[ST_OPT_KEEP].v[0] == ST_ON)
		return 0; /* --keep: the files stay, and so does their directory */
	struct st_effective eff;
	int64_t dl = a->cfg->o[ST_OPT_DEADLINE].v[0];
	struct st_engine_env env = { .cfg = a->cfg, .combo = a->combo, .rank = a->rank,
				     .eff = &eff,
				     .deadline_ns = st_now_ns() + (give_up_ns && give_up_ns < dl ? give_up_ns : dl) };
	void *rs = NULL;
	char msg[200];
	if (left && n)
		left[0] = '\0';
	/* a file whose removal failed after its combination (a soft mount
	 * timing out while the server was away) is removed now: any file this
	 * rank can have made, under the names only this rank uses (and the
	 * shared file, which any rank may remove); a metadata directory still
	 * holding files stays */
	const struct st_optval *threads = &a->cfg->o[ST_OPT_THREADS];
	int64_t most = 0, failed = 0;
	for (int i = 0; i < threads->n; i++)
		most = threads->v[i] > most ? threads->v[i] : most;
	int rc = a->engine->setup(&env, &rs, msg, sizeof(msg));
	if (rc < 0) {
		char what[400], first[ST_STR_MAX];
		st_worker_file_path(a->run_dir, a->rank, 0, first, sizeof(first));
		snprintf(what, sizeof(what), "%s%s (this rank's files, if any: the target did not answer, %s)",
			 first, most > 1 ? ".." : "", msg);
		left_add(left, n, what, -rc);
		return rc;
	}
	for (int64_t i = 0; i < most; i++) {
		char path[ST_STR_MAX];
		st_worker_file_path(a->run_dir, a->rank, (int)i, path, sizeof(path));
		int u = remove_name(a->engine, rs, path, 0);
		if (u < 0 && u != -ENOENT) {
			left_add(left, n, path, -u);
			failed = u;
		}
		st_worker_meta_dir(a->run_dir, a->rank, (int)i, path, sizeof(path));
		u = remove_name(a->engine, rs, path, 1);
		if (u < 0 && u != -ENOENT) {
			left_add(left, n, path, -u);
			failed = u;
		}
	}
	char shared[ST_STR_MAX];
	snprintf(shared, sizeof(shared), "%s/shared", a->run_dir);
	/* every rank tries: gone already is fine (ESTALE: another rank removed
	 * the run directory between this rank's lookup of it and of the file;
	 * `make demo` named the file left behind on a clean run) */
	int u = remove_name(a->engine, rs, shared, 0);
	if (u < 0 && u != -ENOENT) {
		left_add(left, n, shared, -u);
		failed = u;
	}
	/* --dir-mode shared's directory: any rank may remove it once empty;
	 * files still in it (any rank's) keep it, as they keep the run's */
	st_worker_meta_shared_dir(a->run_dir, shared, sizeof(shared));
	u = remove_name(a->engine, rs, shared, 1);
	if (u < 0 && u != -ENOENT && u != -ENOTEMPTY && u != -EEXIST) {
		left_add(left, n, shared, -u);
		failed = u;
	}
	rc = remove_name(a->engine, rs, a->run_dir, 1); /* as the shared file */
	a->engine->teardown(rs);
	/* the directory itself: another rank's files still in it are that
	 * rank's to name; gone already is fine */
	if (rc == -ENOENT || rc == -ENOTEMPTY || rc == -EEXIST)
		rc = 0;
	else if (rc < 0)
		left_add(left, n, a->run_dir, -rc);
	return failed ? (int)failed : rc;
}

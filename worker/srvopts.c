/*
 * srvopts.c - the server options on a knfsd host: the pure parse of
 * `exportfs -v` and the adapter that writes /proc/fs/nfsd/threads and
 * runs exportfs(8) (see srvopts.h).
 */
#include "srvopts.h"

#include "lnfs_url.h"

#include "../common/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int srv_fail(char *msg, size_t n, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int srv_fail(char *msg, size_t n, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, n, fmt, ap);
	va_end(ap);
	return rc;
}

/* Is export path e the path p or a directory above it? */
static int holds(const char *e, const char *p)
{
	size_t l = strlen(e);
	if (strncmp(e, p, l))
		return 0;
	return p[l] == '\0' || p[l] == '/' || (l == 1 && e[0] == '/');
}

/* exportfs -v: "PATH<ws>CLIENT(OPTS)" per client, a long PATH alone on its
 * line with its clients on the next; a PATH starts with '/'. */
int st_exportfs_find(const char *text, const char *path, char *epath, size_t en, char *client,
		     size_t cn, char *opts, size_t on)
{
	char cur[256] = "";
	size_t best = 0;
	const char *p = text;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		size_t len = strcspn(p, " \t\n");
		if (!len)
			break;
		const char *paren = memchr(p, '(', len);
		if (*p == '/' && !paren) {
			snprintf(cur, sizeof(cur), "%.*s", (int)len, p);
		} else if (paren && p[len - 1] == ')' && cur[0] && holds(cur, path) &&
			   strlen(cur) > best) {
			best = strlen(cur);
			st_copy(epath, en, cur);
			snprintf(client, cn, "%.*s", (int)(paren - p), p);
			if (!strcmp(client, "<world>"))
				st_copy(client, cn, "*");
			snprintf(opts, on, "%.*s", (int)(p + len - 1 - paren - 1), paren + 1);
		}
		p += len;
	}
	return best ? 0 : -ENOENT;
}

void st_srv_export_path(const struct st_config *cfg, char *buf, size_t n)
{
	buf[0] = '\0';
	if (cfg->o[ST_OPT_SERVER_DIR].n) {
		st_copy(buf, n, cfg->o[ST_OPT_SERVER_DIR].s);
	} else if (cfg->o[ST_OPT_MOUNT].n) {
		const char *colon = strchr(cfg->o[ST_OPT_MOUNT].s, ':');
		if (colon)
			st_copy(buf, n, colon + 1);
	} else if (cfg->o[ST_OPT_TARGET].n && strstr(cfg->o[ST_OPT_TARGET].s, "://")) {
		struct st_nfs_url *u = malloc(sizeof(*u));
		char why[200];
		if (u && st_nfs_url_parse(cfg->o[ST_OPT_TARGET].s, u, why, sizeof(why)) == 0)
			st_copy(buf, n, u->path);
		free(u);
	}
}

/* Run exportfs with argv; its stdout and stderr into out. 0 when it exits
 * 0, else -EIO (or -errno) with its first line in msg. */
static int exportfs(char *const argv[], char *out, size_t on, char *msg, size_t n)
{
	static const char *const paths[] = { "/usr/sbin/exportfs", "/sbin/exportfs", NULL };
	const char *tool = NULL;
	for (int i = 0; paths[i] && !tool; i++)
		if (access(paths[i], X_OK) == 0)
			tool = paths[i];
	if (!tool)
		return srv_fail(msg, n, -ENOENT, "exportfs not found (/usr/sbin, /sbin)");
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return srv_fail(msg, n, -errno, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	posix_spawnattr_init(&at);
	sigset_t all, none; /* the MPI library's signal settings are not the tool's */
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	pid_t pid;
	int rc = posix_spawn(&pid, tool, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		return srv_fail(msg, n, -rc, "spawn %s: %s", tool, strerror(rc));
	}
	size_t got = 0;
	for (;;) {
		char tmp[512];
		ssize_t r = read(pfd[0], tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		size_t k = (size_t)r < on - 1 - got ? (size_t)r : on - 1 - got;
		memcpy(out + got, tmp, k);
		got += k;
	}
	out[got] = '\0';
	close(pfd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return srv_fail(msg, n, -errno, "waitpid exportfs: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return srv_fail(msg, n, -EIO, "exportfs %s%s: %.*s", argv[1], argv[2] ? " ..." : "",
			(int)strcspn(out, "\n"), got ? out : "failed");
}

static int read_threads(int64_t *v, char *msg, size_t n)
{
	FILE *f = fopen(ST_NFSD_THREADS_FILE, "r");
	long long t;
	if (!f)
		return srv_fail(msg, n, -errno, "%s: %s", ST_NFSD_THREADS_FILE, strerror(errno));
	int ok = fscanf(f, "%lld", &t) == 1;
	fclose(f);
	if (!ok)
		return srv_fail(msg, n, -EIO, "%s: no number in it", ST_NFSD_THREADS_FILE);
	*v = t;
	return 0;
}

static int write_threads(int64_t v, char *msg, size_t n)
{
	int fd = open(ST_NFSD_THREADS_FILE, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return srv_fail(msg, n, -errno, "%s: %s", ST_NFSD_THREADS_FILE, strerror(errno));
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%lld\n", (long long)v);
	ssize_t w = write(fd, buf, (size_t)len);
	int e = errno;
	close(fd);
	if (w != len)
		return srv_fail(msg, n, w < 0 ? -e : -EIO, "writing %lld to %s: %s", (long long)v,
				ST_NFSD_THREADS_FILE, w < 0 ? strerror(e) : "short write");
	return 0;
}

/* The export holding path as exportfs -v shows it now. */
static int export_now(const char *path, char *epath, size_t en, char *client, size_t cn,
		      char *opts, size_t on, char *msg, size_t n)
{
	char *argv[] = { "exportfs", "-v", NULL };
	char *out = malloc(65536);
	if (!out)
		return srv_fail(msg, n, -ENOMEM, "out of memory");
	int rc = exportfs(argv, out, 65536, msg, n);
	if (!rc && (rc = st_exportfs_find(out, path, epath, en, client, cn, opts, on)))
		srv_fail(msg, n, rc, "exportfs -v shows no export that holds %s", path);
	free(out);
	return rc;
}

static int reexport(const char *client, const char *path, const char *opts, char *msg, size_t n)
{
	char spec[512], o[1024], out[2048];
	snprintf(spec, sizeof(spec), "%s:%s", client, path);
	snprintf(o, sizeof(o), "%s", opts);
	char *argv[] = { "exportfs", "-o", o, spec, NULL };
	return exportfs(argv, out, sizeof(out), msg, n);
}

static int apply_export(struct st_srv_state *s, const char *want, const char *path,
			struct st_effective *eff, char *msg, size_t n)
{
	char ep[256], cl[128], op[512], o[1024];
	int rc = export_now(path, ep, sizeof(ep), cl, sizeof(cl), op, sizeof(op), msg, n);
	if (rc)
		return rc;
	if (!s->export_saved) {
		st_copy(s->path, sizeof(s->path), ep);
		st_copy(s->client, sizeof(s->client), cl);
		st_copy(s->opts, sizeof(s->opts), op);
		s->export_saved = 1;
	}
	/* over the server's own options: exportfs takes the last of two
	 * that contradict (sync, async), and keeps the rest (rw, fsid=...) */
	if (snprintf(o, sizeof(o), "%s,%s", s->opts, want) >= (int)sizeof(o))
		return srv_fail(msg, n, -E2BIG, "the export's options are too long");
	if ((rc = reexport(s->client, s->path, o, msg, n)))
		return rc;
	rc = export_now(path, ep, sizeof(ep), cl, sizeof(cl), op, sizeof(op), msg, n);
	if (!rc)
		st_copy(eff->server_export, sizeof(eff->server_export), op);
	return rc;
}

int st_srv_apply(struct st_srv_state *s, const struct st_config *cfg, const struct st_combo *c,
		 const char *path, struct st_effective *eff, char *msg, size_t n)
{
	int64_t t = c->v[ST_OPT_SERVER_THREADS];
	int ex = c->v[ST_OPT_SERVER_EXPORT] != ST_UNSET;
	int rc = 0;
	msg[0] = '\0';
	if (t == ST_UNSET && !ex)
		return 0;
	if (access(ST_NFSD_THREADS_FILE, F_OK))
		return srv_fail(msg, n, -ENOTSUP, "runs no kernel NFS server (%s absent)",
				ST_NFSD_THREADS_FILE);
	if (geteuid() != 0)
		return srv_fail(msg, n, -EPERM, "is not root (the kernel NFS server's settings need "
				"root)");
	if (t != ST_UNSET) {
		int64_t got;
		if (!s->threads_saved && !(rc = read_threads(&s->threads, msg, n)))
			s->threads_saved = 1;
		if (rc || (rc = write_threads(t, msg, n)) || (rc = read_threads(&got, msg, n)))
			return rc;
		st_effective_set(eff, ST_OPT_SERVER_THREADS, got);
	}
	if (ex && !path[0])
		return srv_fail(msg, n, -EINVAL, "no export path: give --server-dir, --mount "
				"SERVER:/PATH or an nfs:// --target");
	if (ex)
		rc = apply_export(s, st_optval_str(&cfg->o[ST_OPT_SERVER_EXPORT],
						   (int)c->v[ST_OPT_SERVER_EXPORT]),
				  path, eff, msg, n);
	return rc;
}

int st_srv_restore(struct st_srv_state *s, char *msg, size_t n)
{
	int rc = 0, r2 = 0;
	char m2[256] = "";
	msg[0] = '\0';
	if (s->threads_saved && !(rc = write_threads(s->threads, msg, n)))
		s->threads_saved = 0;
	if (s->export_saved && !(r2 = reexport(s->client, s->path, s->opts, m2, sizeof(m2))))
		s->export_saved = 0;
	if (r2 && !rc) {
		st_copy(msg, n, m2);
		rc = r2;
	}
	return rc;
}

/*
 * output.c - --output FILE: the run's report written into a new file when
 * the run ends (see output.h).
 */
#include "output.h"

#include "../../common/options.h"
#include "../store/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --output FILE: a new file in a writable directory, not the store. 0, or
 * -1 with err. */
int st_output_check(const struct st_config *c, char *err, size_t n)
{
	const char *f = c->o[ST_OPT_OUTPUT].s;
	if (!c->o[ST_OPT_OUTPUT].n)
		return 0;
	struct stat st;
	if (strcmp(f, c->o[ST_OPT_DB].s) == 0) {
		snprintf(err, n, "--output: '%s' is the store (--db)", f);
		return -1;
	}
	if (lstat(f, &st) == 0) {
		snprintf(err, n, "--output: '%s' exists (the run writes a new file, never over one)", f);
		return -1;
	}
	char dir[4096];
	const char *slash = strrchr(f, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - f) + (slash == f) : 1,
		 slash ? f : ".");
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)) {
		snprintf(err, n, "--output: '%s': its directory '%s' is not a writable directory", f, dir);
		return -1;
	}
	return 0;
}

/* Rank 0: the run's report into --output, a new file (O_EXCL: nothing the
 * user has is replaced); a file not written whole is removed. 0, or -1
 * after a message. */
int st_output_write(struct job *j)
{
	const char *f = j->cfg.o[ST_OPT_OUTPUT].s;
	int fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	FILE *out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!out) {
		fprintf(stderr, "stcluster: --output: '%s': %s\n", f, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(f);
		}
		return -1;
	}
	int rc = j->report(j->store, j->run_id, 0, (enum st_format)j->cfg.o[ST_OPT_OUTPUT_FORMAT].v[0],
			   out);
	int werr = ferror(out) ? errno : 0;
	if (fclose(out) && !werr)
		werr = errno;
	if (rc == 0 && werr == 0)
		return 0;
	fprintf(stderr, "stcluster: --output: '%s' not written: %s\n", f,
		werr ? strerror(werr) : "the report failed");
	unlink(f);
	return -1;
}

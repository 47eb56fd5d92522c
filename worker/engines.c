/*
 * engines.c - the engine registry: the one array of engines, the only
 * place an optional engine's #ifdef lives, and the choice of one: the
 * checks of the options against what the chosen engine takes, read from
 * the options table's classes (st_opt_def.needs) and the engines' own
 * declarations (struct st_engine: takes, takes_mounted, caps), so that
 * neither the table nor this file names an engine.
 */
#include "engine.h"

#include <stdio.h>
#include <string.h>

const struct st_engine *const st_engines[] = {
	&st_engine_posix,
	&st_engine_null,
#ifdef ST_HAVE_LIBNFS
	&st_engine_libnfs,
#endif
	NULL,
};

/* The engines --engine offers that this build left out, and why. */
static const struct {
	const char *name, *why;
} left_out[] = {
#ifndef ST_HAVE_LIBNFS
	{ "libnfs", "it was built without libnfs: install libnfs-dev (tests/deps.sh), then make" },
#endif
	{ NULL, NULL },
};

const char *st_engine_left_out(const char *name)
{
	for (int i = 0; left_out[i].name; i++)
		if (strcmp(left_out[i].name, name) == 0)
			return left_out[i].why;
	return NULL;
}

const struct st_engine *st_engine_find(const char *name)
{
	for (int i = 0; st_engines[i]; i++)
		if (strcmp(st_engines[i]->name, name) == 0)
			return st_engines[i];
	return NULL;
}

int st_engine_check(const struct st_engine *e, const char **missing)
{
#define NEED(f)                    \
	if (!e->f) {               \
		*missing = #f;     \
		return -1;         \
	}
	NEED(name) NEED(setup) NEED(teardown) NEED(thread_init) NEED(thread_fini)
	NEED(open) NEED(pwrite) NEED(pread) NEED(fsync) NEED(close) NEED(mkdir) NEED(rmdir)
	NEED(unlink)
	/* a queue is all of its entries or none; so are the metadata calls */
	if (e->aio_init || e->aio_submit || e->aio_reap || e->aio_file_done || e->aio_fini) {
		NEED(aio_init) NEED(aio_submit) NEED(aio_reap) NEED(aio_file_done) NEED(aio_fini)
	}
	if (e->dir_open || e->dir_close || e->meta) {
		NEED(dir_open) NEED(dir_close) NEED(meta)
	}
#undef NEED
	return 0;
}

int st_engine_has_meta(const struct st_engine *e)
{
	return e->dir_open && e->dir_close && e->meta;
}

unsigned st_engine_unsupported(const struct st_engine *e, const struct st_config *cfg,
			       const struct st_combo *c, unsigned phases, char *why, size_t n)
{
	unsigned meta = st_engine_has_meta(e) ? 0 : phases & ST_PHASES_META;
	if (n)
		why[0] = '\0';
	if (meta)
		snprintf(why, n, "the %s engine has no metadata phases", e->name);
	else if (!e->dir_next && (phases & 1u << ST_PHASE_READDIR)) {
		meta = 1u << ST_PHASE_READDIR;
		snprintf(why, n, "the %s engine lists no directory (readdir)", e->name);
	}
	if (!e->unsupported)
		return meta;
	char its[256] = "";
	unsigned u = e->unsupported(cfg, c, its, sizeof(its)) & phases & ~meta;
	if (u && n) {
		size_t off = strlen(why);
		snprintf(why + off, n - off, "%s%s", off ? "; " : "", its);
	}
	return meta | u;
}

void st_engines_help(FILE *out)
{
	fputs("Engines (--engine NAME; the first is the default):\n", out);
	for (int i = 0; st_engines[i]; i++) {
		const struct st_engine *e = st_engines[i];
		char why[256];
		fprintf(out, "  %-30s %s\n", e->name, e->help);
		if (e->available && e->available(why, sizeof(why)))
			fprintf(out, "  %-30s not usable on this host: %s\n", "", why);
	}
	for (int i = 0; left_out[i].name; i++)
		fprintf(out, "  %-30s not in this build: %s\n", left_out[i].name, left_out[i].why);
}

/* Does e take an option of class mask needs: by itself (1), once --target is
 * mounted for it (2), or not (0)? */
static int engine_takes(const struct st_engine *e, unsigned needs)
{
	if (!(needs & ~e->takes))
		return 1;
	return !(needs & ~(e->takes | e->takes_mounted)) ? 2 : 0;
}

/* Does e run without --target (a pick of engine_list)? */
static int runs_without_target(const struct st_engine *e, unsigned unused)
{
	(void)unused;
	return (e->caps & ST_EC_NO_TARGET) != 0;
}

/* "a, b or c": the engines for which pick(e, arg) is not 0, each with
 * " with --mount" where it is 2 ("" when none). */
static void engine_list(int (*pick)(const struct st_engine *, unsigned), unsigned arg, char *buf,
			size_t n)
{
	int count = 0, k = 0;
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; st_engines[i]; i++)
		count += pick(st_engines[i], arg) != 0;
	for (int i = 0; st_engines[i] && off < n; i++) {
		int how = pick(st_engines[i], arg);
		if (!how)
			continue;
		off += (size_t)snprintf(buf + off, n - off, "%s%s%s",
					!k ? "" : k == count - 1 ? " or " : ", ", st_engines[i]->name,
					how == 2 ? " with --mount" : "");
		k++;
	}
}

void st_engine_takers(unsigned needs, char *buf, size_t n)
{
	engine_list(engine_takes, needs, buf, n);
}

/* The engine --engine names, or one line in err. */
static const struct st_engine *named_engine(const struct st_config *cfg, char *err, size_t n)
{
	if (!cfg->o[ST_OPT_ENGINE].n)
		return st_engines[0];
	const char *name = cfg->o[ST_OPT_ENGINE].s;
	const struct st_engine *e = st_engine_find(name);
	if (e)
		return e;
	const char *why = st_engine_left_out(name);
	if (why) {
		snprintf(err, n, "--engine: '%s' is not built into this stcluster (%s)", name, why);
		return NULL;
	}
	char all[256] = "";
	size_t off = 0;
	for (int i = 0; st_engines[i] && off < sizeof(all); i++)
		off += (size_t)snprintf(all + off, sizeof(all) - off, "%s%s", i ? ", " : "",
					st_engines[i]->name);
	for (int i = 0; left_out[i].name && off < sizeof(all); i++)
		off += (size_t)snprintf(all + off, sizeof(all) - off, ", %s", left_out[i].name);
	snprintf(err, n, "--engine: unknown value '%s' (one of: %s)", name, all);
	return NULL;
}

/* Option id, given, against what engine e takes: 0, or -1 with err. */
static int check_takes(const struct st_config *cfg, const struct st_engine *e, int id, char *err,
		       size_t n)
{
	unsigned needs = st_options[id].needs;
	int mounted = cfg->o[ST_OPT_MOUNT].n > 0, how = engine_takes(e, needs);
	if (!needs || how == 1 || (how == 2 && mounted) || !st_config_chosen(cfg, id))
		return 0;
	char val[128], who[160];
	const char *name = st_options[id].name;
	st_config_given_text(cfg, id, val, sizeof(val));
	st_engine_takers(needs, who, sizeof(who));
	if (how == 2)
		snprintf(err, n,
			 "--%s: a mount option needs --mount SOURCE (and root) with the %s engine; "
			 "without it the options in force are recorded (given: %s; taken by --engine %s)",
			 name, e->name, val, who);
	else if (*who)
		snprintf(err, n, "--%s: only for --engine %s (given: %s, with --engine %s)", name, who,
			 val, e->name);
	else
		snprintf(err, n, "--%s: no engine of this stcluster takes it (given: %s)", name, val);
	return -1;
}

int st_engine_choose(const struct st_config *cfg, const struct st_engine **e, char *err,
		     size_t n)
{
	if (st_config_check(cfg, err, n))
		return -1;
	const struct st_engine *en = named_engine(cfg, err, n);
	if (!en)
		return -1;
	if (!cfg->o[ST_OPT_TARGET].n && !cfg->o[ST_OPT_DRY_RUN].n && !(en->caps & ST_EC_NO_TARGET)) {
		char who[128];
		engine_list(runs_without_target, 0, who, sizeof(who));
		snprintf(err, n, "--target: missing (the directory to test%s%s%s)",
			 *who ? "; --engine " : "", who, *who ? " runs without one" : "");
		return -1;
	}
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (check_takes(cfg, en, i, err, n))
			return -1;
	*e = en;
	return 0;
}

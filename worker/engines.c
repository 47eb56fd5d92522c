/*
 * engines.c - the engine registry: the one array of engines, and the only
 * place an optional engine's #ifdef lives.
 */
#include "engine.h"

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
	/* a queue is all of its entries or none */
	if (e->aio_init || e->aio_submit || e->aio_reap || e->aio_file_done || e->aio_fini) {
		NEED(aio_init) NEED(aio_submit) NEED(aio_reap) NEED(aio_file_done) NEED(aio_fini)
	}
#undef NEED
	return 0;
}

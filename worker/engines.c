/*
 * engines.c - the engine registry: the one array of engines.
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
	NEED(name) NEED(version) NEED(setup) NEED(teardown) NEED(thread_init) NEED(thread_fini)
	NEED(open) NEED(pwrite) NEED(pread) NEED(fsync) NEED(close) NEED(mkdir) NEED(rmdir)
	NEED(unlink)
#undef NEED
	return 0;
}

/*
 * engine_posix.h - the posix engine's own header: its set-up with a
 * system-call table of the caller's, for tests (the table, the engine's
 * system-call seam, is posix_sys.h), and its --iodepth request queue
 * (posix_aio.h).
 *
 * A test's engine is a copy of st_engine_posix whose setup calls
 * st_posix_setup_with its own table (the real table is never patched).
 */
#ifndef ST_ENGINE_POSIX_H
#define ST_ENGINE_POSIX_H

#include "engine.h"
#include "posix_aio.h"
#include "posix_sys.h"

#include <stddef.h>

/* The posix engine's setup() with system calls through sys (which must
 * outlive the rank state); st_engine_posix's setup passes st_posix_sys_real. */
int st_posix_setup_with(const struct st_engine_env *env, const struct st_posix_sys *sys,
			void **rs, char *msg, size_t n);

#endif

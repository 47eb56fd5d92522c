/*
 * posix_aio.h - the posix engine's request queue (posix_aio.c), behind the
 * engine's aio_* entries (engine.h): io_uring (its buffers bufs registered
 * where the kernel lets it: "io_uring fixed"), else libaio, else -ENOSYS
 * (mode says why: the worker then issues one call at a time); liburing and
 * libaio are loaded at run time, a host without them gets the last. A file the
 * queue refuses (EINVAL, EOPNOTSUPP before any request of it succeeded) is
 * served by synchronous calls through the engine's seam (posix_sys.h);
 * file_done says so. A queue belongs to one I/O thread.
 */
#ifndef ST_POSIX_AIO_H
#define ST_POSIX_AIO_H

#include "engine.h"
#include "posix_sys.h"

#include <stddef.h>

int st_posix_aio_init(const struct st_posix_sys *sys, int depth, void *bufs, size_t stride,
		      void **q, char *mode, size_t n);
int st_posix_aio_submit(void *q, int fd, struct st_aio_req *r);
int st_posix_aio_reap(void *q, int min, struct st_aio_req **done, int max);
void st_posix_aio_file_done(void *q, int fd, char *mode, size_t n);
void st_posix_aio_fini(void *q); /* accepts NULL */

#endif

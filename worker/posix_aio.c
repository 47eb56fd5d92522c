/*
 * posix_aio.c - the posix engine's request queue: --iodepth N > 1 requests
 * of an I/O thread in flight through io_uring, else libaio, else none (the
 * worker then issues one call at a time). See engine_posix.h.
 *
 * liburing and libaio are loaded at run time (dlopen of their sonames,
 * dlsym of the calls the queue makes), never linked: a host without them
 * starts the binary and runs one call at a time, each thread recording why
 * ("liburing.so.2 not found"). Their headers are still needed to build;
 * what liburing has as static inline functions (get_sqe, the prep_*
 * helpers, cq_advance) compiles into this file. The resolved calls live in
 * the queue, which holds its own reference to each library (dlopen counts
 * them) and drops it at fini.
 *
 * io_uring reads and writes into the thread's buffers registered with the
 * kernel (READ_FIXED, WRITE_FIXED: the pages are pinned and mapped once, not
 * at every request); where the kernel refuses them (RLIMIT_MEMLOCK without
 * CAP_IPC_LOCK, an old kernel) plain reads and writes go the same way and
 * the mode says why. Files are not registered: fio's registerfiles measured
 * within noise here, and a file taken out of a ring's slot is released by
 * the ring later (up to a second on 5.x and 6.1 kernels), which on NFS
 * turns the removal of a just-closed file into a silly-rename.
 *
 * The kernel may refuse a queue (io_uring_setup: ENOSYS in an old kernel,
 * EPERM under kernel.io_uring_disabled or a seccomp filter; io_setup
 * likewise): each refusal is named in the mode the thread records. It may
 * also refuse one file (a file system without support for the operation
 * answers EINVAL or EOPNOTSUPP): the first such answer before any request
 * of that file succeeded is tried again with pread/pwrite, and when that
 * works the rest of that file's requests are synchronous calls, recorded
 * as such. A short transfer goes on from where it stopped (EINTR and
 * EAGAIN are sent again), as the synchronous path does; a read that makes
 * no progress has met the end of the file.
 *
 * A queue belongs to one I/O thread; requests are in flight only between
 * aio_submit and the aio_reap that returns them, and one file at a time.
 */
#include "posix_aio.h"

#include "../common/dl.h"
#include "../common/util.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#ifdef ST_HAVE_LIBURING
#include <liburing.h>
#endif
#ifdef ST_HAVE_LIBAIO
#include <libaio.h>
#endif

/* the sonames the headers' ABI belongs to (liburing 2.x, libaio 0.3.x) */
#define URING_SONAME "liburing.so.2"
#define LIBAIO_SONAME "libaio.so.1"

enum { Q_URING, Q_LIBAIO };

/* a thread's ring has --iodepth entries, and io_uring_setup takes 32768 at most */
_Static_assert(ST_IODEPTH_MAX <= 32768, "--iodepth's largest value fits an io_uring ring");

#ifdef ST_HAVE_LIBURING
/* liburing's exported calls the queue makes, typed by its header */
struct uring_lib {
	__typeof__(io_uring_queue_init_params) *queue_init_params;
	__typeof__(io_uring_queue_exit) *queue_exit;
	__typeof__(io_uring_submit_and_wait) *submit_and_wait;
	__typeof__(io_uring_peek_batch_cqe) *peek_batch_cqe;
	__typeof__(io_uring_register_buffers) *register_buffers;
	__typeof__(io_uring_register_ring_fd) *register_ring_fd; /* NULL before liburing 2.2 */
};
#endif

#ifdef ST_HAVE_LIBAIO
/* libaio's (every call of it is exported; io_prep_* are inline) */
struct aio_lib {
	__typeof__(io_setup) *setup;
	__typeof__(io_destroy) *destroy;
	__typeof__(io_submit) *submit;
	__typeof__(io_getevents) *getevents;
};
#endif

struct posix_aio {
	int kind;			/* Q_* */
	char mode[64];			/* what the queue is, and why not a better one */
	int depth;			/* requests in flight at most */
	const struct st_posix_sys *sys; /* pread/pwrite of a file served synchronously */
	char *bufs;			/* the worker's buffers: depth of them, stride apart */
	size_t stride;			/* bytes */
	int fd;				/* the file of the requests (-1: none yet) */
	int file_sync;			/* that file is served by synchronous calls */
	int file_ok;			/* a request of it succeeded through the queue */
	char file_why[48];		/* why it is served synchronously */
	int queued;			/* taken by submit, not yet sent */
	int inflight;			/* sent, not completed */
	struct st_aio_req **ready;	/* completed, not yet returned (depth) */
	int nready;
	struct st_aio_req **pending;	/* queued, not yet sent (libaio; depth) */
	void *dl;			/* the loaded library of kind (dlopen's handle) */
#ifdef ST_HAVE_LIBURING
	struct uring_lib ur;
	struct io_uring ring;
	int fixed_bufs;		  /* the buffers are registered (READ_FIXED, WRITE_FIXED) */
#endif
#ifdef ST_HAVE_LIBAIO
	struct aio_lib aio;
	io_context_t ctx;
	struct iocb *iocbs;	  /* depth of them */
	struct iocb **freecb;	  /* the free ones (a stack) */
	int nfree;
	struct iocb **sendlist;	  /* io_submit's argument (depth) */
	struct io_event *events;  /* io_getevents' (depth) */
#endif
};

/* ---------------------------------------------------------------- loading */

#if defined(ST_HAVE_LIBURING) || defined(ST_HAVE_LIBAIO)
static const char *errname(int err, char *buf, size_t n)
{
	return st_errno_name(err, buf, n);
}

#endif

/* The request's remainder, synchronously (EINTR retried, short transfers
 * continued): its result, with done_ns. */
static void sync_rest(struct posix_aio *q, struct st_aio_req *r)
{
	while (r->done < r->len) {
		char *b = (char *)r->buf + r->done;
		size_t left = r->len - r->done;
		off_t at = (off_t)(r->off + r->done);
		ssize_t k = r->write ? q->sys->pwrite(q->fd, b, left, at) : q->sys->pread(q->fd, b, left, at);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (!r->done) {
				r->res = -errno;
				r->done_ns = st_now_ns();
				return;
			}
			r->err = errno;
			break;
		}
		if (k == 0)
			break;
		r->done += (size_t)k;
	}
	r->res = (ssize_t)r->done;
	r->done_ns = st_now_ns();
}
/* A new file: nothing known of it yet. */
static void file_begin(struct posix_aio *q, int fd)
{
	q->fd = fd;
	q->file_sync = 0;
	q->file_ok = 0;
	q->file_why[0] = '\0';
}

#if defined(ST_HAVE_LIBURING) || defined(ST_HAVE_LIBAIO)
/* The queue refused a request of this file (EINVAL, EOPNOTSUPP) before any
 * of its requests went through: serve the file synchronously, from this
 * request on, if a synchronous call works (else the error stands). */
static int refused_by_file(struct posix_aio *q, struct st_aio_req *r, int err)
{
	if (q->file_ok || q->file_sync || (err != EINVAL && err != EOPNOTSUPP))
		return 0;
	size_t before = r->done;
	sync_rest(q, r);
	if (r->res < 0) {
		r->done = before;
		r->res = -err;
		return 0;
	}
	char e[24];
	q->file_sync = 1;
	snprintf(q->file_why, sizeof(q->file_why), "%s", errname(err, e, sizeof(e)));
	return 1;
}
#endif

static void complete(struct posix_aio *q, struct st_aio_req *r)
{
	q->ready[q->nready++] = r;
}

/* ---------------------------------------------------------------- io_uring */

#ifdef ST_HAVE_LIBURING
#define URING_SYM(f, opt) { "io_uring_" #f, offsetof(struct uring_lib, f), opt }
static const struct st_dl_sym uring_syms[] = {
	URING_SYM(queue_init_params, 0),     URING_SYM(queue_exit, 0),
	URING_SYM(submit_and_wait, 0),	     URING_SYM(peek_batch_cqe, 0),
	URING_SYM(register_buffers, 0),	     URING_SYM(register_ring_fd, 1),
};

static int uring_init(struct posix_aio *q, int depth, char *why, size_t n)
{
	int rc = st_dl_load(URING_SONAME, uring_syms, ST_ARRAY_LEN(uring_syms), &q->ur, &q->dl, why, n);
	if (rc < 0)
		return rc;
	/* one thread submits and reaps: the kernel may run completion work only
	 * when that thread waits (fewer interrupts of the I/O loop); older
	 * kernels do not know the flags (EINVAL): plain then */
	const unsigned tries[] = {
#ifdef IORING_SETUP_DEFER_TASKRUN
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
#endif
#ifdef IORING_SETUP_COOP_TASKRUN
		IORING_SETUP_COOP_TASKRUN,
#endif
		0,
	};
	rc = -EINVAL;
	for (size_t i = 0; i < ST_ARRAY_LEN(tries) && rc == -EINVAL; i++) {
		struct io_uring_params p;
		memset(&p, 0, sizeof(p));
		p.flags = tries[i];
		rc = q->ur.queue_init_params((unsigned)depth, &q->ring, &p);
	}
	if (rc < 0) {
		char e[24];
		snprintf(why, n, "io_uring_setup: %s", errname(-rc, e, sizeof(e)));
		dlclose(q->dl);
		q->dl = NULL;
		return rc;
	}
	/* the ring's own descriptor registered: each io_uring_enter skips the
	 * descriptor table (liburing >= 2.2; a kernel without it says no) */
	if (q->ur.register_ring_fd)
		q->ur.register_ring_fd(&q->ring);
	q->kind = Q_URING;
	return 0;
}

/* The worker's buffers registered: the kernel pins and maps them once, and
 * each READ_FIXED/WRITE_FIXED names its buffer by index instead of having
 * its pages looked up and pinned per request (fio's fixedbufs is 3x its
 * default io_uring at 1 MiB O_DIRECT here). The pinned pages count against
 * RLIMIT_MEMLOCK without CAP_IPC_LOCK: refused (ENOMEM), the requests are
 * plain reads and writes and the mode says so. */
static void uring_register(struct posix_aio *q)
{
	char e[24];
	struct iovec *iov = calloc((size_t)q->depth, sizeof(*iov));
	int rc = -ENOMEM;
	if (iov) {
		for (int i = 0; i < q->depth; i++) {
			iov[i].iov_base = q->bufs + q->stride * (size_t)i;
			iov[i].iov_len = q->stride;
		}
		rc = q->bufs ? q->ur.register_buffers(&q->ring, iov, (unsigned)q->depth) : -EINVAL;
		free(iov);
	}
	q->fixed_bufs = rc == 0;
	if (q->fixed_bufs)
		snprintf(q->mode, sizeof(q->mode), "io_uring fixed");
	else
		snprintf(q->mode, sizeof(q->mode), "io_uring (register_buffers: %s)",
			 errname(-rc, e, sizeof(e)));
}

static int uring_prep(struct posix_aio *q, struct st_aio_req *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
	if (!sqe)
		return -EAGAIN; /* cannot be: the ring holds depth requests */
	char *b = (char *)r->buf + r->done;
	unsigned len = (unsigned)(r->len - r->done);
	uint64_t at = r->off + r->done;
	/* a request in a buffer of the worker's names that buffer */
	uintptr_t rel = (uintptr_t)r->buf - (uintptr_t)q->bufs;
	size_t idx = q->fixed_bufs ? (size_t)(rel / q->stride) : 0;
	if (q->fixed_bufs && (uintptr_t)r->buf >= (uintptr_t)q->bufs && idx < (size_t)q->depth) {
		if (r->write)
			io_uring_prep_write_fixed(sqe, q->fd, b, len, at, (int)idx);
		else
			io_uring_prep_read_fixed(sqe, q->fd, b, len, at, (int)idx);
	} else if (r->write) {
		io_uring_prep_write(sqe, q->fd, b, len, at);
	} else {
		io_uring_prep_read(sqe, q->fd, b, len, at);
	}
	io_uring_sqe_set_data(sqe, r);
	q->queued++;
	return 0;
}

/* Send what is queued, wait for `want` completions, take every one there is. */
static int uring_reap(struct posix_aio *q, int want)
{
	int rc = q->ur.submit_and_wait(&q->ring, (unsigned)want);
	if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
		return rc;
	if (rc > 0) {
		q->inflight += rc;
		q->queued -= rc;
	}
	struct io_uring_cqe *cqes[64];
	unsigned got;
	while ((got = q->ur.peek_batch_cqe(&q->ring, cqes, 64)) > 0) {
		int64_t now = st_now_ns();
		for (unsigned i = 0; i < got; i++) {
			struct st_aio_req *r = io_uring_cqe_get_data(cqes[i]);
			int res = cqes[i]->res;
			q->inflight--;
			if (res == -EINTR || res == -EAGAIN) {
				uring_prep(q, r); /* once more */
			} else if (res < 0) {
				if (!refused_by_file(q, r, -res)) {
					r->err = r->done ? -res : 0;
					r->res = r->done ? (ssize_t)r->done : res;
					r->done_ns = now;
				}
				complete(q, r);
			} else if (res > 0 && r->done + (size_t)res < r->len) {
				q->file_ok = 1;
				r->done += (size_t)res;
				uring_prep(q, r); /* the rest */
			} else {
				q->file_ok = 1;
				r->done += (size_t)res;
				r->res = (ssize_t)r->done;
				r->done_ns = now;
				complete(q, r);
			}
		}
		io_uring_cq_advance(&q->ring, got);
	}
	return 0;
}
#endif

/* ---------------------------------------------------------------- libaio */

#ifdef ST_HAVE_LIBAIO
#define AIO_SYM(f) { "io_" #f, offsetof(struct aio_lib, f), 0 }
static const struct st_dl_sym aio_syms[] = {
	AIO_SYM(setup),
	AIO_SYM(destroy),
	AIO_SYM(submit),
	AIO_SYM(getevents),
};

static int libaio_init(struct posix_aio *q, int depth, char *why, size_t n)
{
	int rc = st_dl_load(LIBAIO_SONAME, aio_syms, ST_ARRAY_LEN(aio_syms), &q->aio, &q->dl, why, n);
	if (rc < 0)
		return rc;
	memset(&q->ctx, 0, sizeof(q->ctx));
	rc = q->aio.setup(depth, &q->ctx);
	if (rc < 0) {
		char e[24];
		snprintf(why, n, "io_setup: %s", errname(-rc, e, sizeof(e)));
		dlclose(q->dl);
		q->dl = NULL;
		return rc;
	}
	q->kind = Q_LIBAIO; /* from here fini destroys the context */
	q->iocbs = calloc((size_t)depth, sizeof(*q->iocbs));
	q->freecb = calloc((size_t)depth, sizeof(*q->freecb));
	q->sendlist = calloc((size_t)depth, sizeof(*q->sendlist));
	q->events = calloc((size_t)depth, sizeof(*q->events));
	if (!q->iocbs || !q->freecb || !q->sendlist || !q->events) {
		snprintf(why, n, "libaio: out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < depth; i++)
		q->freecb[i] = &q->iocbs[i];
	q->nfree = depth;
	return 0;
}
static void libaio_prep(struct posix_aio *q, struct st_aio_req *r)
{
	struct iocb *cb = r->slot ? r->slot : q->freecb[--q->nfree];
	char *b = (char *)r->buf + r->done;
	if (r->write)
		io_prep_pwrite(cb, q->fd, b, r->len - r->done, (long long)(r->off + r->done));
	else
		io_prep_pread(cb, q->fd, b, r->len - r->done, (long long)(r->off + r->done));
	cb->data = r;
	r->slot = cb;
	q->pending[q->queued++] = r;
}

static void libaio_release(struct posix_aio *q, struct st_aio_req *r)
{
	q->freecb[q->nfree++] = r->slot;
	r->slot = NULL;
}

static int libaio_reap(struct posix_aio *q, int want)
{
	/* send: io_submit takes what it can; one it refuses for this file (EINVAL)
	 * goes the synchronous way */
	while (q->queued) {
		for (int i = 0; i < q->queued; i++)
			q->sendlist[i] = q->pending[i]->slot;
		int rc = q->aio.submit(q->ctx, q->queued, q->sendlist);
		if (rc == -EAGAIN || rc == -EINTR) {
			if (q->inflight)
				break; /* room comes with the completions */
			continue;
		}
		if (rc < 0) {
			struct st_aio_req *r = q->pending[0];
			memmove(q->pending, q->pending + 1, (size_t)(q->queued - 1) * sizeof(*q->pending));
			q->queued--;
			if (!refused_by_file(q, r, -rc)) {
				r->res = rc;
				r->done_ns = st_now_ns();
			}
			libaio_release(q, r);
			complete(q, r);
			continue;
		}
		memmove(q->pending, q->pending + rc, (size_t)(q->queued - rc) * sizeof(*q->pending));
		q->queued -= rc;
		q->inflight += rc;
	}
	if (want > q->inflight)
		want = q->inflight;
	if (!q->inflight)
		return 0;
	int got;
	do
		got = q->aio.getevents(q->ctx, want, q->depth, q->events, NULL);
	while (got == -EINTR);
	if (got < 0)
		return got;
	int64_t now = st_now_ns();
	for (int i = 0; i < got; i++) {
		struct st_aio_req *r = q->events[i].data;
		long res = (long)q->events[i].res;
		q->inflight--;
		if (res == -EINTR || res == -EAGAIN) {
			libaio_prep(q, r);
		} else if (res < 0) {
			libaio_release(q, r);
			if (!refused_by_file(q, r, (int)-res)) {
				r->err = r->done ? (int)-res : 0;
				r->res = r->done ? (ssize_t)r->done : (ssize_t)res;
				r->done_ns = now;
			}
			complete(q, r);
		} else if (res > 0 && r->done + (size_t)res < r->len) {
			q->file_ok = 1;
			r->done += (size_t)res;
			libaio_prep(q, r);
		} else {
			q->file_ok = 1;
			libaio_release(q, r);
			r->done += (size_t)res;
			r->res = (ssize_t)r->done;
			r->done_ns = now;
			complete(q, r);
		}
	}
	return 0;
}
#endif

/* ---------------------------------------------------------------- the queue */

/* Undo what the queue's kind set up, and drop its library: kind -1 after. */
static void kind_fini(struct posix_aio *q)
{
#ifdef ST_HAVE_LIBURING
	if (q->kind == Q_URING)
		q->ur.queue_exit(&q->ring);
#endif
#ifdef ST_HAVE_LIBAIO
	if (q->kind == Q_LIBAIO)
		q->aio.destroy(q->ctx);
	free(q->iocbs);
	free(q->freecb);
	free(q->sendlist);
	free(q->events);
	q->iocbs = NULL;
	q->freecb = NULL;
	q->sendlist = NULL;
	q->events = NULL;
#endif
	if (q->dl)
		dlclose(q->dl);
	q->dl = NULL;
	q->kind = -1;
}

void st_posix_aio_fini(void *qp)
{
	struct posix_aio *q = qp;
	if (!q)
		return;
	kind_fini(q);
	free(q->ready);
	free(q->pending);
	free(q);
}

int st_posix_aio_init(const struct st_posix_sys *sys, int depth, void *bufs, size_t stride,
		      void **qp, char *mode, size_t n)
{
	*qp = NULL;
	struct posix_aio *q = calloc(1, sizeof(*q));
	if (!q) {
		snprintf(mode, n, "sync (out of memory)");
		return -ENOMEM;
	}
	q->kind = -1;
	q->depth = depth;
	q->sys = sys;
	q->bufs = bufs;
	q->stride = stride;
	q->fd = -1;
	q->ready = calloc((size_t)depth, sizeof(*q->ready));
	q->pending = calloc((size_t)depth, sizeof(*q->pending));
	if (!q->ready || !q->pending) {
		st_posix_aio_fini(q);
		snprintf(mode, n, "sync (out of memory)");
		return -ENOMEM;
	}
	char why[2][48] = { "io_uring: not built in", "libaio: not built in" };
	int rc = -ENOSYS;
#ifdef ST_HAVE_LIBURING
	rc = uring_init(q, depth, why[0], sizeof(why[0]));
	if (!rc) {
		uring_register(q);
		snprintf(mode, n, "%s", q->mode);
		*qp = q;
		return 0;
	}
#endif
#ifdef ST_HAVE_LIBAIO
	rc = libaio_init(q, depth, why[1], sizeof(why[1]));
	if (!rc) {
		snprintf(q->mode, sizeof(q->mode), "libaio (%s)", why[0]);
		snprintf(mode, n, "%s", q->mode);
		*qp = q;
		return 0;
	}
	kind_fini(q);
#endif
	snprintf(mode, n, "sync (%s; %s)", why[0], why[1]);
	st_posix_aio_fini(q);
	return rc;
}

int st_posix_aio_submit(void *qp, int fd, struct st_aio_req *r)
{
	struct posix_aio *q = qp;
	if (fd != q->fd)
		file_begin(q, fd);
	r->done = 0;
	r->res = 0;
	r->err = 0;
	r->slot = NULL;
	if (q->file_sync) {
		sync_rest(q, r);
		complete(q, r);
		return 0;
	}
#ifdef ST_HAVE_LIBURING
	if (q->kind == Q_URING)
		return uring_prep(q, r);
#endif
#ifdef ST_HAVE_LIBAIO
	if (q->kind == Q_LIBAIO) {
		libaio_prep(q, r);
		return 0;
	}
#endif
	return -ENOSYS;
}
int st_posix_aio_reap(void *qp, int min, struct st_aio_req **done, int max)
{
	struct posix_aio *q = qp;
	int k = 0;
	for (;;) {
		while (q->nready && k < max) {
			done[k++] = q->ready[0];
			memmove(q->ready, q->ready + 1, (size_t)--q->nready * sizeof(*q->ready));
		}
		if (k >= min || k >= max || (!q->queued && !q->inflight))
			return k;
		int want = min - k, rc = -ENOSYS;
#ifdef ST_HAVE_LIBURING
		if (q->kind == Q_URING) {
			if (want > q->queued + q->inflight)
				want = q->queued + q->inflight;
			rc = uring_reap(q, want);
		}
#endif
#ifdef ST_HAVE_LIBAIO
		if (q->kind == Q_LIBAIO)
			rc = libaio_reap(q, want);
#endif
		(void)want;
		if (rc < 0)
			return k ? k : rc;
	}
}

void st_posix_aio_file_done(void *qp, int fd, char *mode, size_t n)
{
	struct posix_aio *q = qp;
	const char *kind = q->kind == Q_URING ? "io_uring" : "libaio";
	if (fd == q->fd && q->file_sync)
		snprintf(mode, n, "sync (%s refused the file: %s)", kind, q->file_why);
	else
		snprintf(mode, n, "%s", q->mode);
	q->fd = -1;
}

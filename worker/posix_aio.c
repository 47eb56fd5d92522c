/*
 * posix_aio.c - the posix engine's request queue: --iodepth N > 1 requests
 * of an I/O thread in flight through io_uring, else libaio, else none (the
 * worker then issues one call at a time). See engine_posix.h.
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
#include "engine_posix.h"

#include "../common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef ST_HAVE_LIBURING
#include <liburing.h>
#endif
#ifdef ST_HAVE_LIBAIO
#include <libaio.h>
#endif

enum { Q_URING, Q_LIBAIO };

struct posix_aio {
	int kind;			/* Q_* */
	char mode[64];			/* what the queue is, and why not a better one */
	int depth;			/* requests in flight at most */
	const struct st_posix_sys *sys; /* pread/pwrite of a file served synchronously */
	int fd;				/* the file of the requests (-1: none yet) */
	int file_sync;			/* that file is served by synchronous calls */
	int file_ok;			/* a request of it succeeded through the queue */
	char file_why[48];		/* why it is served synchronously */
	int queued;			/* taken by submit, not yet sent */
	int inflight;			/* sent, not completed */
	struct st_aio_req **ready;	/* completed, not yet returned (depth) */
	int nready;
	struct st_aio_req **pending;	/* queued, not yet sent (libaio; depth) */
#ifdef ST_HAVE_LIBURING
	struct io_uring ring;
#endif
#ifdef ST_HAVE_LIBAIO
	io_context_t ctx;
	struct iocb *iocbs;	  /* depth of them */
	struct iocb **freecb;	  /* the free ones (a stack) */
	int nfree;
	struct iocb **sendlist;	  /* io_submit's argument (depth) */
	struct io_event *events;  /* io_getevents' (depth) */
#endif
};

static const char *errname(int err, char *buf, size_t n)
{
	return st_errno_name(err, buf, n);
}

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

static void complete(struct posix_aio *q, struct st_aio_req *r)
{
	q->ready[q->nready++] = r;
}

/* ---------------------------------------------------------------- io_uring */

#ifdef ST_HAVE_LIBURING
static int uring_init(struct posix_aio *q, int depth, char *why, size_t n)
{
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
	int rc = -EINVAL;
	for (size_t i = 0; i < ST_ARRAY_LEN(tries) && rc == -EINVAL; i++) {
		struct io_uring_params p;
		memset(&p, 0, sizeof(p));
		p.flags = tries[i];
		rc = io_uring_queue_init_params((unsigned)depth, &q->ring, &p);
	}
	if (rc < 0) {
		char e[24];
		snprintf(why, n, "io_uring_setup: %s", errname(-rc, e, sizeof(e)));
		return rc;
	}
	/* the ring's own descriptor registered: each io_uring_enter skips the
	 * descriptor table (liburing >= 2.2; a kernel without it says no) */
	io_uring_register_ring_fd(&q->ring);
	q->kind = Q_URING;
	return 0;
}

static int uring_prep(struct posix_aio *q, struct st_aio_req *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
	if (!sqe)
		return -EAGAIN; /* cannot be: the ring holds depth requests */
	char *b = (char *)r->buf + r->done;
	unsigned len = (unsigned)(r->len - r->done);
	if (r->write)
		io_uring_prep_write(sqe, q->fd, b, len, r->off + r->done);
	else
		io_uring_prep_read(sqe, q->fd, b, len, r->off + r->done);
	io_uring_sqe_set_data(sqe, r);
	q->queued++;
	return 0;
}

/* Send what is queued, wait for `want` completions, take every one there is. */
static int uring_reap(struct posix_aio *q, int want)
{
	int rc = io_uring_submit_and_wait(&q->ring, (unsigned)want);
	if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
		return rc;
	if (rc > 0) {
		q->inflight += rc;
		q->queued -= rc;
	}
	struct io_uring_cqe *cqes[64];
	unsigned got;
	while ((got = io_uring_peek_batch_cqe(&q->ring, cqes, 64)) > 0) {
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
static int libaio_init(struct posix_aio *q, int depth, char *why, size_t n)
{
	memset(&q->ctx, 0, sizeof(q->ctx));
	int rc = io_setup(depth, &q->ctx);
	if (rc < 0) {
		char e[24];
		snprintf(why, n, "io_setup: %s", errname(-rc, e, sizeof(e)));
		return rc;
	}
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
	q->kind = Q_LIBAIO;
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
		int rc = io_submit(q->ctx, q->queued, q->sendlist);
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
		got = io_getevents(q->ctx, want, q->depth, q->events, NULL);
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

void st_posix_aio_fini(void *qp)
{
	struct posix_aio *q = qp;
	if (!q)
		return;
#ifdef ST_HAVE_LIBURING
	if (q->kind == Q_URING)
		io_uring_queue_exit(&q->ring);
#endif
#ifdef ST_HAVE_LIBAIO
	if (q->kind == Q_LIBAIO)
		io_destroy(q->ctx);
	free(q->iocbs);
	free(q->freecb);
	free(q->sendlist);
	free(q->events);
#endif
	free(q->ready);
	free(q->pending);
	free(q);
}

int st_posix_aio_init(const struct st_posix_sys *sys, int depth, void **qp, char *mode, size_t n)
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
	q->fd = -1;
	q->ready = calloc((size_t)depth, sizeof(*q->ready));
	q->pending = calloc((size_t)depth, sizeof(*q->pending));
	if (!q->ready || !q->pending) {
		st_posix_aio_fini(q);
		snprintf(mode, n, "sync (out of memory)");
		return -ENOMEM;
	}
	char why[2][40] = { "io_uring: not built in", "libaio: not built in" };
	int rc = -ENOSYS;
#ifdef ST_HAVE_LIBURING
	rc = uring_init(q, depth, why[0], sizeof(why[0]));
	if (!rc) {
		snprintf(q->mode, sizeof(q->mode), "io_uring");
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
	q->kind = -1;
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

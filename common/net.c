/*
 * net.c - TCP listen, accept, connect and timed streams (see net.h).
 */
#include "net.h"

#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF (256 * 1024)

static int poll_ms(int64_t deadline_ns)
{
	int64_t left = deadline_ns - st_now_ns();
	if (left <= 0)
		return 0;
	return left > 200000000 ? 200 : (int)(left / 1000000) + 1;
}

int st_net_listen(int *fd, int *port)
{
	int s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int v6 = 1;
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	if (s < 0) {
		/* no IPv6 in this namespace: IPv4 only */
		s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return -errno;
		v6 = 0;
	}
	if (v6) {
		int off = 0;
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		if (bind(s, (struct sockaddr *)&a, sizeof(a)))
			goto fail;
	} else {
		struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
		if (bind(s, (struct sockaddr *)&a4, sizeof(a4)))
			goto fail;
	}
	/* every rank of a big job connects its lifeline at once: a backlog of 64
	 * dropped the rest's SYNs (a 1 s retransmission each, or a failed
	 * connect); the kernel caps it at net.core.somaxconn (4096) */
	if (listen(s, SOMAXCONN > 4096 ? SOMAXCONN : 4096))
		goto fail;
	struct sockaddr_storage got;
	socklen_t len = sizeof(got);
	if (getsockname(s, (struct sockaddr *)&got, &len))
		goto fail;
	*port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
						: ((struct sockaddr_in *)&got)->sin_port);
	*fd = s;
	return 0;
fail:;
	int e = errno;
	close(s);
	return -e;
}

int st_net_accept(int lfd, int n, int *fds, int64_t deadline_ns)
{
	for (int i = 0; i < n; i++) {
		for (;;) {
			struct pollfd p = { .fd = lfd, .events = POLLIN };
			if (st_now_ns() >= deadline_ns) {
				while (i-- > 0)
					close(fds[i]);
				return -ETIMEDOUT;
			}
			if (poll(&p, 1, poll_ms(deadline_ns)) > 0)
				break;
		}
		fds[i] = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fds[i] < 0) {
			int e = errno;
			while (i-- > 0)
				close(fds[i]);
			return -e;
		}
	}
	return 0;
}

int st_net_connect(const char *host, int port, int64_t deadline_ns, int *fd)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	char ps[16];
	snprintf(ps, sizeof(ps), "%d", port);
	if (getaddrinfo(host, ps, &hints, &res) || !res)
		return -EHOSTUNREACH;
	int rc = -ECONNREFUSED;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		int s = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (s < 0)
			continue;
		if (connect(s, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
			rc = -errno;
			close(s);
			continue;
		}
		struct pollfd p = { .fd = s, .events = POLLOUT };
		int ready = 0;
		while (!ready && st_now_ns() < deadline_ns)
			ready = poll(&p, 1, poll_ms(deadline_ns)) > 0;
		int err = ETIMEDOUT;
		socklen_t len = sizeof(err);
		if (ready)
			getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len);
		if (ready && err == 0) {
			fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
			*fd = s;
			freeaddrinfo(res);
			return 0;
		}
		rc = -err;
		close(s);
	}
	freeaddrinfo(res);
	return rc;
}

int st_net_connect_any(const char *list, int port, int64_t deadline_ns, int *fd)
{
	int rc = -EHOSTUNREACH;
	for (const char *a = list; *a && rc;) {
		size_t len = strcspn(a, ",");
		char host[256];
		if (len && len < sizeof(host)) {
			memcpy(host, a, len);
			host[len] = '\0';
			rc = st_net_connect(host, port, deadline_ns, fd);
		}
		a += len + (a[len] == ',');
	}
	return rc;
}

int st_net_stream(int *fds, int n, int send, int64_t dur_ns, int64_t deadline_ns,
		  struct st_net_result *r)
{
	char *buf = malloc(BUF);
	struct pollfd *p = calloc((size_t)n, sizeof(*p));
	int rc = 0, open_n = n;
	memset(r, 0, sizeof(*r));
	if (!buf || !p) {
		rc = -ENOMEM;
		goto out;
	}
	memset(buf, 0x5a, BUF); /* touched, and not all zero */
	for (int i = 0; i < n; i++) {
		p[i].fd = fds[i];
		p[i].events = send ? POLLOUT : POLLIN;
		fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
	}
	int64_t stop = st_now_ns() + dur_ns;
	while (open_n > 0) {
		int64_t now = st_now_ns();
		if (now >= deadline_ns) {
			rc = -ETIMEDOUT;
			break;
		}
		if (send && now >= stop)
			break;
		if (poll(p, (nfds_t)n, poll_ms(send && stop < deadline_ns ? stop : deadline_ns)) <= 0)
			continue;
		for (int i = 0; i < n; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			ssize_t got = send ? write(p[i].fd, buf, BUF) : read(p[i].fd, buf, BUF);
			if (got > 0) {
				int64_t t = st_now_ns();
				if (!r->bytes)
					r->first_ns = t;
				r->last_ns = t;
				r->bytes += (uint64_t)got;
			} else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
				if (got < 0 && send && !rc)
					rc = -errno;
				close(p[i].fd);
				p[i].fd = -1;
				open_n--;
			}
		}
	}
out:
	for (int i = 0; i < n; i++) {
		int fd = p ? p[i].fd : fds[i];
		if (fd >= 0) {
			shutdown(fd, SHUT_WR);
			if (send) {
				/* wait for the receiver to close, so every byte counted was delivered */
				fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
				struct pollfd q = { .fd = fd, .events = POLLIN };
				while (poll(&q, 1, poll_ms(deadline_ns)) > 0 && read(fd, buf ? buf : (char[1]){ 0 }, buf ? BUF : 1) > 0)
					;
			}
			close(fd);
		}
	}
	free(p);
	free(buf);
	return rc;
}

struct stream_job {
	int fd, send, rc;
	int64_t dur_ns, deadline_ns;
	struct st_net_result r;
};

static void *stream_thread(void *arg)
{
	struct stream_job *j = arg;
	j->rc = st_net_stream(&j->fd, 1, j->send, j->dur_ns, j->deadline_ns, &j->r);
	return NULL;
}

int st_net_stream_parallel(int *fds, int n, int send, int64_t dur_ns, int64_t deadline_ns,
			   struct st_net_result *r)
{
	struct stream_job *jobs = calloc((size_t)n, sizeof(*jobs));
	pthread_t *tids = calloc((size_t)n, sizeof(*tids));
	char *made = calloc((size_t)n, 1);
	int rc = 0;
	memset(r, 0, sizeof(*r));
	if (!jobs || !tids || !made) {
		for (int i = 0; i < n; i++)
			close(fds[i]);
		free(jobs);
		free(tids);
		free(made);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		jobs[i] = (struct stream_job){ .fd = fds[i], .send = send, .dur_ns = dur_ns,
					       .deadline_ns = deadline_ns };
	/* the last stream runs in the calling thread; a stream whose thread
	 * cannot be made runs there too, after the others */
	for (int i = 0; i < n - 1; i++)
		made[i] = pthread_create(&tids[i], NULL, stream_thread, &jobs[i]) == 0;
	for (int i = 0; i < n; i++)
		if (!made[i])
			stream_thread(&jobs[i]);
	for (int i = 0; i < n; i++) {
		if (made[i])
			pthread_join(tids[i], NULL);
		if (jobs[i].rc && !rc)
			rc = jobs[i].rc;
		if (!jobs[i].r.bytes)
			continue;
		if (!r->bytes || jobs[i].r.first_ns < r->first_ns)
			r->first_ns = jobs[i].r.first_ns;
		if (jobs[i].r.last_ns > r->last_ns)
			r->last_ns = jobs[i].r.last_ns;
		r->bytes += jobs[i].r.bytes;
	}
	free(jobs);
	free(tids);
	free(made);
	return rc;
}

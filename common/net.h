/*
 * net.h - TCP between ranks: listen, accept, connect, and timed streams.
 * The network baseline measures a client-server link with streams (plain
 * TCP, as iperf does); the watch's lifelines are connections made here.
 *
 * A stream endpoint either sends for a given time or receives until every
 * peer has closed; the receiver's byte count and first/last byte times
 * are the measurement. All functions return 0 or -errno and never block
 * past their deadline (local CLOCK_MONOTONIC ns).
 */
#ifndef ST_NET_H
#define ST_NET_H

#include <stddef.h>
#include <stdint.h>

struct st_net_result {
	uint64_t bytes;	  /* bytes received (receiver) or sent (sender) */
	int64_t first_ns; /* first byte moved, local clock */
	int64_t last_ns;  /* last byte moved, local clock */
};

/* Listen on every address, a port the kernel picks; *fd and *port out. */
int st_net_listen(int *fd, int *port);

/* Accept n connections on lfd (before the deadline); fds has room for n. */
int st_net_accept(int lfd, int n, int *fds, int64_t deadline_ns);

/* Connect to host:port (numeric address or name in /etc/hosts). */
int st_net_connect(const char *host, int port, int64_t deadline_ns, int *fd);

/* Connect to the first of a comma list of hosts that answers. */
int st_net_connect_any(const char *list, int port, int64_t deadline_ns, int *fd);

/* Send on all fds for dur_ns, then shut them down; or receive on all of
 * them until every one is closed. Closes the fds. */
int st_net_stream(int *fds, int n, int send, int64_t dur_ns, int64_t deadline_ns,
		  struct st_net_result *r);

/* The same over n connections at once, one thread each (as iperf3 -P
 * streams): one core is not the link's limit. The result is their sum,
 * from the first byte of any to the last byte of any. Closes the fds. */
int st_net_stream_parallel(int *fds, int n, int send, int64_t dur_ns, int64_t deadline_ns,
			   struct st_net_result *r);

#endif

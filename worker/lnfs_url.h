/*
 * lnfs_url.h - the one parser of nfs:// URLs: the libnfs engine's --target
 * (nfs://server/export/dir?version=3&nfsport=N&mountport=N) and the
 * server the roles are matched against (coordinator/job/roles.c).
 *
 * Strict where libnfs is lenient (libnfs ignores what it does not know and
 * reads numbers with atoi): the server part is a name, an IPv4 address or
 * an IPv6 address (in brackets or bare), never with user@ or :port; the
 * path starts with '/'; every parameter is one libnfs knows, with a valid
 * value, and those the engine decides itself (autoreconnect, readahead,
 * pagecache) are refused. A pure function of the text: no network, no
 * libnfs call, so it is built without libnfs too.
 */
#ifndef ST_LNFS_URL_H
#define ST_LNFS_URL_H

#include "../common/options.h"

#include <stddef.h>

#define ST_NFS_HOST_MAX 256 /* bytes of a server part, NUL included */

struct st_nfs_url {
	char server[ST_NFS_HOST_MAX]; /* the server part as written ("[fd00::5]") */
	char host[ST_NFS_HOST_MAX];   /* what to connect to and match hosts by ("fd00::5") */
	char path[ST_STR_MAX];	      /* the directory mounted, "/export/dir" */
	int version;		      /* ?version=: 3 or 4; 0 not given */
	int mountport;		      /* ?mountport=; 0: the portmapper is asked */
};

/* 0, or -1 with one line in why (n bytes: cut to fit) saying what is wrong
 * with the URL; *u is then unspecified. */
int st_nfs_url_parse(const char *url, struct st_nfs_url *u, char *why, size_t n);

#endif

/*
 * lnfs_url.c - the one parser of nfs:// URLs (see lnfs_url.h).
 */
#include "lnfs_url.h"

#include "../common/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi || (*s != '-' && (*s < '0' || *s > '9')))
		return -1;
	*out = v;
	return 0;
}

/*
 * The host of the URL's server part: a name or an IPv4 address as it is,
 * an IPv6 address without the brackets it may be written in ([fd00::5], as
 * RFC 3986 has it; libnfs connects to fd00::5, not to [fd00::5]) or bare
 * (fd00::5: several colons are an address, never a port). A port is
 * refused, with or without brackets. 0, or -1 with why.
 */
static int server_host(const char *server, char host[ST_NFS_HOST_MAX], char *why, size_t n)
{
	static const char port[] = "has a port in the server part (give ?nfsport=N&mountport=N)";
	const char *h = server, *end = server + strlen(server);
	if (server[0] == '[') {
		const char *close = strchr(server, ']');
		if (close && close[1] == ':') {
			snprintf(why, n, "%s", port);
			return -1;
		}
		if (!close || close[1] || !memchr(server, ':', (size_t)(close - server)) ||
		    !strchr(strchr(server, ':') + 1, ':')) {
			snprintf(why, n, "has a '[' that is not an IPv6 address in brackets ([fd00::5]) "
					 "in the server part");
			return -1;
		}
		h = server + 1;
		end = close;
	}
	size_t len = (size_t)(end - h);
	if (memchr(h, '[', len) || memchr(h, ']', len)) {
		snprintf(why, n, "has a stray '[' or ']' in the server part");
		return -1;
	}
	const char *colon = memchr(h, ':', len);
	if (colon && !memchr(colon + 1, ':', (size_t)(end - colon - 1))) {
		/* host:port: an IPv6 address has several colons */
		snprintf(why, n, "%s", port);
		return -1;
	}
	memcpy(host, h, len);
	host[len] = '\0';
	return 0;
}

/* One ?key=value parameter of the URL (k and v NUL-terminated) into u:
 * 0, or -1 with why. */
static int url_param(const char *k, const char *v, struct st_nfs_url *u, char *why, size_t n)
{
	long num;
	if (!strcmp(k, "version")) {
		if (strcmp(v, "3") && strcmp(v, "4")) {
			snprintf(why, n, "version must be 3 or 4, not '%s'", v);
			return -1;
		}
		u->version = v[0] - '0';
	} else if (!strcmp(k, "nfsport") || !strcmp(k, "mountport")) {
		if (parse_int(v, 1, 65535, &num)) {
			snprintf(why, n, "%s must be a port number (1-65535), not '%s'", k, v);
			return -1;
		}
		if (k[0] == 'm')
			u->mountport = (int)num;
	} else if (!strcmp(k, "uid") || !strcmp(k, "gid")) {
		if (parse_int(v, 0, INT_MAX, &num)) {
			snprintf(why, n, "%s must be a number, not '%s'", k, v);
			return -1;
		}
	} else if (!strcmp(k, "tcp-syncnt") || !strcmp(k, "debug") || !strcmp(k, "dircache") ||
		   !strcmp(k, "auto-traverse-mounts")) {
		if (parse_int(v, 0, 255, &num)) {
			snprintf(why, n, "%s must be a small number, not '%s'", k, v);
			return -1;
		}
	} else if (!strcmp(k, "if")) {
		/* an interface name: libnfs binds to it */
	} else if (!strcmp(k, "autoreconnect")) {
		snprintf(why, n, "sets autoreconnect: --hard decides it (hard: reconnect until "
				 "the deadline; soft: never)");
		return -1;
	} else if (!strcmp(k, "readahead") || !strcmp(k, "pagecache")) {
		snprintf(why, n, "sets %s: the engine measures the server, with no client cache", k);
		return -1;
	} else {
		snprintf(why, n, "has an unknown parameter '%s' (known: version, nfsport, "
				 "mountport, uid, gid, tcp-syncnt, if, debug, dircache, "
				 "auto-traverse-mounts)", k);
		return -1;
	}
	return 0;
}

/* The parameters after '?' (p: the first), '&' between them. 0, or -1 with why. */
static int url_params(const char *p, struct st_nfs_url *u, char *why, size_t n)
{
	while (*p) {
		char item[ST_STR_MAX];
		size_t len = strcspn(p, "&");
		if (len == 0 || len >= sizeof(item)) {
			snprintf(why, n, "has an empty or overlong parameter");
			return -1;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		p += len;
		if (*p == '&' && !*++p) {
			snprintf(why, n, "ends with '&'");
			return -1;
		}
		char *eq = strchr(item, '=');
		if (!eq || !eq[1]) {
			snprintf(why, n, "parameter '%s' has no value", item);
			return -1;
		}
		*eq = '\0';
		if (url_param(item, eq + 1, u, why, n))
			return -1;
	}
	return 0;
}

int st_nfs_url_parse(const char *s, struct st_nfs_url *u, char *why, size_t n)
{
	memset(u, 0, sizeof(*u));
	if (strncmp(s, "nfs://", 6) != 0) {
		snprintf(why, n, "is not an nfs:// URL (nfs://server/export/dir?version=3&nfsport=N&mountport=N)");
		return -1;
	}
	/* no URL holds one, and the text is quoted back in one-line messages */
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			snprintf(why, n, "has a control character (0x%02x)", (unsigned)(unsigned char)*c);
			return -1;
		}
	const char *p = s + 6;
	size_t len = strcspn(p, "/?");
	if (len == 0) {
		snprintf(why, n, "has no server (nfs://server/export/dir)");
		return -1;
	}
	if (len >= sizeof(u->server)) {
		snprintf(why, n, "has a server name longer than %zu bytes", sizeof(u->server) - 1);
		return -1;
	}
	memcpy(u->server, p, len);
	u->server[len] = '\0';
	if (strchr(u->server, '@')) {
		snprintf(why, n, "has user@ in the server part (give ?uid=N&gid=N)");
		return -1;
	}
	if (server_host(u->server, u->host, why, n))
		return -1;
	p += len;
	if (*p != '/') {
		snprintf(why, n, "has no export path (nfs://server/export/dir)");
		return -1;
	}
	len = strcspn(p, "?");
	if (len >= sizeof(u->path)) {
		snprintf(why, n, "has a path longer than %zu bytes", sizeof(u->path) - 1);
		return -1;
	}
	memcpy(u->path, p, len);
	u->path[len] = '\0';
	p += len;
	if (*p == '?')
		p++;
	return url_params(p, u, why, n);
}

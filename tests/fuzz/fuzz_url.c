/*
 * fuzz_url.c - libFuzzer target: the input is an nfs:// --target URL for
 * the libnfs engine (worker/lnfs_url.c, st_nfs_url_parse: the one parser,
 * which the roles use too).
 *
 * A refused URL must say why in one line inside the buffer, however small
 * the buffer; the answer does not depend on the buffer. An accepted URL
 * has a server (no user@, no :port, no '/' or '?') and an export path that
 * starts with '/', and together they spell the URL's start; the host is the
 * server without the brackets of an IPv6 address, with none left. The engine
 * hands the same URL to libnfs for the ports and ids, so libnfs's own
 * parser (nfs_parse_url_dir: text only, no network) must accept it too and
 * see the same export path and server.
 */
#include "../../worker/lnfs_url.h"
#include "fuzz_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/time.h> /* libnfs.h needs struct timeval first */

#include <nfsc/libnfs.h>

#define WHY_MAX 256 /* what the libnfs engine gives st_nfs_url_parse */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *url = fuzz_string(data, size);
	char *why = malloc(WHY_MAX);
	struct st_nfs_url *u1 = malloc(sizeof(*u1)), *u2 = malloc(sizeof(*u2));
	FUZZ_CHECK(why && u1 && u2);
	int rc = st_nfs_url_parse(url, u1, why, WHY_MAX);
	FUZZ_CHECK(rc == 0 || rc == -1);
	const char *server = u1->server, *path = u1->path, *host = u1->host;

	/* a small buffer: the same answer, the line cut inside it */
	size_t small = 1 + size % 24;
	char *why2 = malloc(small);
	FUZZ_CHECK(why2 != NULL);
	FUZZ_CHECK(st_nfs_url_parse(url, u2, why2, small) == rc);
	if (rc) {
		fuzz_check_err(why, WHY_MAX, NULL);
		fuzz_check_err(why2, small, NULL);
		FUZZ_CHECK(strncmp(why, why2, small - 1) == 0);
	}
	free(why2);
	if (rc)
		goto out;

	size_t sl = strlen(server), pl = strlen(path);
	FUZZ_CHECK(sl > 0 && sl < 256);
	FUZZ_CHECK(strpbrk(server, "/?@") == NULL);
	const char *colon = strchr(server, ':');
	FUZZ_CHECK(!colon || strchr(colon + 1, ':'));
	FUZZ_CHECK(path[0] == '/' && strchr(path, '?') == NULL);
	FUZZ_CHECK(strncmp(url, "nfs://", 6) == 0);
	FUZZ_CHECK(strncmp(url + 6, server, sl) == 0);
	FUZZ_CHECK(strncmp(url + 6 + sl, path, pl) == 0);
	const char *rest = url + 6 + sl + pl;
	FUZZ_CHECK(*rest == '\0' || *rest == '?');
	size_t hl = strlen(host);
	FUZZ_CHECK(hl > 0 && !strpbrk(host, "[]/?@"));
	FUZZ_CHECK(server[0] == '[' ? sl == hl + 2 && strncmp(server + 1, host, hl) == 0 &&
					  server[sl - 1] == ']'
				    : strcmp(server, host) == 0);

	struct nfs_context *nfs = nfs_init_context();
	FUZZ_CHECK(nfs != NULL);
	struct nfs_url *u = nfs_parse_url_dir(nfs, url);
	if (!u)
		fprintf(stderr, "libnfs refuses '%s': %s\n", url, nfs_get_error(nfs));
	FUZZ_CHECK(u != NULL);
	FUZZ_CHECK(u->path && strcmp(u->path, path) == 0);
	/* libnfs 4.0 drops a one-byte server name (the engine mounts with its own) */
	FUZZ_CHECK(sl <= 1 ? u->server == NULL : u->server && strcmp(u->server, server) == 0);
	nfs_destroy_url(u);
	nfs_destroy_context(nfs);
out:
	free(u2);
	free(u1);
	free(why);
	free(url);
	return 0;
}

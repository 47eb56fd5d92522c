/*
 * roles.c - server and client ranks (see roles.h).
 */
#include "roles.h"

#include "../../common/util.h"
#include "../../worker/lnfs_url.h"

#include <string.h>

void st_target_server(const struct st_config *cfg, char *out, size_t n)
{
	out[0] = '\0';
	const char *t = cfg->o[ST_OPT_MOUNT].n ? cfg->o[ST_OPT_MOUNT].s : cfg->o[ST_OPT_TARGET].s;
	if (strncmp(t, "nfs://", 6) == 0) {
		/* the engine's own parser: a URL it refuses has no server (and the
		 * run was refused before roles are assigned) */
		struct st_nfs_url u;
		char why[ST_ERR_MAX];
		if (st_nfs_url_parse(t, &u, why, sizeof(why)) == 0)
			st_copy(out, n, u.host);
		return;
	}
	if (cfg->o[ST_OPT_MOUNT].n) {
		/* server:/export, or [v6 address]:/export as mount(8) takes it */
		const char *colon = strstr(t, ":/");
		size_t len = colon ? (size_t)(colon - t) : 0;
		if (len > 2 && t[0] == '[' && t[len - 1] == ']') {
			t++;
			len -= 2;
		}
		if (colon && len < n) {
			memcpy(out, t, len);
			out[len] = '\0';
		}
	}
}

int st_host_matches(const struct st_host_info *h, const char *name)
{
	if (!*name)
		return 0;
	if (strcmp(h->hostname, name) == 0)
		return 1;
	size_t dot = strcspn(h->hostname, ".");
	if (strlen(name) == dot && strncmp(h->hostname, name, dot) == 0)
		return 1;
	for (const char *a = h->addresses; *a;) {
		size_t len = strcspn(a, ",");
		if (len == strlen(name) && strncmp(a, name, len) == 0)
			return 1;
		a += len;
		if (*a)
			a++;
	}
	return 0;
}

/* The server name that matches host h, or NULL. */
static const char *matching_server(const struct st_config *cfg, const struct st_host_info *h,
				   char *buf, size_t n)
{
	const struct st_optval *sv = &cfg->o[ST_OPT_SERVERS];
	if (sv->n) {
		for (int i = 0; i < sv->n; i++)
			if (st_host_matches(h, st_optval_str(sv, i)))
				return st_optval_str(sv, i);
		return NULL;
	}
	st_target_server(cfg, buf, n);
	return st_host_matches(h, buf) ? buf : NULL;
}

int st_host_is_server(const struct st_config *cfg, const struct st_host_info *h)
{
	char buf[256];
	return matching_server(cfg, h, buf, sizeof(buf)) != NULL;
}

void st_server_address(const struct st_config *cfg, const struct st_host_info *h, char *out,
		       size_t n)
{
	/* the addresses the server rank itself reported: a host name given to
	 * --servers need not resolve where the clients run (a lab, a cluster
	 * without DNS for its storage network). The entry that matched comes
	 * first when it is one of them: the network the user meant. */
	char buf[256];
	const char *s = matching_server(cfg, h, buf, sizeof(buf));
	size_t off = 0;
	out[0] = '\0';
	if (s && *s && strcmp(s, h->hostname) != 0) {
		for (const char *a = h->addresses; *a;) {
			size_t len = strcspn(a, ",");
			if (len == strlen(s) && strncmp(a, s, len) == 0)
				off = (size_t)snprintf(out, n, "%s", s);
			a += len + (a[len] == ',');
		}
	}
	for (const char *a = h->addresses; *a && off < n;) {
		size_t len = strcspn(a, ",");
		if (!(s && len == strlen(s) && strncmp(a, s, len) == 0))
			off += (size_t)snprintf(out + off, n - off, "%s%.*s", off ? "," : "", (int)len, a);
		a += len + (a[len] == ',');
	}
}

int st_assign_roles(const struct st_config *cfg, const struct st_host_info *hosts, int n,
		    int *roles)
{
	int clients = 0;
	for (int r = 0; r < n; r++) {
		char buf[256];
		if (!matching_server(cfg, &hosts[r], buf, sizeof(buf))) {
			roles[r] = ST_ROLE_CLIENT;
			clients++;
			continue;
		}
		/* the lowest local index of the host serves, the rest idle */
		roles[r] = ST_ROLE_SERVER;
		for (int q = 0; q < n; q++)
			if (q != r && strcmp(hosts[q].hostname, hosts[r].hostname) == 0 &&
			    hosts[q].local_rank < hosts[r].local_rank)
				roles[r] = ST_ROLE_IDLE;
	}
	return clients;
}

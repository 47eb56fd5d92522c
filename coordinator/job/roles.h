/*
 * roles.h - which ranks are NFS servers and which are clients.
 *
 * A rank whose host is the target's NFS server (the host of an nfs:// URL
 * or of a --mount source, matched by host name, short name or any of the
 * host's addresses) is a server rank; --servers names the servers
 * explicitly. On a server host the rank with the lowest local index does
 * the host-level work and the others idle. Everyone else is a client.
 * Pure functions of the gathered host facts: every rank computes the same.
 */
#ifndef ST_ROLES_H
#define ST_ROLES_H

#include "../../common/options.h"
#include "../../common/wire.h"

#include <stddef.h>

/* The host of the target's server: of the nfs:// --target (as the libnfs
 * engine parses it: lnfs_url.h) or of the --mount source (server:/export,
 * [fd00::1]:/export); an IPv6 address without its brackets; "" if none. */
void st_target_server(const struct st_config *cfg, char *out, size_t n);

/* Does host h go by name (host name, short name or one of its addresses)? */
int st_host_matches(const struct st_host_info *h, const char *name);

/* 1 when h is a server host of this run (--servers, or the target's server). */
int st_host_is_server(const struct st_config *cfg, const struct st_host_info *h);

/* Fill roles[n] (enum st_role). Returns the number of client ranks. */
int st_assign_roles(const struct st_config *cfg, const struct st_host_info *hosts, int n,
		    int *roles);

/* The addresses clients use to reach server rank h, as a comma list: the
 * ones that rank reported (a name given to --servers need not resolve on
 * the clients), the --servers entry or target's server that matched first
 * when it is one of them; "" when the host reported none. */
void st_server_address(const struct st_config *cfg, const struct st_host_info *h, char *out,
		       size_t n);

#endif

/*
 * hostinfo.h - facts about the host a rank runs on.
 */
#ifndef ST_HOSTINFO_H
#define ST_HOSTINFO_H

#include "../common/wire.h"

#include <hwloc.h>

/* Fill h (everything but rank/local_rank/local_size) from the system;
 * server (a name or address, may be NULL) picks the interface whose MTU
 * and speed are recorded: the one the route to it uses. */
void st_hostinfo_collect(hwloc_topology_t topo, const char *server, struct st_host_info *h);

/* Only the host name and addresses of h (enough for st_host_matches),
 * before the rest is known. */
void st_hostinfo_names(struct st_host_info *h);

/* The interface of the IPv4 route to addr in a /proc/net/route text, or
 * the default route's when none is more specific. 0, or -1. */
int st_route_iface(const char *route_text, uint32_t addr_be, char *iface, size_t n);

#endif

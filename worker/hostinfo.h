/*
 * hostinfo.h - facts about the host a rank runs on.
 */
#ifndef ST_HOSTINFO_H
#define ST_HOSTINFO_H

#include "../common/wire.h"

#include <hwloc.h>

/* Fill h (everything but rank/local_rank/local_size) from the system. */
void st_hostinfo_collect(hwloc_topology_t topo, struct st_host_info *h);

#endif

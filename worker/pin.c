/*
 * pin.c - hwloc thread placement (see pin.h).
 */
#include "pin.h"

#include <errno.h>

int st_pin_place(hwloc_topology_t topo, enum st_bind how, int local_rank, int nthreads,
		 int thread, hwloc_bitmap_t set)
{
	hwloc_obj_type_t type = how == ST_BIND_PU     ? HWLOC_OBJ_PU
				: how == ST_BIND_NUMA ? HWLOC_OBJ_NUMANODE
						      : HWLOC_OBJ_CORE;
	int n = hwloc_get_nbobjs_by_type(topo, type);
	if (how == ST_BIND_NONE || n <= 0) {
		hwloc_bitmap_copy(set, hwloc_topology_get_topology_cpuset(topo));
		return how == ST_BIND_NONE ? 0 : -1;
	}
	int idx = (local_rank * nthreads + thread) % n;
	hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, (unsigned)idx);
	hwloc_bitmap_copy(set, obj->cpuset);
	return 0;
}

int st_pin_self(hwloc_topology_t topo, enum st_bind how, int local_rank, int nthreads,
		int thread, char *got, size_t n, int *last_cpu)
{
	int rc = 0;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!set)
		return -ENOMEM;
	if (how != ST_BIND_NONE) {
		const struct hwloc_topology_support *sup = hwloc_topology_get_support(topo);
		if (!sup->cpubind->set_thisthread_cpubind) {
			rc = -ENOTSUP;
		} else if (st_pin_place(topo, how, local_rank, nthreads, thread, set)) {
			rc = -ENOENT;
		} else if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD)) {
			rc = errno ? -errno : -EINVAL;
		}
	}
	got[0] = '\0';
	if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0)
		hwloc_bitmap_list_snprintf(got, n, set);
	*last_cpu = -1;
	if (hwloc_get_last_cpu_location(topo, set, HWLOC_CPUBIND_THREAD) == 0)
		*last_cpu = hwloc_bitmap_first(set);
	hwloc_bitmap_free(set);
	return rc;
}

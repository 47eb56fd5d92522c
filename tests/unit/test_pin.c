/* Thread placement on synthetic topologies, and a real binding. */
#include "../../worker/pin.h"
#include "unit.h"

#include <string.h>

static hwloc_topology_t synthetic(const char *desc)
{
	hwloc_topology_t t;
	hwloc_topology_init(&t);
	if (hwloc_topology_set_synthetic(t, desc) || hwloc_topology_load(t)) {
		fprintf(stderr, "    synthetic topology '%s' refused\n", desc);
		return NULL;
	}
	return t;
}

static int first_pu(hwloc_topology_t t, enum st_bind how, int lr, int nth, int th)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	st_pin_place(t, how, lr, nth, th, s);
	int f = hwloc_bitmap_first(s);
	hwloc_bitmap_free(s);
	return f;
}

static void placement(void)
{
	hwloc_topology_t t = synthetic("pack:2 core:4 pu:2");
	CHECK(t != NULL);
	if (!t)
		return;
	/* cores: 2 threads of local rank 0 on cores 0,1; rank 1 on cores 2,3 */
	CHECK(first_pu(t, ST_BIND_CORE, 0, 2, 0) == 0);
	CHECK(first_pu(t, ST_BIND_CORE, 0, 2, 1) == 2);
	CHECK(first_pu(t, ST_BIND_CORE, 1, 2, 0) == 4);
	CHECK(first_pu(t, ST_BIND_CORE, 1, 2, 1) == 6);
	CHECK(first_pu(t, ST_BIND_CORE, 4, 2, 0) == 0); /* 8 cores: wraps */
	CHECK(first_pu(t, ST_BIND_PU, 1, 2, 1) == 3);
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	CHECK(st_pin_place(t, ST_BIND_CORE, 0, 1, 0, s) == 0 && hwloc_bitmap_weight(s) == 2);
	CHECK(st_pin_place(t, ST_BIND_PU, 0, 1, 0, s) == 0 && hwloc_bitmap_weight(s) == 1);
	CHECK(st_pin_place(t, ST_BIND_NONE, 0, 1, 0, s) == 0 && hwloc_bitmap_weight(s) == 16);
	hwloc_bitmap_free(s);
	hwloc_topology_destroy(t);

	t = synthetic("pack:2 [numa] core:2 pu:1");
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE) == 2);
	CHECK(first_pu(t, ST_BIND_NUMA, 0, 1, 0) == 0);
	CHECK(first_pu(t, ST_BIND_NUMA, 1, 1, 0) == 2);
	hwloc_topology_destroy(t);
}

static void real_binding(void)
{
	hwloc_topology_t t;
	hwloc_topology_init(&t);
	hwloc_topology_load(t);
	char got[64];
	int cpu;
	CHECK(st_pin_self(t, ST_BIND_PU, 0, 1, 0, got, sizeof(got), &cpu) == 0);
	CHECK(strcmp(got, "0") == 0); /* PU 0, as placed */
	CHECK(cpu == 0);
	/* back to the whole machine for the other tests */
	hwloc_set_cpubind(t, hwloc_topology_get_topology_cpuset(t), HWLOC_CPUBIND_THREAD);
	hwloc_topology_destroy(t);
}

const struct unit_test unit_pin[] = {
	{ "pin: placement spreads ranks and threads over cores, PUs, NUMA", placement },
	{ "pin: a real thread binding is what was placed", real_binding },
	{ NULL, NULL },
};

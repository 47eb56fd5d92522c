/*
 * pin.h - where each I/O thread runs (hwloc).
 *
 * st_pin_place is a pure function of a topology: thread `thread` of the rank
 * with index `local_rank` on its host gets object number
 * (local_rank * nthreads + thread) mod (objects of that kind), so threads of
 * the ranks sharing a host spread over distinct cores before reusing one.
 * st_pin_self binds the calling thread and reports what it really got.
 */
#ifndef ST_PIN_H
#define ST_PIN_H

#include "../common/options.h" /* enum st_bind: the --bind values */

#include <hwloc.h>
#include <stddef.h>

/* Fill `set` with the PUs for that thread. Returns 0, or -1 when the
 * topology has no object of that kind (set is then the whole machine). */
int st_pin_place(hwloc_topology_t topo, enum st_bind how, int local_rank, int nthreads,
		 int thread, hwloc_bitmap_t set);

/* Bind the calling thread as placed; then write the binding it really has
 * (hwloc list form) into got and the PU it runs on into *last_cpu.
 * Returns 0 or -errno (binding refused or unsupported). ST_BIND_NONE binds
 * nothing and reports the inherited binding. */
int st_pin_self(hwloc_topology_t topo, enum st_bind how, int local_rank, int nthreads,
		int thread, char *got, size_t n, int *last_cpu);

#endif

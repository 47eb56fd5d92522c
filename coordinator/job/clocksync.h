/*
 * clocksync.h - each rank's clock offset to rank 0 (collective).
 *
 * Rank 0 ping-pongs with every other rank `samples` times and keeps the
 * sample with the lowest round trip: offset = remote time - midpoint of the
 * round trip. Its error is at most half that round trip. Every rank gets its
 * own offset (common time = local time - offset); rank 0 gets all of them.
 */
#ifndef ST_CLOCKSYNC_H
#define ST_CLOCKSYNC_H

#include <mpi.h>
#include <stdint.h>

/* all_offset/all_rtt: arrays of comm size, filled on rank 0 only (may be
 * NULL elsewhere). Returns this rank's offset in ns. */
int64_t st_clock_sync(MPI_Comm comm, int samples, int64_t *all_offset, int64_t *all_rtt);

#endif

/*
 * clocksync.c - ping-pong clock offset estimation (see clocksync.h).
 */
#include "clocksync.h"

#include "../../common/util.h"

#include <stdlib.h>

int64_t st_clock_sync(MPI_Comm comm, int samples, int64_t *all_offset, int64_t *all_rtt)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	const int tag = 4242;
	int64_t mine = 0;
	if (rank == 0) {
		all_offset[0] = 0;
		all_rtt[0] = 0;
		for (int r = 1; r < size; r++) {
			int64_t best_rtt = INT64_MAX, best_off = 0;
			for (int s = 0; s < samples; s++) {
				int64_t remote, t1 = st_now_ns();
				MPI_Send(&t1, 1, MPI_INT64_T, r, tag, comm);
				MPI_Recv(&remote, 1, MPI_INT64_T, r, tag, comm, MPI_STATUS_IGNORE);
				int64_t t2 = st_now_ns();
				if (t2 - t1 < best_rtt) {
					best_rtt = t2 - t1;
					best_off = remote - (t1 + (t2 - t1) / 2);
				}
			}
			all_offset[r] = best_off;
			all_rtt[r] = best_rtt;
		}
	} else {
		for (int s = 0; s < samples; s++) {
			int64_t dummy, now;
			MPI_Recv(&dummy, 1, MPI_INT64_T, 0, tag, comm, MPI_STATUS_IGNORE);
			now = st_now_ns();
			MPI_Send(&now, 1, MPI_INT64_T, 0, tag, comm);
		}
	}
	MPI_Scatter(all_offset, 1, MPI_INT64_T, &mine, 1, MPI_INT64_T, 0, comm);
	return mine;
}

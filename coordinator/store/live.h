/*
 * live.h - is a run whose row says "running" still running? Rank 0 of
 * every run holds a write lock on one byte of the store's lock file (an
 * open file description lock, F_OFD_SETLK), at an offset that follows from
 * the run id, from before the run's row is written until the process ends.
 * The lock file is known by the store's file, not by how --db spells it:
 * .stcluster-INO.live in the directory of the store's file after every
 * link is resolved, INO the file's inode (live.c). The kernel drops the lock when the process
 * ends, however it ends (SIGKILL, out of memory); on NFS the server does,
 * as for the locks SQLite itself relies on, so a reader on another host
 * sees it too. A stopped rank 0 (SIGSTOP) still holds it: the other ranks
 * end such a job by the deadline (watch.h), and mpirun then kills rank 0.
 *
 * A reader (runs, report) tells a live run from one whose rank 0 is gone
 * without writing anything; a writer (a new run, --resume) may record the
 * death in the store. The file is made by the first holder and removed by
 * the last one (a holder that finds it removed under it makes it again).
 */
#ifndef ST_LIVE_H
#define ST_LIVE_H

#include <stddef.h>

struct st_live;

/* Hold the lock of run_id of the store at db_path, which exists: 0 with
 * *out; 1 when another process holds it (the run is live); -1 with err. */
int st_live_hold(const char *db_path, const char *run_id, struct st_live **out, char *err,
		 size_t n);

/* Let it go (the file goes with the last holder). Accepts NULL. */
void st_live_release(struct st_live *l);

/* Does a process hold the lock of run_id? 1 yes, 0 no (no lock file, or
 * no store: no live run), -1 when it cannot be told (err). Opens the file read-only; writes
 * nothing. */
int st_live_check(const char *db_path, const char *run_id, char *err, size_t n);

#endif

/*
 * diskbench.h - the server's disk measured alone, under the export: an
 * O_DIRECT file written (then fsync'ed) and read back, as dd does. Where
 * O_DIRECT is refused (tmpfs) the file is used buffered, and that is said.
 */
#ifndef ST_DISKBENCH_H
#define ST_DISKBENCH_H

#include <stddef.h>
#include <stdint.h>

struct st_diskbench_result {
	double write_mbps; /* 10^6 bytes/s, write + fsync */
	double read_mbps;  /* 10^6 bytes/s */
	int direct;	   /* O_DIRECT was granted */
};

/* Write (then fsync) and read back `size` bytes in `block` calls in a file
 * `name` created under dir, then remove it. A file of that name that is
 * already there is not this call's: it fails with -EEXIST and leaves it. */
int st_diskbench_run(const char *dir, const char *name, int64_t size, int64_t block,
		     struct st_diskbench_result *r, char *msg, size_t n);

#endif

/*
 * subcmd.c - what every read-only subcommand does first (see subcmd.h).
 */
#include "subcmd.h"

#include "../../common/options.h"
#include "../store/store.h"

#include <stdio.h>

struct st_store *st_subcmd_store(const struct st_subargs *a)
{
	char err[ST_ERR_MAX];
	if (st_db_name_check(a->db, err, sizeof(err)) ||
	    st_store_check_path(a->db, 0, err, sizeof(err))) {
		fprintf(stderr, "stcluster %s: %s\n", a->cmd, err);
		return NULL;
	}
	struct st_store *s = st_store_open(a->db, 1, err, sizeof(err));
	if (!s)
		fprintf(stderr, "stcluster %s: %s\n", a->cmd, err);
	return s;
}

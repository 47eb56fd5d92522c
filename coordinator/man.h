/*
 * man.h - the man page stcluster(1), generated: `stcluster --help-man` writes
 * it, the build installs it.
 */
#ifndef ST_MAN_H
#define ST_MAN_H

#include "cli.h"

#include <stddef.h>
#include <stdio.h>

/* The exit statuses (enum st_exit) and what each means: the man page's
 * EXIT STATUS, and README's "Exit status", which a test holds to it. */
struct st_exit_status {
	int status;	     /* enum st_exit */
	const char *meaning; /* one paragraph */
};
extern const struct st_exit_status st_exit_statuses[4];

/* stcluster(1) in roff, from the options table, the subcommand table and
 * the exit statuses. */
void st_man_page(FILE *out, const char *version, const struct st_subcmd *subcmds, size_t ncmds);

#endif

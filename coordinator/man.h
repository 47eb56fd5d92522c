/*
 * man.h - the man page stcluster(1), generated: `stcluster --help-man` writes
 * it, the build installs it.
 */
#ifndef ST_MAN_H
#define ST_MAN_H

#include "cli.h"

#include <stddef.h>
#include <stdio.h>

/* stcluster(1) in roff, from the options table and the subcommand table. */
void st_man_page(FILE *out, const char *version, const struct st_subcmd *subcmds, size_t ncmds);

#endif

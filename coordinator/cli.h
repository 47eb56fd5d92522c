/*
 * cli.h - the subcommand table's row, and the one parser of the read-only
 * subcommands' options.
 *
 * main.c holds the table (one row per subcommand: its name, function,
 * synopsis, help and the options it takes); the parser, `stcluster --help`,
 * `stcluster NAME --help` and the man page (man.c) all read it, so a
 * subcommand is added in one place. Every subcommand takes --help (and -h),
 * prints it on standard output and exits 0; bad input (an unknown option,
 * a bad value, an option given twice) is one line on stderr naming the
 * option and the value, and exit status 2.
 */
#ifndef ST_CLI_H
#define ST_CLI_H

#include "report/subcmd.h"

#include <stddef.h>
#include <stdio.h>

/* The options a subcommand may take (struct st_subargs has their values). */
enum st_cli_opt {
	ST_CLI_DB = 1u << 0,	 /* --db PATH */
	ST_CLI_FORMAT = 1u << 1, /* --format F */
	ST_CLI_RUN = 1u << 2,	 /* --run ID */
	ST_CLI_PHASE = 1u << 3,	 /* --phase P */
	ST_CLI_TOP = 1u << 4,	 /* --top N */
	ST_CLI_HTML = 1u << 5,	 /* --html FILE */
	ST_CLI_WHERE = 1u << 6,	 /* --where EXPR */
	ST_CLI_FORCE = 1u << 7,	 /* --force (no value) */
	ST_CLI_WINDOW = 1u << 8, /* --window N */
};

/* The formats a subcommand prints (--format), as masks of 1u << ST_FMT_*. */
#define ST_CLI_ALL_FORMATS ((1u << ST_FMT_TABLE) | (1u << ST_FMT_CSV) | (1u << ST_FMT_JSON) | \
			    (1u << ST_FMT_MARKDOWN))

struct st_subcmd {
	const char *name;			     /* stcluster NAME ... */
	int (*run)(const struct st_subargs *a);	     /* its exit status */
	const char *synopsis;			     /* what follows the name in usage lines */
	const char *help;			     /* --help and the man page's paragraph */
	unsigned opts;				     /* ST_CLI_* it takes */
	int maxpos;				     /* positional arguments it takes, at most 2 */
	unsigned formats;			     /* --format values: 1u << ST_FMT_* */
};

/* The row of that name in table[0 .. n), or NULL. */
const struct st_subcmd *st_cli_find(const struct st_subcmd *table, size_t n, const char *name);

/* Parse argv (argv[0] is the subcommand's name) into *a, defaults first.
 * 0: run it; 1: --help was printed on stdout; -1: one line on stderr. */
int st_cli_parse(const struct st_subcmd *c, int argc, char **argv, struct st_subargs *a);

/* Parse and run: the subcommand's exit status (0 after --help, 2 after bad input). */
int st_cli_run(const struct st_subcmd *c, int argc, char **argv);

/* "usage: stcluster NAME SYNOPSIS", a blank line and the help text. */
void st_cli_help(const struct st_subcmd *c, FILE *out);

/* The usage lines of `stcluster --help`: the sweep, then every subcommand. */
void st_cli_usage(const struct st_subcmd *table, size_t n, FILE *out);

#endif

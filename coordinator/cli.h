/*
 * cli.h - the read-only subcommands' two tables, and the one parser of
 * their options.
 *
 * main.c holds the subcommand table (one row per subcommand: its name,
 * function, positional arguments, help and the options it takes); cli.c
 * holds the option table (one row per option: its name, placeholder, how
 * its value is read and checked, its field of struct st_subargs, its
 * default and help). The parser, every synopsis, `stcluster --help`,
 * `stcluster NAME --help` and the man page (man.c) are all made from the
 * two, so a subcommand is one row of the first and an option one row of
 * the second (with its bit below, its field in st_subargs and its bit in
 * the rows of the subcommands that take it). Every subcommand takes --help
 * (and -h), prints it on standard output and exits 0; bad input (an
 * unknown option, a bad value, an option given twice) is one line on
 * stderr naming the option and the value, and exit status 2.
 */
#ifndef ST_CLI_H
#define ST_CLI_H

#include "report/subcmd.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The options a subcommand may take, a bit each (struct st_subargs has
 * their values, cli.c's table their rows). */
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
	ST_CLI_PERCENTILES = 1u << 9, /* --percentiles LIST */
	ST_CLI_UNITS = 1u << 10,      /* --units si|iec */
	ST_CLI_COLUMNS = 1u << 11,    /* --columns LIST */
	ST_CLI_WIDE = 1u << 12,	      /* --wide */
	ST_CLI_RUNS = 1u << 13,	      /* --runs N */
};

/* How an option's value is read, and the type of its st_subargs field. */
enum st_cli_kind {
	ST_CLI_K_TEXT,	 /* const char *: the text as given */
	ST_CLI_K_COUNT,	 /* int: a whole number in [min, max] */
	ST_CLI_K_FLAG,	 /* int: 1 when given; takes no value */
	ST_CLI_K_PHASE,	 /* const char *: one of st_phase_names */
	ST_CLI_K_FORMAT, /* enum st_format: one the subcommand prints (its formats) */
};

/* One option of the subcommands. */
struct st_cli_opt_def {
	enum st_cli_opt opt;   /* its bit */
	const char *name;      /* without the dashes: "run" */
	const char *arg;       /* placeholder in a synopsis ("ID|last"); NULL: a flag;
				  --format's lists the subcommand's formats unless it has all */
	enum st_cli_kind kind;
	size_t off;	       /* offsetof its field in struct st_subargs */
	int64_t min, max;      /* ST_CLI_K_COUNT: the range */
	const char *empty;     /* ST_CLI_K_TEXT: refused empty, as "empty <this>"; NULL: allowed */
	const char *hint;      /* said after an invalid value (" (0: every earlier run)") */
	unsigned within;       /* in a synopsis, inside that option's brackets:
				  [--html FILE [--force]]; and refused without it */
	unsigned not_with;     /* the options it makes meaningless: refused with it */
	const char *def;       /* default: text (K_TEXT, K_PHASE), or NULL: unset */
	int def_n;	       /* default: K_COUNT, K_FORMAT */
	const char *help;      /* one line, for --help and the man page */
};

/* Every option, in the order synopses list them. */
extern const struct st_cli_opt_def st_cli_opts[];
extern const size_t st_cli_nopts;

/* The formats a subcommand prints (--format), as masks of 1u << ST_FMT_*. */
#define ST_CLI_ALL_FORMATS ((1u << ST_FMT_TABLE) | (1u << ST_FMT_CSV) | (1u << ST_FMT_JSON) | \
			    (1u << ST_FMT_MARKDOWN))

struct st_subcmd {
	const char *name;			     /* stcluster NAME ... */
	int (*run)(const struct st_subargs *a);	     /* its exit status */
	const char *args;			     /* its positional arguments in a synopsis
							("RUN_A RUN_B"), "" none */
	const char *help;			     /* --help and the man page's paragraph */
	unsigned opts;				     /* ST_CLI_* it takes */
	int maxpos;				     /* positional arguments it takes, at most 2 */
	unsigned formats;			     /* --format values: 1u << ST_FMT_* */
};

/* The row of that name in table[0 .. n), or NULL. */
const struct st_subcmd *st_cli_find(const struct st_subcmd *table, size_t n, const char *name);

/* What follows the name in c's usage line, from its arguments and options:
 * "RUN [--format table|json] [--db PATH]". */
void st_cli_synopsis(const struct st_subcmd *c, char *buf, size_t n);

/* The text of option o's placeholder for subcommand c ("table|json"). */
void st_cli_arg(const struct st_subcmd *c, const struct st_cli_opt_def *o, char *buf, size_t n);

/* Parse argv (argv[0] is the subcommand's name) into *a, defaults first.
 * 0: run it; 1: --help was printed on stdout; -1: one line on stderr. */
int st_cli_parse(const struct st_subcmd *c, int argc, char **argv, struct st_subargs *a);

/* Parse and run: the subcommand's exit status (0 after --help, 2 after bad input). */
int st_cli_run(const struct st_subcmd *c, int argc, char **argv);

/* "usage: stcluster NAME SYNOPSIS", a blank line, the help text, and its
 * options with theirs. */
void st_cli_help(const struct st_subcmd *c, FILE *out);

/* The usage lines of `stcluster --help`: the sweep, then every subcommand. */
void st_cli_usage(const struct st_subcmd *table, size_t n, FILE *out);

#endif

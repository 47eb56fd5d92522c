/* The subcommands' option table: its rows, the synopses and the parser made from it. */
#include "../../common/options.h"
#include "../../coordinator/cli.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int no_run(const struct st_subargs *a)
{
	(void)a;
	return 0;
}

/* What the compiler cannot see: a bit each, a row for every bit a row
 * points at, a placeholder exactly where a value is taken, fields inside
 * struct st_subargs. */
static void table_rows(void)
{
	unsigned seen = 0;
	for (size_t i = 0; i < st_cli_nopts; i++) {
		const struct st_cli_opt_def *o = &st_cli_opts[i];
		CHECK(o->opt && !(o->opt & (o->opt - 1))); /* one bit */
		CHECK(!(seen & o->opt));
		seen |= o->opt;
		CHECK(o->name && *o->name && o->help && *o->help && !strchr(o->help, '\n'));
		CHECK((o->kind == ST_CLI_K_FLAG) == (o->arg == NULL));
		CHECK(o->off < sizeof(struct st_subargs));
		CHECK(o->kind != ST_CLI_K_COUNT || o->max > o->min);
	}
	for (size_t i = 0; i < st_cli_nopts; i++)
		CHECK(!st_cli_opts[i].within || (seen & st_cli_opts[i].within));
}

/* Every synopsis is made from a subcommand's arguments and options, in
 * the table's order, a flag inside the option it goes with, --format's
 * placeholder its formats when not all. */
static void synopses(void)
{
	char syn[512];
	struct st_subcmd c = { .name = "report", .run = no_run, .args = "", .help = "x",
			       .opts = ST_CLI_DB | ST_CLI_FORMAT | ST_CLI_RUN | ST_CLI_PHASE |
				       ST_CLI_TOP | ST_CLI_HTML | ST_CLI_FORCE,
			       .formats = ST_CLI_ALL_FORMATS };
	st_cli_synopsis(&c, syn, sizeof(syn));
	CHECK(strcmp(syn, "[--run ID|last] [--phase P] [--top N] [--html FILE [--force]] "
			  "[--format F] [--db PATH]") == 0);
	c = (struct st_subcmd){ .name = "audit", .run = no_run, .args = "RUN", .help = "x",
				.opts = ST_CLI_DB | ST_CLI_FORMAT, .maxpos = 1,
				.formats = 1u << ST_FMT_TABLE | 1u << ST_FMT_JSON };
	st_cli_synopsis(&c, syn, sizeof(syn));
	CHECK(strcmp(syn, "RUN [--format table|json] [--db PATH]") == 0);
	/* --force without --html to go in: on its own */
	c.opts = ST_CLI_FORCE;
	st_cli_synopsis(&c, syn, sizeof(syn));
	CHECK(strcmp(syn, "RUN [--force]") == 0);
}

/* The parser: the defaults from the table, each kind of value, refusals. */
static void parsing(void)
{
	struct st_subcmd c = { .name = "history", .run = no_run, .args = "", .help = "x",
			       .opts = ST_CLI_DB | ST_CLI_FORMAT | ST_CLI_WHERE | ST_CLI_PHASE |
				       ST_CLI_WINDOW | ST_CLI_RUNS,
			       .formats = 1u << ST_FMT_TABLE | 1u << ST_FMT_CSV };
	struct st_subargs a;
	char *none[] = { "history" };
	CHECK(st_cli_parse(&c, 1, none, &a) == 0);
	CHECK(strcmp(a.cmd, "history") == 0 && strcmp(a.db, ST_DB_DEFAULT) == 0);
	CHECK(strcmp(a.run, "last") == 0 && a.format == ST_FMT_TABLE && a.window == ST_HISTORY_WINDOW);
	CHECK(a.phase == NULL && a.where == NULL && a.html == NULL && a.top == 0 && !a.force);
	CHECK(a.runs == ST_HISTORY_RUNS);
	char *some[] = { "history", "--where", "rsize=1m", "--phase=read", "--window", "0",
			 "--format", "csv", "--db=x.db", "--runs", "3" };
	CHECK(st_cli_parse(&c, 11, some, &a) == 0);
	CHECK(strcmp(a.where, "rsize=1m") == 0 && strcmp(a.phase, "read") == 0 && a.window == 0);
	CHECK(a.runs == 3);
	CHECK(a.format == ST_FMT_CSV && strcmp(a.db, "x.db") == 0);
	/* each refused in one line on stderr naming the option and the value */
	static const struct {
		const char *arg, *val, *want;
	} bad[] = {
		{ "--phase", "erase", "stcluster history: --phase: unknown phase 'erase' (one of: "
				      "write, rewrite, read," },
		{ "--format", "json", "--format: unknown value 'json' (one of: table, csv)\n" },
		{ "--window", "-1", "--window: invalid count '-1' (0: every earlier run)\n" },
		{ "--window", "1000001", "--window: invalid count '1000001'" },
		{ "--runs", "x", "--runs: invalid count 'x' (0: every run)\n" },
		{ "--top", "3", "stcluster history: unknown option '--top'\n" },
		{ "--where", NULL, "--where: missing value\n" },
		{ "--db=a", "--db=b", "--db: given twice (give it once)\n" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[3] = { "history", (char *)bad[i].arg, (char *)bad[i].val };
		int argc = bad[i].val ? 3 : 2;
		char said[512] = "";
		FILE *tmp = tmpfile();
		int saved = dup(2);
		fflush(stderr);
		dup2(fileno(tmp), 2);
		int rc = st_cli_parse(&c, argc, argv, &a);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		rewind(tmp);
		size_t got = fread(said, 1, sizeof(said) - 1, tmp);
		said[got] = '\0';
		fclose(tmp);
		int lines = 0;
		for (const char *p = said; *p; p++)
			lines += *p == '\n';
		if (rc != -1 || lines != 1 || !strstr(said, bad[i].want))
			fprintf(stderr, "    %s %s: %d, '%s'\n", bad[i].arg, bad[i].val ? bad[i].val : "",
				rc, said);
		CHECK(rc == -1 && lines == 1 && strstr(said, bad[i].want));
	}
}

const struct unit_test unit_cli[] = {
	{ "cli: the subcommand option table's rows", table_rows },
	{ "cli: synopses made from the tables", synopses },
	{ "cli: defaults, values and refusals of the one parser", parsing },
	{ NULL, NULL },
};

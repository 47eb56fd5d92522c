/*
 * cli.c - the read-only subcommands' option table, and the one parser,
 * synopsis and --help made from it (see cli.h).
 */
#include "cli.h"

#include "../common/options.h"
#include "../common/units.h"
#include "../common/util.h"

#include <errno.h>
#include <string.h>

#define SUBARG(field) offsetof(struct st_subargs, field)

/* In the order a synopsis lists them: what selects rows first, then how to
 * print them, then where the store is. */
const struct st_cli_opt_def st_cli_opts[] = {
	{ .opt = ST_CLI_WHERE, .name = "where", .arg = "EXPR", .kind = ST_CLI_K_TEXT,
	  .off = SUBARG(where),
	  .help = "the configurations to follow: SQL over the sweep options' columns, e.g. "
		  "\"rsize=1m AND sync='async'\" (sizes may have units, enum values need no "
		  "quotes)" },
	{ .opt = ST_CLI_RUN, .name = "run", .arg = "ID|last", .kind = ST_CLI_K_TEXT,
	  .off = SUBARG(run), .def = "last",
	  .help = "the run: an id, a unique prefix of one, last, or last~N (N runs before the "
		  "last)" },
	{ .opt = ST_CLI_PHASE, .name = "phase", .arg = "P", .kind = ST_CLI_K_PHASE,
	  .off = SUBARG(phase), .help = "that phase only (default: every phase)" },
	{ .opt = ST_CLI_TOP, .name = "top", .arg = "N", .kind = ST_CLI_K_COUNT, .off = SUBARG(top),
	  .min = 1, .max = 1000000, .help = "the N best combinations of each phase, a row each" },
	{ .opt = ST_CLI_WINDOW, .name = "window", .arg = "N", .kind = ST_CLI_K_COUNT,
	  .off = SUBARG(window), .min = 0, .max = 1000000, .hint = " (0: every earlier run)",
	  .def_n = ST_HISTORY_WINDOW,
	  .help = "compare each run with the last N earlier runs of its configuration on the "
		  "same hosts (0: all of them)" },
	{ .opt = ST_CLI_RUNS, .name = "runs", .arg = "N", .kind = ST_CLI_K_COUNT,
	  .off = SUBARG(runs), .min = 0, .max = 1000000, .hint = " (0: every run)",
	  .def_n = ST_HISTORY_RUNS,
	  .help = "show the last N runs of the store, reading those and the --window runs "
		  "before them only (0: every run)" },
	{ .opt = ST_CLI_PERCENTILES, .name = "percentiles", .arg = "LIST", .kind = ST_CLI_K_TEXT,
	  .off = SUBARG(percentiles), .empty = "list",
	  .help = "the latency percentiles shown beside the max, from the stored histograms "
		  "(default 50,99; e.g. 50,90,99,99.9)" },
	{ .opt = ST_CLI_UNITS, .name = "units", .arg = "si|iec", .kind = ST_CLI_K_TEXT,
	  .off = SUBARG(units), .empty = "unit system",
	  .help = "the table's throughput in 10^3 multiples (si: MB/s, GB/s; the default) or 2^10 "
		  "(iec: MiB/s, GiB/s), each column scaled to its largest value" },
	{ .opt = ST_CLI_COLUMNS, .name = "columns", .arg = "LIST", .kind = ST_CLI_K_TEXT,
	  .off = SUBARG(columns), .empty = "list",
	  .help = "the table's columns, by name (seq, iter, the options, phase, status, bw, "
		  "clients, iops, p50 ..., max, verdict, notes); default: all that fit" },
	{ .opt = ST_CLI_WIDE, .name = "wide", .kind = ST_CLI_K_FLAG, .off = SUBARG(wide),
	  .help = "the table of every column, unscaled (MB/s), each note in full on its row" },
	{ .opt = ST_CLI_HTML, .name = "html", .arg = "FILE", .kind = ST_CLI_K_TEXT,
	  .off = SUBARG(html), .empty = "file name",
	  .not_with = ST_CLI_TOP | ST_CLI_PHASE | ST_CLI_FORMAT,
	  .help = "one self-contained HTML page instead, into FILE (FILE -: standard output); "
		  "the page has every combination and phase, so not with --top, --phase or "
		  "--format" },
	{ .opt = ST_CLI_FORCE, .name = "force", .kind = ST_CLI_K_FLAG, .off = SUBARG(force),
	  .within = ST_CLI_HTML,
	  .help = "with --html: replace an existing FILE even when it is not a page stcluster "
		  "wrote" },
	{ .opt = ST_CLI_FORMAT, .name = "format", .arg = "F", .kind = ST_CLI_K_FORMAT,
	  .off = SUBARG(format), .def_n = ST_FMT_TABLE, .help = "how the rows are printed" },
	{ .opt = ST_CLI_DB, .name = "db", .arg = "PATH", .kind = ST_CLI_K_TEXT, .off = SUBARG(db),
	  .def = ST_DB_DEFAULT, .help = "the store, opened read-only" },
};
const size_t st_cli_nopts = ST_ARRAY_LEN(st_cli_opts);

/* the masks of a subcommand's options and formats are unsigned */
_Static_assert(ST_CLI_RUNS < 1u << 31 && ST_FMT_COUNT <= 32, "an option mask has room");

const struct st_subcmd *st_cli_find(const struct st_subcmd *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

/* "a, b, c" (or with sep "|": "a|b|c") of the names in a list whose bit is
 * in mask (mask 0: every name). */
static void name_list(const char *const *names, int count, unsigned mask, const char *sep,
		      char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < count && names[i] && off < n; i++)
		if (!mask || (mask >> i & 1))
			off += (size_t)snprintf(buf + off, n - off, "%s%s", off ? sep : "", names[i]);
}

void st_cli_arg(const struct st_subcmd *c, const struct st_cli_opt_def *o, char *buf, size_t n)
{
	if (o->kind == ST_CLI_K_FORMAT && c && c->formats != ST_CLI_ALL_FORMATS)
		name_list(st_format_names, ST_FMT_COUNT, c->formats, "|", buf, n);
	else
		snprintf(buf, n, "%s", o->arg ? o->arg : "");
}

void st_cli_synopsis(const struct st_subcmd *c, char *buf, size_t n)
{
	size_t off = (size_t)snprintf(buf, n, "%s", c->args);
	for (size_t i = 0; i < st_cli_nopts && off < n; i++) {
		const struct st_cli_opt_def *o = &st_cli_opts[i];
		if (!(c->opts & o->opt) || (o->within && (c->opts & o->within)))
			continue;
		char arg[128];
		st_cli_arg(c, o, arg, sizeof(arg));
		off += (size_t)snprintf(buf + off, n - off, "%s[--%s%s%s", off ? " " : "", o->name,
					*arg ? " " : "", arg);
		for (size_t k = 0; k < st_cli_nopts && off < n; k++) {
			const struct st_cli_opt_def *in = &st_cli_opts[k];
			if (in->within != o->opt || !(c->opts & in->opt))
				continue;
			st_cli_arg(c, in, arg, sizeof(arg));
			off += (size_t)snprintf(buf + off, n - off, " [--%s%s%s]", in->name,
						*arg ? " " : "", arg);
		}
		if (off < n)
			off += (size_t)snprintf(buf + off, n - off, "]");
	}
}

/* text, wrapped at 79 columns between words, each line after `indent`
 * spaces (the first after `first` columns already written) */
static void wrapped(FILE *out, const char *p, int indent, int first)
{
	int col = first;
	while (*p) {
		size_t len = strlen(p), room = (size_t)(79 - col), cut = len;
		if (len > room) {
			cut = room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = strcspn(p, " ");
		}
		fprintf(out, "%.*s\n", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(out, "%*s", indent, "");
		col = indent;
	}
}

void st_cli_help(const struct st_subcmd *c, FILE *out)
{
	char syn[512];
	st_cli_synopsis(c, syn, sizeof(syn));
	fprintf(out, "usage: stcluster %s %s\n\n", c->name, syn);
	/* the help text is one paragraph */
	wrapped(out, c->help, 0, 0);
	fputc('\n', out);
	for (size_t i = 0; i < st_cli_nopts; i++) {
		const struct st_cli_opt_def *o = &st_cli_opts[i];
		if (!(c->opts & o->opt))
			continue;
		char left[160], arg[128], help[512];
		st_cli_arg(c, o, arg, sizeof(arg));
		snprintf(left, sizeof(left), "--%s%s%s", o->name, *arg ? " " : "", arg);
		if (o->def)
			snprintf(help, sizeof(help), "%s (default %s)", o->help, o->def);
		else if (o->kind == ST_CLI_K_COUNT && o->def_n)
			snprintf(help, sizeof(help), "%s (default %d)", o->help, o->def_n);
		else if (o->kind == ST_CLI_K_FORMAT) {
			char list[128];
			name_list(st_format_names, ST_FMT_COUNT, c->formats, ", ", list, sizeof(list));
			snprintf(help, sizeof(help), "%s: %s (default %s)", o->help, list,
				 st_format_names[o->def_n]);
		}
		else
			snprintf(help, sizeof(help), "%s", o->help);
		int w = fprintf(out, "  %-18s ", left);
		wrapped(out, help, 21, w);
	}
}

void st_cli_usage(const struct st_subcmd *table, size_t n, FILE *out)
{
	fputs("usage: mpirun [-np N | -hostfile FILE] stcluster [OPTIONS]   run a sweep\n", out);
	for (size_t i = 0; i < n; i++) {
		char syn[512];
		st_cli_synopsis(&table[i], syn, sizeof(syn));
		fprintf(out, "       stcluster %s %s\n", table[i].name, syn);
	}
	fputs("       stcluster NAME --help     (one subcommand; man stcluster: all in full)\n"
	      "       stcluster --help | --version\n",
	      out);
}

/* Option o (given as `given`, for messages) with value v into *a. 0, or -1
 * after one line on stderr. */
static int set_opt(const struct st_subcmd *c, const struct st_cli_opt_def *o, const char *given,
		   const char *v, struct st_subargs *a)
{
	char *field = (char *)a + o->off, list[256];
	switch (o->kind) {
	case ST_CLI_K_TEXT:
		if (o->empty && !*v) {
			fprintf(stderr, "stcluster %s: %s: empty %s\n", c->name, given, o->empty);
			return -1;
		}
		*(const char **)field = v;
		return 0;
	case ST_CLI_K_FLAG:
		*(int *)field = 1;
		return 0;
	case ST_CLI_K_COUNT: {
		int64_t n;
		const char *why;
		if (st_parse_count(v, &n, &why) || n < o->min || n > o->max) {
			fprintf(stderr, "stcluster %s: %s: invalid count '%s'%s\n", c->name, given, v,
				o->hint ? o->hint : "");
			return -1;
		}
		*(int *)field = (int)n;
		return 0;
	}
	case ST_CLI_K_PHASE:
		for (int p = 0; p < ST_PHASE_COUNT; p++)
			if (strcmp(v, st_phase_names[p]) == 0) {
				*(const char **)field = v;
				return 0;
			}
		name_list(st_phase_names, ST_PHASE_COUNT, 0, ", ", list, sizeof(list));
		fprintf(stderr, "stcluster %s: %s: unknown phase '%s' (one of: %s)\n", c->name, given,
			v, list);
		return -1;
	case ST_CLI_K_FORMAT: {
		int f = st_format_find(v);
		if (f >= 0 && (c->formats >> f & 1)) {
			*(enum st_format *)field = (enum st_format)f;
			return 0;
		}
		name_list(st_format_names, ST_FMT_COUNT, c->formats, ", ", list, sizeof(list));
		fprintf(stderr, "stcluster %s: %s: unknown value '%s' (one of: %s)\n", c->name, given,
			v, list);
		return -1;
	}
	}
	return -1;
}

/* The name of the option whose bit is opt. */
static const char *opt_name(unsigned opt)
{
	for (size_t i = 0; i < st_cli_nopts; i++)
		if (st_cli_opts[i].opt == opt)
			return st_cli_opts[i].name;
	return "?";
}

/* Every option's default into *a. */
static void defaults(const struct st_subcmd *c, struct st_subargs *a)
{
	*a = (struct st_subargs){ .cmd = c->name };
	for (size_t i = 0; i < st_cli_nopts; i++) {
		const struct st_cli_opt_def *o = &st_cli_opts[i];
		char *field = (char *)a + o->off;
		if (o->kind == ST_CLI_K_TEXT || o->kind == ST_CLI_K_PHASE)
			*(const char **)field = o->def;
		else if (o->kind == ST_CLI_K_FORMAT)
			*(enum st_format *)field = (enum st_format)o->def_n;
		else
			*(int *)field = o->def_n;
	}
}

/* An option given without the one it belongs to, or with one it makes
 * meaningless, would be ignored: refused (seen: the options given). */
static int given_together(const struct st_subcmd *c, unsigned seen)
{
	for (size_t i = 0; i < st_cli_nopts; i++) {
		const struct st_cli_opt_def *o = &st_cli_opts[i];
		if (!(seen & o->opt))
			continue;
		if (o->within && !(seen & o->within)) {
			fprintf(stderr, "stcluster %s: --%s: only with --%s\n", c->name, o->name,
				opt_name(o->within));
			return -1;
		}
		for (size_t k = 0; k < st_cli_nopts; k++)
			if (seen & o->not_with & st_cli_opts[k].opt) {
				fprintf(stderr, "stcluster %s: --%s: not with --%s (it would be ignored)\n",
					c->name, st_cli_opts[k].name, o->name);
				return -1;
			}
	}
	return 0;
}

int st_cli_parse(const struct st_subcmd *c, int argc, char **argv, struct st_subargs *a)
{
	defaults(c, a);
	unsigned seen = 0;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			st_cli_help(c, stdout);
			return 1;
		}
		if (strncmp(arg, "--", 2) != 0) {
			if (a->npos == c->maxpos) {
				fprintf(stderr, "stcluster %s: unexpected argument '%s'\n", c->name, arg);
				return -1;
			}
			a->pos[a->npos++] = arg;
			continue;
		}
		const char *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		const struct st_cli_opt_def *o = NULL;
		for (size_t k = 0; k < st_cli_nopts && !o; k++)
			if (strlen(st_cli_opts[k].name) == len - 2 &&
			    strncmp(arg + 2, st_cli_opts[k].name, len - 2) == 0)
				o = &st_cli_opts[k];
		if (!o || !(o->opt & c->opts)) {
			fprintf(stderr, "stcluster %s: unknown option '%.*s'\n", c->name, (int)len, arg);
			return -1;
		}
		char given[64];
		snprintf(given, sizeof(given), "%.*s", (int)len, arg);
		if (seen & o->opt) {
			fprintf(stderr, "stcluster %s: %s: given twice (give it once)\n", c->name, given);
			return -1;
		}
		seen |= o->opt;
		if (o->kind == ST_CLI_K_FLAG) {
			if (eq) {
				fprintf(stderr, "stcluster %s: %s takes no value\n", c->name, given);
				return -1;
			}
			set_opt(c, o, given, "", a);
			continue;
		}
		const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!v) {
			fprintf(stderr, "stcluster %s: %s: missing value\n", c->name, given);
			return -1;
		}
		if (set_opt(c, o, given, v, a))
			return -1;
	}
	return given_together(c, seen);
}

int st_cli_run(const struct st_subcmd *c, int argc, char **argv)
{
	struct st_subargs a;
	int rc = st_cli_parse(c, argc, argv, &a);
	rc = rc > 0 ? 0 : rc < 0 ? 2 : c->run(&a);
	/* what was printed must have been written (>/dev/full, stdout closed):
	 * else exit's own flush would lose it without a word */
	int bad = fflush(stdout), e = errno;
	if (bad || ferror(stdout)) {
		fprintf(stderr, "stcluster %s: cannot write the output: %s\n", c->name,
			strerror(bad && e ? e : EIO));
		return rc == 2 ? 2 : 1;
	}
	return rc;
}

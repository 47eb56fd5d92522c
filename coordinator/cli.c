/*
 * cli.c - the one parser of the read-only subcommands (see cli.h).
 */
#include "cli.h"

#include "../common/options.h"
#include "../common/units.h"

#include <stdint.h>
#include <string.h>

static const struct {
	const char *name; /* without the dashes */
	enum st_cli_opt opt;
} cli_opts[] = {
	{ "db", ST_CLI_DB },	   { "format", ST_CLI_FORMAT }, { "run", ST_CLI_RUN },
	{ "phase", ST_CLI_PHASE }, { "top", ST_CLI_TOP },	{ "html", ST_CLI_HTML },
	{ "where", ST_CLI_WHERE },  { "force", ST_CLI_FORCE },	{ "window", ST_CLI_WINDOW },
};

const struct st_subcmd *st_cli_find(const struct st_subcmd *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

void st_cli_help(const struct st_subcmd *c, FILE *out)
{
	fprintf(out, "usage: stcluster %s %s\n\n", c->name, c->synopsis);
	/* the help text is one paragraph: wrapped at 79 columns, between words */
	const char *p = c->help;
	while (*p) {
		size_t len = strlen(p), cut = len;
		if (len > 79) {
			cut = 79;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = strcspn(p, " ");
		}
		fprintf(out, "%.*s\n", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

void st_cli_usage(const struct st_subcmd *table, size_t n, FILE *out)
{
	fputs("usage: mpirun [-np N | -hostfile FILE] stcluster [OPTIONS]   run a sweep\n", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "       stcluster %s %s\n", table[i].name, table[i].synopsis);
	fputs("       stcluster NAME --help     (one subcommand; man stcluster: all in full)\n"
	      "       stcluster --help | --version\n",
	      out);
}

/* "a, b, c" of the names in a NULL-terminated list whose bit is in mask
 * (mask 0: every name). */
static void name_list(const char *const *names, int count, unsigned mask, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < count && names[i] && off < n; i++)
		if (!mask || (mask >> i & 1))
			off += (size_t)snprintf(buf + off, n - off, "%s%s", off ? ", " : "", names[i]);
}

/* Option `name` (given as `given`, for messages) with value v into *a. 0 or -1. */
static int set_opt(const struct st_subcmd *c, enum st_cli_opt opt, const char *given,
		   const char *v, struct st_subargs *a)
{
	char list[256];
	switch (opt) {
	case ST_CLI_DB:
		a->db = v;
		return 0;
	case ST_CLI_FORMAT: {
		int f = st_format_find(v);
		if (f >= 0 && (c->formats >> f & 1)) {
			a->format = (enum st_format)f;
			return 0;
		}
		name_list(st_format_names, ST_FMT_COUNT, c->formats, list, sizeof(list));
		fprintf(stderr, "stcluster %s: %s: unknown value '%s' (one of: %s)\n", c->name, given,
			v, list);
		return -1;
	}
	case ST_CLI_RUN:
		a->run = v;
		return 0;
	case ST_CLI_PHASE:
		for (int p = 0; p < ST_PHASE_COUNT; p++)
			if (strcmp(v, st_phase_names[p]) == 0) {
				a->phase = v;
				return 0;
			}
		name_list(st_phase_names, ST_PHASE_COUNT, 0, list, sizeof(list));
		fprintf(stderr, "stcluster %s: %s: unknown phase '%s' (one of: %s)\n", c->name, given,
			v, list);
		return -1;
	case ST_CLI_TOP: {
		int64_t n;
		const char *why;
		if (st_parse_count(v, &n, &why) || n < 1 || n > 1000000) {
			fprintf(stderr, "stcluster %s: %s: invalid count '%s'\n", c->name, given, v);
			return -1;
		}
		a->top = (int)n;
		return 0;
	}
	case ST_CLI_HTML:
		if (!*v) {
			fprintf(stderr, "stcluster %s: %s: empty file name\n", c->name, given);
			return -1;
		}
		a->html = v;
		return 0;
	case ST_CLI_WHERE:
		a->where = v;
		return 0;
	case ST_CLI_FORCE:
		a->force = 1;
		return 0;
	case ST_CLI_WINDOW: {
		int64_t n;
		const char *why;
		if (st_parse_count(v, &n, &why) || n > 1000000) {
			fprintf(stderr, "stcluster %s: %s: invalid count '%s' (0: every earlier run)\n",
				c->name, given, v);
			return -1;
		}
		a->window = (int)n;
		return 0;
	}
	}
	return -1;
}

int st_cli_parse(const struct st_subcmd *c, int argc, char **argv, struct st_subargs *a)
{
	*a = (struct st_subargs){ .cmd = c->name, .db = st_options[ST_OPT_DB].def,
				  .format = ST_FMT_TABLE, .run = "last", .window = ST_HISTORY_WINDOW };
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
		int opt = 0;
		for (size_t k = 0; k < sizeof(cli_opts) / sizeof(cli_opts[0]) && !opt; k++)
			if (strlen(cli_opts[k].name) == len - 2 &&
			    strncmp(arg + 2, cli_opts[k].name, len - 2) == 0)
				opt = (int)cli_opts[k].opt;
		if (!(opt & (int)c->opts)) {
			fprintf(stderr, "stcluster %s: unknown option '%.*s'\n", c->name, (int)len, arg);
			return -1;
		}
		char given[16];
		snprintf(given, sizeof(given), "%.*s", (int)len, arg);
		if (seen & (unsigned)opt) {
			fprintf(stderr, "stcluster %s: %s: given twice (give it once)\n", c->name, given);
			return -1;
		}
		seen |= (unsigned)opt;
		if (opt == ST_CLI_FORCE) {
			if (eq) {
				fprintf(stderr, "stcluster %s: %s takes no value\n", c->name, given);
				return -1;
			}
			set_opt(c, ST_CLI_FORCE, given, "", a);
			continue;
		}
		const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!v) {
			fprintf(stderr, "stcluster %s: %s: missing value\n", c->name, given);
			return -1;
		}
		if (set_opt(c, (enum st_cli_opt)opt, given, v, a))
			return -1;
	}
	return 0;
}

int st_cli_run(const struct st_subcmd *c, int argc, char **argv)
{
	struct st_subargs a;
	int rc = st_cli_parse(c, argc, argv, &a);
	return rc > 0 ? 0 : rc < 0 ? 2 : c->run(&a);
}

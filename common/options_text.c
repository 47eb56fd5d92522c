/*
 * options_text.c - what the options table (options_table.c) prints: --help
 * and the plan text a run stores, which st_config_parse_plan reads back
 * (see options.h).
 */
#include "options.h"
#include "phaseopt.h"

#include <stdio.h>

void st_config_help(FILE *out)
{
	/* the lists whose values hold commas themselves have a separator of their own */
	char own[256] = "";
	size_t off = 0;
	for (int i = 0; i < ST_OPT_COUNT && off < sizeof(own); i++)
		if (st_options[i].sep && st_options[i].sep != ',')
			off += (size_t)snprintf(own + off, sizeof(own) - off, "%s--%s '%c'",
						off ? ", " : "", st_options[i].name, st_options[i].sep);
	fprintf(out,
		"Options marked [sweep] or [list] take a list: comma-separated (4k,64k,1m), but\n"
		"for values that hold commas themselves (%s). Every list\n"
		"of a sweep option is a dimension of the matrix, which is their cartesian product.\n"
		"Sizes are binary (k = 1024). With no options, ./stcluster.conf is read.\n\n",
		own);
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		const struct st_opt_def *d = &st_options[i];
		char left[64];
		snprintf(left, sizeof(left), "--%s%s%s", d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
		fprintf(out, "  %-30s %s%s", left,
			(d->flags & ST_OF_SWEEP) ? "[sweep] " : (d->flags & ST_OF_LIST) ? "[list] " : "",
			d->help);
		if (d->def && *d->def)
			fprintf(out, " (default %s)", d->def);
		fputc('\n', out);
	}
}

/* Text of a string value in a plan: a '#' would start a comment there. */
static void put_plan_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '#')
			fputc('\\', out);
		fputc(*s, out);
	}
}

void st_config_dump(const struct st_config *cfg, FILE *out)
{
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		const struct st_opt_def *d = &st_options[i];
		const struct st_optval *ov = &cfg->o[i];
		if (!ov->n || (d->flags & ST_OF_NO_PLAN) || d->type == ST_T_FLAG)
			continue;
		fprintf(out, "%s = ", d->name);
		if (d->type == ST_T_STRING && !st_opt_is_list(d)) {
			put_plan_text(out, ov->s);
			fputc('\n', out);
			continue;
		}
		for (int k = 0; k < ov->n; k++) {
			if (k)
				fputc(d->sep ? d->sep : ',', out);
			if (d->type == ST_T_STRING) {
				/* an element may be as long as the option's whole text */
				put_plan_text(out, st_optval_str(ov, k));
				continue;
			}
			char v[256];
			st_opt_value_text(cfg, i, ov->v[k], v, sizeof(v));
			fputs(v, out);
		}
		fputc('\n', out);
	}
	st_phase_dump(cfg, out);
}

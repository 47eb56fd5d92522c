/*
 * fuzz_args.c - libFuzzer target: the input is a command line, one
 * argument per line (argv[0] is "stcluster"; an argument cannot hold a
 * newline, as one from a shell rarely does).
 *
 * A refused command line must say so in one line; an accepted one must obey
 * the options table, mark what it set as given on the command line, walk
 * its matrix and dump to plan text that parses back to the same options.
 * That dump, read as a plan over the same configuration, must change
 * nothing: the command line wins, and every other value is its own.
 */
#include "fuzz_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_ARGS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	char **argv = malloc((FUZZ_MAX_ARGS + 1) * sizeof(*argv));
	struct st_config *cfg = malloc(sizeof(*cfg)), *again = malloc(sizeof(*again));
	char *err = malloc(ST_ERR_MAX);
	FUZZ_CHECK(argv && cfg && again && err);
	int argc = 0;
	argv[argc++] = "stcluster";
	for (char *p = text; *p && argc < FUZZ_MAX_ARGS;) {
		char *nl = strchr(p, '\n');
		argv[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	argv[argc] = NULL;

	st_config_defaults(cfg);
	int rc = st_config_parse_args(cfg, argc, argv, err, ST_ERR_MAX);
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		fuzz_check_err(err, ST_ERR_MAX, NULL);
	} else {
		fuzz_check_config(cfg);
		fuzz_exercise_config(cfg);

		char *dump = fuzz_dump(cfg);
		memcpy(again, cfg, sizeof(*cfg));
		FUZZ_CHECK(st_config_parse_plan(again, dump, "dump", err, ST_ERR_MAX) == 0);
		for (int i = 0; i < ST_OPT_COUNT; i++) {
			const struct st_optval *x = &cfg->o[i], *y = &again->o[i];
			FUZZ_CHECK(x->n == y->n && x->from_args == y->from_args);
			FUZZ_CHECK(memcmp(x->v, y->v, sizeof(x->v)) == 0);
			FUZZ_CHECK(strcmp(x->s, y->s) == 0);
		}
		free(dump);
	}
	free(err);
	free(again);
	free(cfg);
	free(argv);
	free(text);
	return 0;
}

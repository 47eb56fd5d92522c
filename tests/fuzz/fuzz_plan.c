/*
 * fuzz_plan.c - libFuzzer target: the input is the text of a --plan file
 * (or stcluster.conf, or the plan a run stores for --resume).
 *
 * Parsed with the defaults underneath, as a run does. A refused plan must
 * say so in one line starting "FILE:LINE: " with a line the text has; an
 * accepted one must obey the options table, walk its matrix, and dump to
 * plan text that parses back to the same options (fuzz_check.c).
 */
#include "fuzz_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	struct st_config *cfg = malloc(sizeof(*cfg));
	char *err = malloc(ST_ERR_MAX);
	FUZZ_CHECK(cfg && err);
	st_config_defaults(cfg);
	int rc = st_config_parse_plan(cfg, text, "fuzz.conf", err, ST_ERR_MAX);
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		fuzz_check_err(err, ST_ERR_MAX, "fuzz.conf:");
		/* the line named is one the text has */
		long line = strtol(err + strlen("fuzz.conf:"), NULL, 10);
		long lines = 1;
		for (const char *p = text; *p; p++)
			lines += *p == '\n';
		FUZZ_CHECK(line >= 1 && line <= lines);
	} else {
		fuzz_check_config(cfg);
		for (int i = 0; i < ST_OPT_COUNT; i++)
			FUZZ_CHECK(cfg->o[i].from_args == 0);
		fuzz_exercise_config(cfg);
	}
	free(err);
	free(cfg);
	free(text);
	return 0;
}

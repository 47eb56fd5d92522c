/*
 * runner.c - runs every unit test table; an optional argument selects the
 * tests whose name contains it.
 */
#include "../../common/util.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int unit_failures;

static char tmp_template[256];

char *unit_slurp(const char *path)
{
	char *text = NULL;
	int rc = st_read_file(path, &text);
	if (rc)
		fprintf(stderr, "    %s: %s (the unit runner must start in the repository root)\n",
			path, strerror(-rc));
	return text;
}

const char *unit_tmpdir(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(tmp_template, sizeof(tmp_template), "%s/stcluster-unit-XXXXXX", base);
	if (!mkdtemp(tmp_template)) {
		perror("mkdtemp");
		exit(2);
	}
	return tmp_template;
}

int main(int argc, char **argv)
{
	const struct unit_test *tables[] = { unit_units, unit_options, unit_hist, unit_permute,
					     unit_store, unit_engine, unit_pin, unit_cluster, unit_mount,
					     unit_rpcstats, unit_stats, unit_workloads, unit_rows, unit_cli,
					     unit_surface, unit_advise, unit_ivpack };
	int passed = 0, failed = 0;
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (const struct unit_test *u = tables[t]; u->name; u++) {
			if (argc > 1 && !strstr(u->name, argv[1]))
				continue;
			unit_failures = 0;
			u->fn();
			if (unit_failures) {
				printf("not ok - %s\n", u->name);
				failed++;
			} else {
				printf("ok - %s\n", u->name);
				passed++;
			}
			fflush(stdout);
		}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/*
 * main.c - the stcluster binary: dispatch only.
 */
#include "../common/options.h"
#include "job/job.h"
#include "report/analysis.h"
#include "report/audit.h"
#include "report/report.h"
#include "store/store.h"

#include <stdio.h>
#include <string.h>

#ifndef ST_VERSION
#define ST_VERSION "dev"
#endif

/* The report a run prints when it ends: the one `stcluster report` prints. */
static int run_report(struct st_store *s, const char *run_id, FILE *out)
{
	struct st_report_opts ro = ST_REPORT_OPTS_INIT;
	ro.run = run_id;
	return st_report_print(st_store_db(s), &ro, out);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		if (strcmp(argv[1], "report") == 0)
			return st_cmd_report(argc - 1, argv + 1);
		if (strcmp(argv[1], "runs") == 0)
			return st_cmd_runs(argc - 1, argv + 1);
		if (strcmp(argv[1], "query") == 0)
			return st_cmd_query(argc - 1, argv + 1);
		if (strcmp(argv[1], "compare") == 0)
			return st_cmd_compare(argc - 1, argv + 1);
		if (strcmp(argv[1], "effects") == 0)
			return st_cmd_effects(argc - 1, argv + 1);
		if (strcmp(argv[1], "history") == 0)
			return st_cmd_history(argc - 1, argv + 1);
		if (strcmp(argv[1], "audit") == 0)
			return st_cmd_audit(argc - 1, argv + 1);
		/* hidden: the build writes stcluster(1) with it */
		if (argc == 2 && strcmp(argv[1], "--help-man") == 0) {
			st_man_page(stdout, ST_VERSION);
			return fflush(stdout) ? 1 : 0;
		}
		for (int i = 1; i < argc; i++) {
			if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
			    (i == 1 && strcmp(argv[i], "help") == 0)) {
				st_config_help(stdout);
				return 0;
			}
			if (strcmp(argv[i], "--version") == 0) {
				printf("stcluster %s\n", ST_VERSION);
				return 0;
			}
		}
	}
	return st_cmd_run(argc, argv, run_report);
}

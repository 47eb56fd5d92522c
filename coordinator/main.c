/*
 * main.c - the stcluster binary: dispatch only.
 *
 * One table of the read-only subcommands (their name, function, positional
 * arguments, help and options: cli.h; the options' own table is cli.c's,
 * and every synopsis is made from the two); everything else is the MPI
 * job (job/). main is also where the rooms meet: it hands the job the
 * report a run prints when it ends, and the man page the subcommand table.
 */
#include "../common/options.h"
#include "../worker/engine.h"
#include "cli.h"
#include "job/job.h"
#include "man.h"
#include "report/report.h"
#include "report/subcmd.h"
#include "store/store.h"

#include <stdio.h>
#include <string.h>

#include "version.h" /* generated: $(BUILD)/gen/version.h (the Makefile) */

static const struct st_subcmd subcmds[] = {
	{ .name = "report",
	  .run = st_cmd_report,
	  .args = "",
	  .opts = ST_CLI_DB | ST_CLI_FORMAT | ST_CLI_RUN | ST_CLI_PHASE | ST_CLI_TOP | ST_CLI_HTML |
		  ST_CLI_FORCE | ST_CLI_PERCENTILES | ST_CLI_UNITS | ST_CLI_COLUMNS | ST_CLI_WIDE,
	  .maxpos = 0,
	  .formats = ST_CLI_ALL_FORMATS,
	  .help =
		  "One run (default: the last), one row per combination and phase, in a table of at "
		  "most 120 characters a row (fewer on a narrower terminal, or COLUMNS): the options "
		  "that vary, the phase, the aggregate scaled to one unit per column (--units), the slowest and fastest client, "
		  "IOPS, latency percentiles (--percentiles), the verdict as a short code and every "
		  "note as a numbered footnote below; a column that does not fit is left out and "
		  "named (--columns picks them). With --wide (and in csv and markdown): every option "
		  "that varies, aggregate MB/s, first-done MB/s, slowest and fastest client, "
		  "fairness, IOPS, "
		  "latency percentiles, errors, the CPU the phase cost (the client processes' as % of "
		  "one CPU per client over the phase's wall, the server hosts' as % of their CPUs, "
		  "each also in us per MB; view phase_cpu), and the bottleneck verdict when the run "
		  "measured baselines. With --top N: the N best combinations of each phase, one row "
		  "each (iterations averaged, with their 95 % interval): options, bytes, time, "
		  "aggregate MB/s, slowest and fastest client, CPU, verdict (sql/queries/top.sql). "
		  "With --html FILE: "
		  "one self-contained HTML page of the run instead (inline SVG charts: aggregate per "
		  "combination and phase with the per-client spread, main effects, the interaction of "
		  "the two strongest options, throughput against each swept size, bottleneck verdicts, "
		  "hosts and the command line); FILE - is standard output. The page is written to a "
		  "temporary file beside FILE, which then replaces it: FILE is never half written. "
		  "FILE may not be the store, nor a FIFO or a directory, and an existing FILE that is "
		  "not a page stcluster wrote is replaced only with --force." },
	{ .name = "runs",
	  .run = st_cmd_runs,
	  .args = "",
	  .opts = ST_CLI_DB | ST_CLI_FORMAT,
	  .maxpos = 0,
	  .formats = ST_CLI_ALL_FORMATS,
	  .help =
		  "Every run stored: id, start, label, hosts, ranks, combinations stored of planned, "
		  "failed combinations, status." },
	{ .name = "query",
	  .run = st_cmd_query,
	  .args = "\"SQL\"",
	  .opts = ST_CLI_DB | ST_CLI_FORMAT,
	  .maxpos = 1,
	  .formats = ST_CLI_ALL_FORMATS,
	  .help =
		  "Any SQL over every run stored; the store is opened read-only. The tables and views "
		  "are described in sql/README.md." },
	{ .name = "compare",
	  .run = st_cmd_compare,
	  .args = "RUN_A RUN_B",
	  .opts = ST_CLI_DB | ST_CLI_FORMAT | ST_CLI_PHASE,
	  .maxpos = 2,
	  .formats = ST_CLI_ALL_FORMATS,
	  .help =
		  "The combinations both runs ran (the same value of every sweep option), side by side "
		  "per phase: iterations, mean aggregate MB/s and its 95 % confidence interval in each, "
		  "the change of B against A in %, the p-value of Welch's t-test and a verdict: better "
		  "or worse only when the difference is larger than the noise (p < 0.05, which needs "
		  "--iterations 3 or more in both runs), else within noise, or too few iterations. "
		  "A run is an id, a unique prefix of one, last, or last~N (N runs before the last) "
		  "(sql/queries/compare.sql)." },
	{ .name = "effects",
	  .run = st_cmd_effects,
	  .args = "",
	  .opts = ST_CLI_DB | ST_CLI_FORMAT | ST_CLI_RUN | ST_CLI_PHASE,
	  .maxpos = 0,
	  .formats = ST_CLI_ALL_FORMATS,
	  .help =
		  "Which option matters and which pairs interact, per phase: for every option that "
		  "varies in the run, the mean aggregate MB/s at each level with its spread (sd, min, "
		  "max) and the effect (largest minus smallest level mean); for every pair of such "
		  "options, the cell means and the interaction effect (the largest minus the smallest "
		  "departure of a cell from what the two main effects predict); beside each, the mean "
		  "client and server CPU at that level or cell (% and us per MB, as report). Sorted "
		  "by effect, largest first (sql/queries/effects.sql)." },
	{ .name = "history",
	  .run = st_cmd_history,
	  .args = "",
	  .opts = ST_CLI_DB | ST_CLI_FORMAT | ST_CLI_WHERE | ST_CLI_PHASE | ST_CLI_WINDOW |
		  ST_CLI_RUNS,
	  .maxpos = 0,
	  .formats = ST_CLI_ALL_FORMATS,
	  .help =
		  "One configuration over time: per run of the last N of the store (--runs, 20; 0: "
		  "all), the mean aggregate MB/s of the "
		  "configurations EXPR selects, beside the last N (--window, 5; 0: all) earlier runs of "
		  "the same configuration on the same hosts among the runs before it (the --runs and "
		  "--window runs are all history reads, whatever the store holds), with a verdict: "
		  "regression or improvement "
		  "when the difference is "
		  "beyond the earlier runs' noise (Welch's t-test at 95 %, or the 95 % prediction "
		  "interval when this run has fewer than 3 iterations), else within noise. EXPR is SQL "
		  "over the sweep options' columns, e.g. \"rsize=1m AND sync='async'\": sizes may be "
		  "written with units, enum values without quotes (sql/queries/history.sql)." },
	{ .name = "advise",
	  .run = st_cmd_advise,
	  .args = "",
	  .opts = ST_CLI_DB | ST_CLI_FORMAT | ST_CLI_RUN | ST_CLI_PHASE | ST_CLI_WHERE,
	  .maxpos = 0,
	  .formats = 1u << ST_FMT_TABLE | 1u << ST_FMT_MARKDOWN | 1u << ST_FMT_JSON,
	  .help =
		  "The settings to use, per phase: the best combination of the run (default: the last) "
		  "as a line to paste (a mount command with --mount, the libnfs URL and options, else "
		  "the stcluster options), its mean with the 95 % interval over the iterations, the "
		  "gain over the defaults (nfs(5)'s and stcluster's; the median combination when the "
		  "run has no combination of them) with Welch's t-test over the iterations; per option "
		  "that varies, each other value against the best with the other options as the "
		  "best's: within noise (the 95 % interval of the difference inside +-10 %), else worse "
		  "(p < 0.05, Bonferroni over the phase's comparisons), else undecided, so the option "
		  "matters, does not matter or is undecided; the "
		  "pairs that interact (the log-scale contrast of a 2 x 2 of combinations around the "
		  "best, Bonferroni over the tests); the bottleneck verdict of the best when the run "
		  "measured baselines; and what is undecided with the smallest next run that would "
		  "decide it (the values still open, as --set sets of a star around the best when "
		  "several options are, and the iterations for 80 % power). --where "
		  "restricts it to the combinations EXPR selects (SQL over the sweep options' "
		  "columns)." },
	{ .name = "audit",
	  .run = st_cmd_audit,
	  .args = "RUN",
	  .opts = ST_CLI_DB | ST_CLI_FORMAT,
	  .maxpos = 1,
	  .formats = 1u << ST_FMT_TABLE | 1u << ST_FMT_JSON,
	  .help =
		  "Whether the stored results of a run were altered since the run wrote them. Every run "
		  "stores SHA-256 hashes of its rows, each written in the transaction that writes the "
		  "rows: of its configuration (the run row but its status and finish time, and its "
		  "hosts), of its baselines, of each combination (its rows in every result table) and "
		  "of the whole result (the status and finish time, the baselines' hash and every "
		  "combination's hash in order). audit recomputes each from the rows and prints one "
		  "line per hash: ok, or ALTERED, naming each altered combination by its seq (0-based, "
		  "as combo.seq). Exit status 0 when every hash matches, 1 when something was altered. "
		  "A run written by an older stcluster has no hashes, and is said to have none. The "
		  "hashes find changes, not a forger: who can write the store can write new hashes "
		  "too. RUN is an id, a unique prefix of one, last, or last~N. Only --format table "
		  "(default) and json." },
};

#define NCMDS (sizeof(subcmds) / sizeof(subcmds[0]))

/* --output-format's words are --format's */
_Static_assert(ST_OUT_TABLE == (int)ST_FMT_TABLE && ST_OUT_CSV == (int)ST_FMT_CSV &&
		       ST_OUT_JSON == (int)ST_FMT_JSON && ST_OUT_MARKDOWN == (int)ST_FMT_MARKDOWN &&
		       ST_OUT_COUNT == (int)ST_FMT_COUNT,
	       "--output-format and --format list the same formats in the same order");

/* The report a run writes into --output: the one `stcluster report`
 * prints; summary: what it prints when it ends instead of every row. */
static int run_report(struct st_store *s, const char *run_id, int summary, enum st_format f, FILE *out)
{
	if (summary)
		return st_report_summary(st_store_db(s), run_id, out);
	struct st_report_opts ro = ST_REPORT_OPTS_INIT;
	ro.run = run_id;
	ro.format = f;
	return st_report_print(st_store_db(s), &ro, out);
}

/* 1 when arg is an option of a run whose value is the next word (--label
 * X, not --label=X nor a flag): that word is a value, never an option. */
static int takes_next_word(const char *arg)
{
	if (strncmp(arg, "--", 2) != 0 || strchr(arg, '='))
		return 0;
	int id = st_opt_find(arg + 2);
	return id >= 0 && st_options[id].type != ST_T_FLAG;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		const struct st_subcmd *c = st_cli_find(subcmds, NCMDS, argv[1]);
		if (c)
			return st_cli_run(c, argc - 1, argv + 1);
		/* hidden: the build writes stcluster(1) with it */
		if (argc == 2 && strcmp(argv[1], "--help-man") == 0) {
			st_man_page(stdout, ST_VERSION, subcmds, NCMDS);
			return fflush(stdout) ? 1 : 0;
		}
		for (int i = 1; i < argc; i++) {
			if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
			    (i == 1 && strcmp(argv[i], "help") == 0)) {
				st_cli_usage(subcmds, NCMDS, stdout);
				fputc('\n', stdout);
				st_config_help(stdout);
				fputc('\n', stdout);
				st_engines_help(stdout);
				return 0;
			}
			if (strcmp(argv[i], "--version") == 0) {
				printf("stcluster %s\n", ST_VERSION);
				return 0;
			}
			i += takes_next_word(argv[i]); /* --label --help: a label */
		}
	}
	return st_cmd_run(argc, argv, run_report);
}

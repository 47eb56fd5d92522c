/*
 * man.c - stcluster(1) in roff, written by `stcluster --help-man` at build
 * time from the options table (common/options_table.c) and the subcommand table
 * (main.c): neither can drift from the page (see man.h).
 */
#include "man.h"

#include "../common/options.h"
#include "../common/units.h"
#include "../common/util.h"
#include "../worker/engine.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

const struct st_exit_status st_exit_statuses[4] = {
	{ ST_EXIT_OK, "A run: every combination ran without error (a combination the engine cannot "
		      "run is stored as skipped, with the reason, and is no failure). A subcommand: "
		      "done (audit: every hash matches)." },
	{ ST_EXIT_FAILURES, "A run: it finished, but some combination failed to prepare, had errors "
			    "or did not verify (--verify); stcluster runs counts them; or --output "
			    "could not be written (the store has the run whole). A subcommand: "
			    "the store could not be read, or its output could not be written (one line "
			    "says which; audit: a stored hash does not match its rows)." },
	{ ST_EXIT_BAD_INPUT, "Bad input, refused with one line naming the option and the value "
			     "before anything is created or changed: an unknown option or value, an "
			     "option given twice, an unknown run, a file that is not a store, a --db "
			     "that is no file (:memory:, a file: URI), SQL that query cannot run, a "
			     "run in which every combination would be skipped, a --resume of a run "
			     "that is still running (or of a --search halving run that another build "
			     "planned otherwise)." },
	{ ST_EXIT_ABORTED, "A run did not finish: a rank died or hung, a signal to a rank ended it, "
			   "rank 0 went silent, or the store could not be written or was removed "
			   "during the run. stcluster runs shows it aborted and --resume finishes it. "
			   "A signal to mpirun itself (Ctrl-C at its terminal, SIGHUP, SIGTERM) ends "
			   "the job through Open MPI, whose mpirun then exits 1 whatever the ranks "
			   "say: the run is stored aborted all the same. When a rank is killed, mpirun "
			   "may exit with a status of its own (not 0)." },
};

/* Text for roff: backslashes doubled, a leading . or ' made inert. */
static void roff(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

static void man_option(FILE *out, const struct st_opt_def *d)
{
	fputs(".TP\n\\fB", out);
	roff(out, "--");
	roff(out, d->name);
	fputs("\\fR", out);
	if (d->arg) {
		fputs(" \\fI", out);
		roff(out, d->arg);
		fputs("\\fR", out);
	}
	fputc('\n', out);
	roff(out, d->help);
	fputs(".\n", out);
	if (d->flags & ST_OF_SWEEP)
		fprintf(out, "Several values (separated by %c) sweep this dimension of the "
			     "matrix.\n",
			d->sep ? d->sep : ',');
	else if (d->flags & ST_OF_LIST)
		fprintf(out, "A list (separated by %c).\n", d->sep ? d->sep : ',');
	if (d->type == ST_T_ENUM) {
		fputs("Values: ", out);
		for (int k = 0; d->choices[k]; k++) {
			fputs(k ? ", " : "", out);
			roff(out, d->choices[k]);
		}
		fputs(".\n", out);
	} else if ((d->type == ST_T_SIZE || d->type == ST_T_COUNT || d->type == ST_T_DURATION) &&
		   d->max > d->min) {
		char lo[32], hi[32];
		if (d->type == ST_T_SIZE) {
			st_format_size(d->min, lo, sizeof(lo));
			st_format_size(d->max, hi, sizeof(hi));
		} else if (d->type == ST_T_DURATION) {
			/* whole seconds read better than 6.048e+05s */
			const int64_t sec = 1000000000;
			st_format_duration(d->min, lo, sizeof(lo));
			if (d->max % sec == 0)
				snprintf(hi, sizeof(hi), "%llds", (long long)(d->max / sec));
			else
				st_format_duration(d->max, hi, sizeof(hi));
		} else {
			snprintf(lo, sizeof(lo), "%lld", (long long)d->min);
			snprintf(hi, sizeof(hi), "%lld", (long long)d->max);
		}
		if (d->max == INT64_MAX)
			fprintf(out, "%s or more", lo);
		else
			fprintf(out, "From %s to %s", lo, hi);
		if (d->align) {
			char al[32];
			st_format_size(d->align, al, sizeof(al));
			fprintf(out, ", a multiple of %s", al);
		}
		fputs(".\n", out);
	}
	if (d->needs) {
		char who[256];
		st_engine_takers(d->needs, who, sizeof(who));
		fputs("Only for \\fB\\-\\-engine\\fR ", out);
		roff(out, who);
		fputs(".\n", out);
	}
	if (d->flags & ST_OF_NO_PLAN)
		fputs("Command line only (not a plan key).\n", out);
	if (d->def && *d->def) {
		fputs("Default: ", out);
		roff(out, d->def);
		fputs(".\n", out);
	} else if (d->flags & ST_OF_NFS) {
		fputs("Unset unless given: the engine's or the server's default applies, and the "
		      "effective value is stored.\n",
		      out);
	}
}

/* SUBCOMMAND OPTIONS: each row of cli.c's table, with its values, its
 * default and the subcommands that take it. */
static void man_subcmd_options(FILE *out, const struct st_subcmd *subcmds, size_t ncmds)
{
	fputs(".SH SUBCOMMAND OPTIONS\n", out);
	for (size_t i = 0; i < st_cli_nopts; i++) {
		const struct st_cli_opt_def *o = &st_cli_opts[i];
		fputs(".TP\n\\fB", out);
		roff(out, "--");
		roff(out, o->name);
		fputs("\\fR", out);
		if (o->arg) {
			fputs(" \\fI", out);
			roff(out, o->arg);
			fputs("\\fR", out);
		}
		fputc('\n', out);
		roff(out, o->help);
		fputs(".\n", out);
		const char *const *words = o->kind == ST_CLI_K_PHASE	? st_phase_names
					   : o->kind == ST_CLI_K_FORMAT ? st_format_names
									: NULL;
		int nwords = o->kind == ST_CLI_K_PHASE ? ST_PHASE_COUNT : ST_FMT_COUNT;
		for (int k = 0; words && k < nwords; k++) {
			fputs(k ? ", " : "Values: ", out);
			roff(out, words[k]);
		}
		if (words)
			fputs(".\n", out);
		if (o->kind == ST_CLI_K_COUNT)
			fprintf(out, "From %lld to %lld.\n", (long long)o->min, (long long)o->max);
		if (o->def) {
			fputs("Default: ", out);
			roff(out, o->def);
			fputs(".\n", out);
		} else if (o->kind == ST_CLI_K_COUNT && o->def_n) {
			fprintf(out, "Default: %d.\n", o->def_n);
		} else if (o->kind == ST_CLI_K_FORMAT) {
			fprintf(out, "Default: %s.\n", st_format_names[o->def_n]);
		}
		size_t k = 0;
		for (size_t c = 0; c < ncmds; c++) {
			if (!(subcmds[c].opts & o->opt))
				continue;
			fputs(k++ ? ", " : "Taken by: ", out);
			roff(out, subcmds[c].name);
		}
		if (k)
			fputs(".\n", out);
	}
}

/* ENGINES: each engine of the registry, what it is and the options it takes
 * beyond those every engine takes (its declared classes, worker/engine.h). */
static void man_engines(FILE *out)
{
	fputs(".SH ENGINES\n"
	      "\\fB\\-\\-engine\\fR \\fINAME\\fR chooses one (the first is the default). An "
	      "option meant for other engines is refused before anything runs.\n",
	      out);
	for (int i = 0; st_engines[i]; i++) {
		const struct st_engine *e = st_engines[i];
		fputs(".TP\n\\fB", out);
		roff(out, e->name);
		fputs("\\fR\n", out);
		roff(out, e->help);
		fputs(".\n", out);
		for (int how = 0; how < 2; how++) {
			unsigned has = how ? e->takes | e->takes_mounted : e->takes;
			int k = 0;
			for (int id = 0; id < ST_OPT_COUNT; id++) {
				unsigned needs = st_options[id].needs;
				if (!needs || (needs & ~has) || (how && !(needs & ~e->takes)))
					continue;
				fputs(k++ ? ", "
					  : how ? "With \\fB\\-\\-mount\\fR, also: "
						: "Beyond the options every engine takes: ",
				      out);
				fputs("\\fB", out);
				roff(out, "--");
				roff(out, st_options[id].name);
				fputs("\\fR", out);
			}
			if (k)
				fputs(".\n", out);
		}
	}
}

/* The page's header, NAME and SYNOPSIS: the sweep, then every subcommand's synopsis. */
static void man_head(FILE *out, const char *version, const struct st_subcmd *subcmds,
		     size_t ncmds)
{
	fputs(".\\\" stcluster(1): generated by `stcluster --help-man` from the options table;\n"
	      ".\\\" edit common/options_table.c (options), coordinator/main.c and cli.c (subcommands, their\n"
	      ".\\\" options) and worker/ (engines), not this file.\n",
	      out);
	fputs(".TH STCLUSTER 1 \"\" \"stcluster ", out);
	roff(out, version);
	fputs("\" \"User Commands\"\n", out);
	fputs(".SH NAME\nstcluster \\- distributed NFS benchmark coordinator: sweep mount options on "
	      "every client at once, keep every run in SQLite, and analyse them\n",
	      out);
	fputs(".SH SYNOPSIS\n.B mpirun\n[\\fB\\-np\\fR \\fIN\\fR | \\fB\\-hostfile\\fR \\fIFILE\\fR] "
	      "\\fBstcluster\\fR [\\fIOPTIONS\\fR]\n",
	      out);
	for (size_t i = 0; i < ncmds; i++) {
		fputs(".br\n.B stcluster ", out);
		roff(out, subcmds[i].name);
		fputc('\n', out);
		char syn[512];
		st_cli_synopsis(&subcmds[i], syn, sizeof(syn));
		roff(out, syn);
		fputc('\n', out);
	}
	fputs(".br\n.B stcluster\n\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n", out);
}

/* DESCRIPTION: what a run does and what its figures mean. */
static void man_description(FILE *out)
{
	fputs(".SH DESCRIPTION\n"
	      "One MPI job starts a worker on every NFS client host (and every server host). Rank 0 "
	      "walks the matrix of combinations \\- the cartesian product of the lists of the "
	      "sweep options \\- and for each one opens every phase (write, read, ...) on all client "
	      "ranks at once, gathers every rank's bytes, times, latencies and errors, and stores "
	      "the combination with the raw per-rank facts in one SQLite transaction.\n"
	      ".PP\n"
	      "Aggregate MB/s = all client bytes / (latest end \\- earliest start), on a common "
	      "timeline; MB/s is 10^6 bytes per second. Sizes are binary (4k = 4096 bytes). "
	      "Latency (p50, p90, p99, max) is that of each read or write call, from its issue to "
	      "its completion, at every \\fB\\-\\-iodepth\\fR: with N calls in flight, each "
	      "call's own time (its time queued included), not how long the program waited for it.\n"
	      ".PP\n"
	      "With no arguments at all, ./stcluster.conf is read as a plan (\\fIkey\\fR = "
	      "\\fIv1\\fR,\\fIv2\\fR lines, the names of the options below; # starts a comment, "
	      "\\e# is a # in a value). Bad input stops "
	      "before any I/O with one line naming the option and the value, and exit status 2.\n",
	      out);
}

/* SUBCOMMANDS, and SUBCOMMAND OPTIONS. */
static void man_subcommands(FILE *out, const struct st_subcmd *subcmds, size_t ncmds)
{
	fputs(".SH SUBCOMMANDS\n"
	      "Every subcommand reads the store (\\fB\\-\\-db\\fR) read-only, needs no MPI, "
	      "and prints \\fB\\-\\-format\\fR table (default), csv, json or markdown (audit: "
	      "table or json). Their options are under SUBCOMMAND OPTIONS.\n",
	      out);
	for (size_t i = 0; i < ncmds; i++) {
		char syn[512];
		st_cli_synopsis(&subcmds[i], syn, sizeof(syn));
		fputs(".TP\n\\fBstcluster ", out);
		roff(out, subcmds[i].name);
		fputs("\\fR ", out);
		roff(out, syn);
		fputc('\n', out);
		roff(out, subcmds[i].help);
		fputc('\n', out);
	}
	man_subcmd_options(out, subcmds, ncmds);
}

/* RUN, SWEEP and NFS OPTIONS: every row of the options table. */
static void man_run_options(FILE *out)
{
	static const struct {
		const char *title;
		unsigned want, not;
	} groups[] = {
		{ "RUN OPTIONS", 0, ST_OF_SWEEP },
		{ "SWEEP OPTIONS", ST_OF_SWEEP, ST_OF_NFS },
		{ "NFS OPTIONS", ST_OF_NFS, 0 },
	};
	for (size_t g = 0; g < ST_ARRAY_LEN(groups); g++) {
		fprintf(out, ".SH %s\n", groups[g].title);
		if (g == 1)
			fputs("Each is a dimension of the matrix and a column of the store's combo "
			      "table.\n",
			      out);
		if (g == 2)
			fputs("Names as in nfs(5); swept like the options above. What was asked for "
			      "and what was granted are both stored.\n",
			      out);
		for (int i = 0; i < ST_OPT_COUNT; i++) {
			unsigned f = st_options[i].flags;
			if ((groups[g].want && !(f & groups[g].want)) || (f & groups[g].not))
				continue;
			man_option(out, &st_options[i]);
		}
	}
}

/* What the tables do not hold: --sync's writes, FILES, EXIT STATUS, EXAMPLES. */
static void man_tail(FILE *out)
{
	fputs(".SH WRITES AND \\-\\-sync\n"
	      "With the libnfs engine, \\fB\\-\\-sync sync\\fR sends every WRITE stable "
	      "(FILE_SYNC) and \\fBasync\\fR sends UNSTABLE writes and a COMMIT per file, "
	      "inside the timed phase.\n"
	      ".PP\n"
	      "With \\fB\\-\\-mount\\fR (the kernel client) it is the sync mount option, and "
	      "the kernel picks each write's stable_how. Linux 6.1, as seen in the lab's guests: "
	      "with O_DIRECT (\\fB\\-\\-direct on\\fR, the default), whatever "
	      "\\fB\\-\\-sync\\fR says, a write that fits one WRITE call (\\fB\\-\\-block\\fR "
	      "<= wsize) goes FILE_SYNC and a larger one UNSTABLE + COMMIT; buffered, sync does "
	      "the same and async sends UNSTABLE + COMMIT at fsync or close.\n"
	      ".PP\n"
	      "Each phase stores what went over the wire (table rpc_stat: the kernel's "
	      "mountstats, or the libnfs engine's own counts), and \\fBreport\\fR flags a phase "
	      "that contradicts the request (sync asked, UNSTABLE sent, or the reverse).\n",
	      out);
	fputs(".SH FILES\n"
	      ".TP\n\\&./stcluster.conf\nThe plan read when stcluster runs with no arguments.\n"
	      ".TP\n\\&./stcluster.db\nThe store: every run, host, combination, phase, rank and "
	      "thread result; aggregates are views. The tables and views are described in "
	      "sql/README.md; the named queries of compare, effects, history and report \\-\\-top "
	      "are in sql/queries/ and run from the sqlite3 shell too.\n",
	      out);
	fputs(".SH EXIT STATUS\n"
	      "The same for a run (under mpirun, its exit status) and for every subcommand, so that "
	      "a script can branch on it:\n",
	      out);
	for (size_t i = 0; i < ST_ARRAY_LEN(st_exit_statuses); i++) {
		fprintf(out, ".TP\n%d\n", st_exit_statuses[i].status);
		roff(out, st_exit_statuses[i].meaning);
		fputc('\n', out);
	}
	fputs(".SH EXAMPLES\n.nf\n"
	      "mpirun \\-hostfile nodes stcluster \\-\\-target /mnt/nfs/bench \\-\\-mount nfs1:/export \\e\n"
	      "    \\-\\-rsize 64k,1m \\-\\-sync sync,async \\-\\-threads 1,4 \\-\\-iterations 3\n"
	      "stcluster report \\-\\-phase read \\-\\-top 5\n"
	      "stcluster effects\n"
	      "stcluster compare last~1 last\n"
	      "stcluster history \\-\\-where \"rsize=1m AND sync=async\" \\-\\-phase read\n"
	      "stcluster report \\-\\-html report.html\n"
	      "stcluster audit last\n"
	      "stcluster query \"SELECT phase, block, agg_mbps FROM result ORDER BY agg_mbps DESC\"\n"
	      ".fi\n",
	      out);
	fputs(".SH SEE ALSO\nmpirun(1), nfs(5), mount(8), sqlite3(1)\n", out);
}

void st_man_page(FILE *out, const char *version, const struct st_subcmd *subcmds, size_t ncmds)
{
	man_head(out, version, subcmds, ncmds);
	man_description(out);
	man_subcommands(out, subcmds, ncmds);
	man_run_options(out);
	man_engines(out);
	man_tail(out);
}

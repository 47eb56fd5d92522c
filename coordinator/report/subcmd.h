/*
 * subcmd.h - the read-only subcommands, as main.c's subcommand table calls
 * them: each gets its options already parsed (coordinator/cli.c, the one
 * parser) and returns the exit status: 0, 1 after an SQL or write error
 * (audit: a hash differs), 2 for bad input. None starts MPI; every one
 * opens the store read-only.
 */
#ifndef ST_SUBCMD_H
#define ST_SUBCMD_H

#include "../store/output.h"

struct st_store;

/* history --window when not given: the earlier runs each run is compared with */
#define ST_HISTORY_WINDOW 5
/* history --runs when not given: the last runs it shows (and, with their
 * --window runs before them, the only runs it reads) */
#define ST_HISTORY_RUNS 20

/* The options of a read-only subcommand; unset ones keep their defaults. */
struct st_subargs {
	const char *cmd;       /* the subcommand's name, for messages */
	const char *db;	       /* --db: the store (default ./stcluster.db) */
	enum st_format format; /* --format (default table) */
	const char *run;       /* --run: id, unique prefix, last, last~N (default last) */
	const char *phase;     /* --phase: one phase, or NULL for all */
	int top;	       /* --top N: best N of each phase; 0 all */
	const char *html;      /* --html FILE ("-": standard output), or NULL */
	const char *where;     /* --where EXPR, or NULL */
	int force;	       /* --force: report --html may replace a file it did not write */
	int window;	       /* --window N: history compares with the N earlier runs (0: all) */
	int runs;	       /* --runs N: history shows the last N runs (0: all) */
	const char *percentiles; /* --percentiles LIST, or NULL (report/json.h's default) */
	const char *units;	 /* --units si|iec, or NULL */
	const char *columns;	 /* --columns LIST, or NULL */
	int wide;		 /* --wide */
	const char *pos[2];    /* positional arguments, in order */
	int npos;	       /* how many */
};

int st_cmd_report(const struct st_subargs *a);  /* report/report.c */
int st_cmd_runs(const struct st_subargs *a);    /* report/report.c */
int st_cmd_query(const struct st_subargs *a);   /* report/report.c */
int st_cmd_compare(const struct st_subargs *a); /* report/analysis.c */
int st_cmd_effects(const struct st_subargs *a); /* report/analysis.c */
int st_cmd_history(const struct st_subargs *a); /* report/analysis.c */
int st_cmd_audit(const struct st_subargs *a);   /* report/audit.c */
int st_cmd_advise(const struct st_subargs *a);  /* report/advise_print.c */

/* The store a->db, checked and opened read-only; NULL after one line on
 * stderr ("stcluster CMD: --db: no store at '...'"). */
struct st_store *st_subcmd_store(const struct st_subargs *a);

#endif
